package screen

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hinshun/vt10x"
)

const (
	defaultCols  = 80
	defaultRows  = 24
	defaultQuiet = 30 * time.Millisecond
	// syncLimit bounds a synchronized update, as real terminals do, so that a
	// child dying in the middle of one does not hold the screen unsettled.
	syncLimit = time.Second
)

// vtEmulator is an [Emulator] backed by vt10x, fed through a [filter]. All of
// it is guarded by mu; vt10x's own lock is taken only around reading its
// cells and cursor, never around vt10x's Write, which takes it itself.
type vtEmulator struct {
	mu      sync.Mutex
	replyMu sync.Mutex // keeps replies of successive Writes in order
	replies io.Writer
	quiet   time.Duration

	filter

	seq        uint64
	changed    chan struct{} // closed and replaced on every Write and Resize
	lastOutput time.Time
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
	return &vtEmulator{
		replies: o.Replies,
		quiet:   o.Quiet,
		changed: make(chan struct{}),
		filter: filter{
			// vt10x would answer DSR and OSC colour queries itself, but the
			// filter keeps those from it, so its writer stays unused.
			vt:     vt10x.New(vt10x.WithSize(o.Cols, o.Rows), vt10x.WithWriter(io.Discard)),
			answer: o.Replies != nil,
			modes:  map[int]bool{},
		},
	}
}

// Write feeds the child's output through the filter into vt10x, then writes
// any replies to Options.Replies after releasing the lock, so that a replies
// writer may take snapshots.
func (e *vtEmulator) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	e.mu.Lock()
	e.feed(p)
	e.flush()
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
	close(e.changed)
	e.changed = make(chan struct{})
}

// Resize changes the size; vt10x keeps the content that still fits.
func (e *vtEmulator) Resize(cols, rows int) {
	if cols < 1 || rows < 1 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, r := e.vt.Size(); c == cols && r == rows {
		return
	}
	e.vt.Resize(cols, rows)
	e.seq++
	e.notifyLocked()
}

// Size reports the current size.
func (e *vtEmulator) Size() (cols, rows int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.vt.Size()
}

// Snapshot copies the screen.
func (e *vtEmulator) Snapshot() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.snapshotLocked()
}

func (e *vtEmulator) snapshotLocked() Snapshot {
	e.vt.Lock()
	defer e.vt.Unlock()
	cols, rows := e.vt.Size()
	s := Snapshot{
		Cols:          cols,
		Rows:          rows,
		Cells:         make([][]Cell, rows),
		CursorVisible: e.vt.CursorVisible(),
		AltScreen:     e.alt,
		Title:         e.title,
		Seq:           e.seq,
	}
	all := make([]Cell, cols*rows)
	for y := range rows {
		row := all[y*cols : (y+1)*cols : (y+1)*cols]
		for x := range row {
			g := e.vt.Cell(x, y)
			row[x] = Cell{Char: g.Char, FG: fromVT(g.FG), BG: fromVT(g.BG), Attr: attrFromVT(g.Mode)}
		}
		pairHalves(row)
		s.Cells[y] = row
	}
	c := e.vt.Cursor()
	s.Cursor = Pos{X: c.X, Y: c.Y}
	return s
}

// pairHalves turns placeholder cells into right halves (Char 0). A half whose
// partner was overwritten shows as a blank, as on a real terminal.
func pairHalves(row []Cell) {
	for x := range row {
		switch c := &row[x]; {
		case c.Char == placeholder:
			if x > 0 && row[x-1].Char != 0 && runeWidth(row[x-1].Char) == 2 {
				c.Char = 0
			} else {
				c.Char = ' '
			}
		case c.Char == 0:
			c.Char = ' '
		case c.Char >= 0x1100 && runeWidth(c.Char) == 2:
			if x+1 >= len(row) || row[x+1].Char != placeholder {
				c.Char = ' '
			}
		}
	}
}

// vt10x attribute bits (unexported there).
const (
	vtReverse = 1 << iota
	vtUnderline
	vtBold
	vtGfx
	vtItalic
	vtBlink // carries Dim: see rewriteSGR
)

func attrFromVT(m int16) Attr {
	var a Attr
	for _, f := range [...]struct {
		vt int16
		a  Attr
	}{{vtBold, Bold}, {vtBlink, Dim}, {vtItalic, Italic}, {vtUnderline, Underline}, {vtReverse, Reverse}} {
		if m&f.vt != 0 {
			a |= f.a
		}
	}
	return a
}

// fromVT maps a vt10x colour. vt10x stores a true colour as bare RGB, so one
// with red and green both zero cannot be told from a palette index and is
// reported as one.
func fromVT(c vt10x.Color) Color {
	switch {
	case c == vt10x.DefaultFG:
		return DefaultFG
	case c == vt10x.DefaultBG:
		return DefaultBG
	case c < 256:
		return Color(c)
	}
	return rgbFlag | Color(c)&0xFFFFFF
}
