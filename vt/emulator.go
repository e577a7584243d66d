package vt

import (
	"fmt"
	"io"
	"sync"
	"time"
)

const (
	defaultCols  = 80
	defaultRows  = 24
	defaultQuiet = 30 * time.Millisecond
	// syncLimit bounds a synchronized update, as real terminals do, so that a
	// child dying in the middle of one does not hold the screen unsettled.
	syncLimit = time.Second
)

// vtEmulator is an [Emulator]: a [filter] tokenizing the child's output onto
// a [term] grid. All of it is guarded by mu.
type vtEmulator struct {
	mu      sync.Mutex
	replyMu sync.Mutex // keeps replies of successive Writes in order
	replies io.Writer
	quiet   time.Duration

	filter

	seq        uint64
	skips      uint64        // Skip calls so far
	changed    chan struct{} // made for waiters, closed on the next Write or Resize
	lastOutput time.Time

	// snap is the last snapshot taken, valid while snapOK. Rows the grid has
	// not marked dirty since are shared with the next one.
	snap   Snapshot
	snapOK bool
}

var _ Emulator = (*vtEmulator)(nil)

// New returns an [Emulator] of the size in o, 80x24 if unset.
func New(o Options) Emulator {
	if o.Cols <= 0 {
		o.Cols = defaultCols
	}
	if o.Rows <= 0 {
		o.Rows = defaultRows
	}
	if o.Quiet <= 0 {
		o.Quiet = defaultQuiet
	}
	e := &vtEmulator{
		replies: o.Replies,
		quiet:   o.Quiet,
		filter: filter{
			t:       newTerm(o.Cols, o.Rows),
			answer:  o.Replies != nil,
			modes:   map[int]bool{},
			measure: o.Measure,
		},
	}
	if o.Detect != nil {
		e.filter.detect, e.filter.detectLeft = o.Detect, o.DetectLines
	}
	return e
}

// Write feeds the child's output through the filter onto the grid, then writes
// any replies to Options.Replies after releasing the lock, so that a replies
// writer may take snapshots.
func (e *vtEmulator) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	e.mu.Lock()
	if len(e.skipCarry) > 0 {
		// A mode sequence cut where the feeder stopped skipping.
		e.feed(e.skipCarry)
		e.skipCarry = e.skipCarry[:0]
	}
	e.feed(p)
	if e.dirty {
		e.dirty = false
		e.seq++
	}
	e.lastOutput = time.Now()
	e.notifyLocked()
	reply := e.reply
	e.reply = nil
	if len(reply) == 0 {
		e.mu.Unlock()
		return len(p), nil
	}
	e.replyMu.Lock()
	e.mu.Unlock()
	defer e.replyMu.Unlock()
	if _, err := e.replies.Write(reply); err != nil {
		return len(p), fmt.Errorf("write terminal reply: %w", err)
	}
	return len(p), nil
}

func (e *vtEmulator) notifyLocked() {
	if e.changed != nil {
		close(e.changed)
		e.changed = nil
	}
}

// changedLocked returns a channel closed on the next Write or Resize.
func (e *vtEmulator) changedLocked() <-chan struct{} {
	if e.changed == nil {
		e.changed = make(chan struct{})
	}
	return e.changed
}

// Resize changes the size, keeping the content that still fits.
func (e *vtEmulator) Resize(cols, rows int) {
	if cols < 1 || rows < 1 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.t.cols == cols && e.t.rows == rows {
		return
	}
	e.t.resize(cols, rows)
	e.snapOK = false
	e.seq++
	// The old frame cut to the new size is nothing the child drew: it
	// settles once the child's redraw ends, or after the quiet period if
	// none comes.
	e.syncEnded = false
	e.lastOutput = time.Now()
	e.notifyLocked()
}

// Size reports the current size.
func (e *vtEmulator) Size() (cols, rows int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.t.cols, e.t.rows
}

// Snapshot copies the screen.
func (e *vtEmulator) Snapshot() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.snapshotLocked()
}

// snapshotLocked returns the last snapshot if nothing changed since, or else
// a new one that copies the rows that changed and shares the others with the
// last one. Rows handed out are never written again.
func (e *vtEmulator) snapshotLocked() Snapshot {
	if e.snapOK && e.snap.Seq == e.seq {
		return e.snap
	}
	t := e.t
	prev := e.snap.Cells
	reuse := e.snapOK && len(prev) == t.rows && e.snap.Cols == t.cols
	dirty := 0
	for y := range t.rows {
		if !reuse || t.dirty[y] {
			dirty++
		}
	}
	// One allocation for a whole screen, one per row for a few rows, so that
	// a shared row never keeps a whole old screen alive for long.
	var all []Cell
	if dirty == t.rows {
		all = make([]Cell, t.rows*t.cols)
	}
	cells := make([][]Cell, t.rows)
	for y := range cells {
		if reuse && !t.dirty[y] {
			cells[y] = prev[y]
			continue
		}
		var row []Cell
		if all != nil {
			row, all = all[:t.cols:t.cols], all[t.cols:]
		} else {
			row = make([]Cell, t.cols)
		}
		copy(row, t.lines[y])
		pairHalves(row)
		cells[y] = row
		t.dirty[y] = false
	}
	e.snap = Snapshot{
		Cols:          t.cols,
		Rows:          t.rows,
		Cells:         cells,
		Cursor:        Pos{X: t.cur.x, Y: t.cur.y},
		CursorVisible: t.mode&modeHide == 0,
		AltScreen:     e.alt,
		Origin:        t.cur.state&originMode != 0,
		Title:         e.title,
		Seq:           e.seq,
		Skips:         e.skips,
		Measure:       e.filter.measure,
	}
	e.snapOK = true
	return e.snap
}

// pairHalves turns placeholder cells into right halves (Char 0). A half whose
// partner was overwritten shows as a blank, as on a real terminal.
func pairHalves(row []Cell) {
	for x := range row {
		switch c := &row[x]; {
		case c.Char == placeholder:
			if x > 0 && row[x-1].Char != 0 && RuneWidth(row[x-1].Char) == 2 {
				c.Char = 0
			} else {
				c.Char = ' '
			}
		case c.Char == 0:
			c.Char = ' '
		case c.Char >= 0x1100 && RuneWidth(c.Char) == 2:
			if x+1 >= len(row) || row[x+1].Char != placeholder {
				c.Char = ' '
			}
		}
	}
}
