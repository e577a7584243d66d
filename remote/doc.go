// Package remote makes a running session reachable from other processes of
// the same user. Each `claudewrap run` lists itself in a private directory
// ($XDG_RUNTIME_DIR/claudewrap, else /tmp/claudewrap-UID; entries of dead
// processes are removed) with a control socket; `claudewrap pending`,
// `wait` and `answer` find the sessions there and ask them what waits, or
// answer it. The package owns the directory, the one-line JSON protocol
// and both its ends; what a session does with a request is its [Handler]'s.
// The kernel's word on who connected decides: another user is refused.
// [Check] is what an answer from elsewhere must be to answer a form: the
// session holds every answer to it before it takes the form, and the
// senders (claudewrap answer, the serve page) before they send.
//
// A client sends one line of JSON and reads one line back. An answer's
// reply comes once Claude has recorded it (at most [AnswerWait]); the
// client keeps the connection open until then, its writing side too: the
// connection's end, a half-close included, reads as the client gone, and
// the session stops waiting for it (the answer stands).
package remote
