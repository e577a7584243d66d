// Package fakeclaude is a model of Claude Code 2.1.330's AskUserQuestion
// form for unit tests. It draws into a real vt.Emulator the way the
// recorded screens show it (testdata/screens/2.1.330), clearing and redrawing
// inside a synchronized update on every change, and takes keys as Claude
// does: on a goroutine, a little later, like a real TUI. Its pages are
// single- and multi-select, several questions on tabs with a review page,
// and the preview layout (options beside a preview box, notes typed with
// n). It records what Claude would report (the submitted answers and
// notes, a chat message) and every key
// with the focus it landed on, and it has knobs to misbehave ([Faults]).
//
// askflow's tests drive it directly; session's tests put it behind a fake
// child and hook source. It is test support: nothing outside tests uses it.
package fakeclaude
