// Package vt is a terminal emulator: it keeps a copy of the screen a child
// program draws, as xterm would show it, and hands out immutable,
// thread-safe [Snapshot]s of it.
//
// [New] returns an [Emulator]. Bytes come in through Write, in any split;
// answers to the child's terminal queries (DA1, DA2, XTVERSION, DSR, CPR,
// DECRQM, OSC 10/11) go out through an io.Writer given in [Options]. What has
// no place on a screen is dropped: kitty keyboard and other marked CSI
// sequences, OSC and DCS strings but for the window title, synchronized
// output marks. A [Snapshot] holds [Cell]s with their colours as displayed,
// the cursor, the title and the private modes a reader needs. A screen is
// settled when it is not inside a synchronized update and either one just
// ended or output has paused for [Options.Quiet]; [Emulator.Wait] looks only
// at settled screens. [Emulator.Skip] is for a feeder that fell behind: the
// screen is forgotten, the private modes are kept.
//
// Where a program measures text otherwise than a terminal does (emoji
// sequences, spacing marks), [Measure] lays the text out the program's way,
// chosen up front or detected from the screen ([Options.Detect]), so that
// what it draws after such text lands where it means it to.
//
// The emulator does not allocate while it reads ordinary output, and a
// snapshot copies only the rows that changed since the last one.
//
// It knows nothing of PTYs, processes, or what any program's screens mean.
package vt
