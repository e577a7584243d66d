// Package remote makes a running session reachable from the same user's
// other processes. Each `claudewrap run` lists itself with a control socket
// in a private directory ([Register], [Dir]); `claudewrap pending`, `wait`,
// `answer` and the serve page find it there ([Sessions]) and ask what waits
// or answer it, one line of JSON each way; an answer names its sender
// ([FromAnswer], [FromPage]). An MCP server's input form waits as a [Form]
// with its [Elicitation], answered with an [ElicitAnswer] by a session
// that is an [ElicitHandler].
//
// It owns the directory, the protocol and both its ends; what a session
// does with a request is its [Handler]'s. The kernel's word on who
// connected decides: another user is refused. [Check] is what an answer
// from elsewhere must pass.
package remote
