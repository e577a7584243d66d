// Package ptyhost owns the pseudo-terminal Claude Code runs in: it starts the
// child at the right size, copies the child's output unchanged to the person's
// terminal (passthrough) and to an emulated screen, forwards the person's keys,
// sends keys on behalf of the wrapper, keeps the PTY and the emulator the same
// size, and restores the person's terminal on every exit path.
//
// It knows nothing about forms, rules or hooks: it moves bytes and reports how
// the child ended.
package ptyhost
