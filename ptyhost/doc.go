// Package ptyhost owns the pseudo-terminal Claude Code runs in: it starts the
// child at the right size, copies the child's output unchanged to the person's
// terminal (passthrough) and to an emulated screen, forwards the person's keys,
// sends keys on behalf of the wrapper, keeps the PTY and the emulator the same
// size, and restores the person's terminal on every exit path: its termios,
// the main screen, the modes a child can set (terminal_unix.go), the scroll
// region and origin mode with the cursor left in place, and its window
// title, pushed on the terminal's title stack at the start and popped at
// the end.
//
// The person's bytes never wait for the emulator. In passthrough, an emulator
// that falls far behind a long burst skips the rest of it and, once the
// output pauses, has the child redraw its whole screen (see feeder in
// host.go); until then its screen is blank, so nothing stale is judged, but
// its private modes follow the skipped output (screen's Skip), so that the
// restore knows the alternate screen.
//
// On Linux with cgo, a thread outside the Go runtime reads the PTY and
// writes to the person's terminal (relay_cgo.go): the runtime's poller and
// scheduler, woken for every 4 KB a PTY read gives, cost a relay in Go a
// tenth of its throughput. Elsewhere readLoop reads the PTY itself.
//
// The person's input goes on in chunks that do not end inside a terminal's
// report when its rest follows within 50 ms (input.go): a report a read cut
// in two is seen whole, not as typing, and no key of the wrapper's lands
// between its halves.
//
// Nothing the child started outlives the run. On Linux the child runs
// under a supervisor, this binary run again (supervise_linux.go): a child
// subreaper in a session of its own that starts the child, passes signals
// on, reports its exit status, and kills every descendant when the child
// exits or the wrapper goes, even by SIGKILL (a pipe from the wrapper
// closes). Elsewhere (child_other.go) the child's process group is killed
// once it has exited.
//
// It knows nothing about forms, rules or hooks: it moves bytes and reports how
// the child ended.
package ptyhost
