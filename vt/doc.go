// Package vt is a terminal emulator judged against xterm: it keeps the
// screen a child program draws and hands out immutable, thread-safe
// [Snapshot]s of it.
//
// [New] returns an [Emulator]: output comes in through Write in any split,
// answers to the child's terminal queries go out through [Options.Replies],
// and what has no place on a screen (OSC and DCS strings but the title,
// kitty keyboard and other marked sequences) is dropped. A [Snapshot] holds
// [Cell]s with their colours as displayed, the cursor, the title and the
// modes a reader needs. [Emulator.Wait] judges only settled screens: not
// inside a synchronized update, and either one just ended or output paused.
// Where a program measures text otherwise than a terminal (emoji sequences,
// spacing marks), a [Measure] lays it out the program's way.
//
// It must not know about PTYs, processes or what any program's screens
// mean.
package vt
