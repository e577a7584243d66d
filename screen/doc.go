// Package screen owns the emulated copy of Claude Code's terminal: it feeds the
// child's output through a terminal emulator (github.com/hinshun/vt10x behind the
// [Emulator] interface), works around that emulator's known defects, answers the
// child's terminal queries when asked to, and hands out thread-safe [Snapshot]s.
//
// It knows nothing about PTYs, files or processes: bytes come in through Write,
// replies go out through an io.Writer given at construction. Recognising forms on
// a snapshot also lives here, so that all knowledge of what Claude draws is in
// one package.
//
// A small tokenizer sits in front of vt10x. It keeps its state across writes,
// gives wide characters two cells, drops what vt10x would misread (kitty
// keyboard and other marked or intermediate CSI sequences, OSC and DCS strings,
// redundant alternate-screen switches, synchronized-output marks) and answers
// queries (DA1, DA2, XTVERSION, DSR, CPR, DECRQM, OSC 10/11).
//
// A screen is settled when it is not inside a synchronized update and either
// one just ended or output has paused for [Options.Quiet]; [Emulator.Wait] looks
// only at settled screens, so it never judges a half-drawn frame.
package screen
