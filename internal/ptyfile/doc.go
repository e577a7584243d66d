// Package ptyfile owns how a pseudo-terminal's master is held as a Go file:
// served by the runtime's poller, so that deadlines and Close end a read
// in progress, and resized without the call that would make it blocking
// again. ptyhost holds Claude's PTY so; the stress harness, the person's.
// It opens, reads and writes nothing itself: callers own their PTYs.
package ptyfile
