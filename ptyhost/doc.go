// Package ptyhost owns the pseudo-terminal Claude Code runs in. A [Host]
// starts the child at the right size, copies its output unchanged to the
// person's terminal and to an emulated screen, forwards the person's keys
// and sends the wrapper's, keeps the PTY and the emulator the same size,
// and restores the person's terminal on every exit path. The person's bytes
// never wait for the emulator, and nothing the child started outlives the
// run.
//
// It knows nothing about forms, rules or hooks, nor what the child draws:
// its caller hands it the emulator (Config.Screen). It moves bytes and
// reports how the child ended ([Status]).
package ptyhost
