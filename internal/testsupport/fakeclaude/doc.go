// Package fakeclaude is a model of Claude Code 2.1.330's AskUserQuestion
// form for unit tests. A [Claude] draws the form into a real
// vt.Emulator as the recorded screens show it, takes keys a little
// later on a goroutine of its own as a real TUI does, and records what
// Claude would report and every key; [Faults] make it misbehave.
//
// It is test support: askflow's and session's tests use it, and the
// benchmarks' stand-in for Claude Code (bench/benchchild forms), which
// mirrors its frames to its terminal.
package fakeclaude
