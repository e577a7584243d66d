// Package hook owns the bridge between Claude Code's hooks and the running
// wrapper: the private socket each run listens on ([Server]), the
// --settings JSON that adds claudewrap's hooks to the person's own
// ([Settings]), the client `claudewrap hook` runs ([Forward]), and the
// check that only Claude's own hooks are heard.
//
// It decides and presses nothing: the session's decisions only pass
// through it. Under --gate a tool call the wrapper did not decide is
// denied ([ForwardGated]).
package hook
