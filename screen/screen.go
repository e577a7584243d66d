package screen

import (
	"context"
	"io"
	"time"
)

// Emulator is a virtual terminal fed with the child's output. Implementations
// are safe for concurrent use: one goroutine writes while others take snapshots.
type Emulator interface {
	// Write feeds output from the child. It accepts any split of the stream,
	// including UTF-8 characters and escape sequences cut across calls.
	io.Writer
	// Resize changes the size of the virtual terminal.
	Resize(cols, rows int)
	// Size reports the current size.
	Size() (cols, rows int)
	// Snapshot copies the current screen.
	Snapshot() Snapshot
	// Skip is for a feeder that had to drop part of the stream and will
	// have the child draw again: p reached the terminal undrawn. The screen
	// is forgotten as a terminal's full reset (RIS) does, but the private
	// modes stay as they were, changed by those p switches (the alternate
	// screen, the cursor's visibility, mouse and paste modes), a switch cut
	// between Skip and Write included.
	Skip(p []byte)
	// Wait returns the first settled snapshot for which ok returns true,
	// re-checking after every change, or an error carrying the last settled
	// snapshot it saw when ctx ends.
	Wait(ctx context.Context, ok func(Snapshot) bool) (Snapshot, error)
}

// Options configure a new emulator.
type Options struct {
	Cols, Rows int
	// Replies receives the emulator's answers to terminal queries (DA1, cursor
	// position report, ...). Nil means queries are not answered, which is right
	// when a real terminal is on the other side and answers them itself.
	Replies io.Writer
	// Quiet is how long output must pause before a screen counts as settled
	// outside a synchronized update. Zero means a default of 30ms.
	Quiet time.Duration
	// Version is the child's Claude Code version ("2.1.321") when known
	// from its install; it decides how a spacing mark is measured (see
	// filter.banner) until Claude's banner names a version, which wins.
	// Empty, or not a version: the newest, until the banner.
	Version string
}
