// Package screen is the grammar of Claude Code's screens: it reads what
// Claude draws off a [vt.Snapshot] and holds it against what the hook
// reported.
//
// [New] gives a [vt.Emulator] that measures text as Claude Code does, by
// version. [Recognize] reads the AskUserQuestion form as a [Form], from the
// bottom of the screen up; [Form.Shows] and [Form.Disagreements] compare it
// with the questions asked, text compared as [Squash] leaves it.
// [ParseDialog] reads any other screen on which Claude waits for a key as
// a [Dialog]: by what makes one (a menu, a footer of [Key] hints, in a box,
// under a rule or on its own), never by knowing it in advance; its
// [DialogKind] names those claudewrap knows (trust, permission, plan,
// bypass, auto mode's check, the API key question, a project's MCP server,
// the first-run screens) and calls the rest "other". Claude's input box,
// with the command menu and suggestions under it, is never one.
// [ParseElicitation] reads an MCP server's input form (its fields, their
// marks and values, the focus, an open list, the buttons); [Prompt] and
// [Working] its input box, [SessionsView] its sessions view; [Typed] tells
// the person's keys from the terminal's reports. What each layout looks
// like, and how it differs by version, is in layout.go, with golden screens
// recorded from every pinned Claude Code under testdata/.
//
// It must not parse terminal output (package vt's job) or touch a PTY or a
// process.
package screen
