package vt

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
	// Measure is how text is laid out until Detect finds otherwise; the zero
	// value lays it out as xterm does.
	Measure Measure
	// Detect, if set, is called at each of the first DetectLines line feeds
	// with the cursor's row and the one above it (nil on the top row),
	// before the cursor leaves them. Once it returns true, its Measure
	// holds from then on and it is not called again. It runs with the
	// emulator locked, so it must not call the emulator; the rows are the
	// grid's own, valid during the call only, and hold U+10FFFD in the right
	// half of a wide character.
	Detect      func(above, row []Cell) (Measure, bool)
	DetectLines int
}

// Measure is how wide the program on the terminal takes text to be where
// programs and terminals disagree, so that the grid puts what follows such
// text where the program means it to be. The zero value is xterm's measure.
type Measure struct {
	// EmojiSequences lays an emoji sequence out as one wide character, as
	// programs that measure text by grapheme do: an emoji joined to the
	// wide character before it by a zero-width joiner (👨 ZWJ 💻), or a
	// skin tone after one, gets no cells ([Clusters]), and a keycap (1⃣,
	// 1️⃣) gets two columns where a terminal gives the digit one.
	EmojiSequences bool
	// MarksJoin measures a spacing mark ([IsSpacingMark]: a Devanagari
	// vowel sign) as part of the letter before it, so it gets no cell.
	MarksJoin bool
	// Version names the version of the program this measure is for, as
	// whoever chose it knows it; "" when unknown. The emulator only
	// reports it.
	Version string
}
