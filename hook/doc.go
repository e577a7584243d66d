// Package hook owns the bridge between Claude Code's hooks and the running
// wrapper: the private socket each run listens on, the --settings JSON that
// adds claudewrap's hooks next to the person's own, the client side run by
// `claudewrap hook` (forward the hook's JSON and get out of Claude's way), and
// the validation of what arrives: only processes descending from claudewrap
// (Claude's own hooks) are heard. It never decides or presses anything; a
// PermissionRequest's decision, a tool's deny at PreToolUse and, under the
// hook answer strategy, a question's answers (made by the session) only
// pass through, taken only while the hook command still waits to read
// them. Under --gate the hook command fails closed: a tool call the wrapper
// did not decide is denied.
package hook
