// Package screen is the grammar of Claude Code's screens: it reads the
// forms, dialogs, prompt and views Claude draws off a [vt.Snapshot], and
// holds them against what the hook reported.
//
// [New] gives a [vt.Emulator] measuring text as Claude Code does, by
// version ([Options.Version], or the version on Claude's banner).
// [Recognize] reads the AskUserQuestion form as a [Form] from the bottom of
// the screen up (a form taller than the terminal loses its top, a long list
// scrolls); layout.go describes every layout and how it differs by version.
// [Form.Disagreements] and [Form.Shows] compare a page with the questions
// asked, text compared as [Squash] leaves it. [ParseDialog] reads the other
// menus as a [Dialog]; [Prompt], [Echoes] and [Working] read Claude's input
// box; [SessionsView] Claude's sessions view; [Typed] and [EscPressed] tell
// the person's keys from the terminal's reports; [SameBesidePointer] what
// Claude draws after the pointer. The golden screens under testdata/ are
// recorded from every pinned Claude Code.
//
// It knows no terminal escape sequences but the keys and reports in typed
// input: the emulator is package vt's. It touches no PTY or process.
package screen
