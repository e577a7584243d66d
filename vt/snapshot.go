package vt

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Pos is a cell position, zero-based, X the column and Y the row.
type Pos struct{ X, Y int }

// Color is a cell colour: a palette index 0-255, a true colour made by [RGB],
// or one of the sentinels [DefaultFG] and [DefaultBG].
type Color uint32

// Colour sentinels for the terminal's default colours.
const (
	DefaultFG Color = 1<<25 + iota
	DefaultBG
)

const rgbFlag Color = 1 << 24

// RGB returns the true colour r, g, b.
func RGB(r, g, b uint8) Color {
	return rgbFlag | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// IsRGB reports whether c is a true colour and returns its components.
func (c Color) IsRGB() (r, g, b uint8, ok bool) {
	if c&^0xFFFFFF != rgbFlag {
		return 0, 0, 0, false
	}
	return uint8(c >> 16), uint8(c >> 8), uint8(c), true
}

// Attr is a set of cell attributes.
type Attr uint8

// Cell attributes.
const (
	Bold Attr = 1 << iota
	Dim
	Italic
	Underline
	Reverse
)

// Cell is one character cell. Char is 0 in the right half of a wide character.
// FG and BG are the colours as displayed: reverse video is already applied and
// bold palette colours 0-7 are already brightened.
type Cell struct {
	Char   rune
	FG, BG Color
	Attr   Attr
}

// Snapshot is a copy of the screen at one moment. Snapshots share rows that
// did not change between them: treat Cells as read-only.
type Snapshot struct {
	Cols, Rows    int
	Cells         [][]Cell // [row][col]; read-only
	Cursor        Pos
	CursorVisible bool
	AltScreen     bool
	// Origin is set while the cursor is addressed from the scroll
	// region's top (origin mode, DECOM); Cursor counts from the screen's.
	Origin bool
	// Title is the window title last set with OSC 0 or 2.
	Title string
	// Seq increases with every Write or Resize that changed the state: two
	// snapshots of one emulator with equal Seq have identical content.
	Seq uint64
	// Skips counts the output skipped so far (Skip): a feeder behind a
	// stream, whose screen changed though its text may not show it.
	Skips uint64
	// Measure is what the screen was laid out by: [Options.Measure], or
	// what [Options.Detect] found since. A recording that starts from a
	// drawing of this screen names it, so that a replay lays out alike.
	Measure
}

// Line returns the text of row y with trailing spaces trimmed. A wide
// character appears once. Rows outside the screen are empty.
func (s Snapshot) Line(y int) string {
	if y < 0 || y >= len(s.Cells) {
		return ""
	}
	var b strings.Builder
	for _, c := range s.Cells[y] {
		if c.Char != 0 {
			b.WriteRune(c.Char)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// Text returns all rows joined by newlines, trailing blank rows trimmed.
func (s Snapshot) Text() string {
	lines := make([]string, len(s.Cells))
	n := 0
	for y := range s.Cells {
		lines[y] = s.Line(y)
		if lines[y] != "" {
			n = y + 1
		}
	}
	return strings.Join(lines[:n], "\n")
}

// String returns [Snapshot.Text] and a line describing the cursor, for error
// messages and logs.
func (s Snapshot) String() string {
	return fmt.Sprintf("%s\n[%dx%d cursor %d,%d visible=%t alt=%t]",
		s.Text(), s.Cols, s.Rows, s.Cursor.X, s.Cursor.Y, s.CursorVisible, s.AltScreen)
}

// ANSI returns bytes that draw the snapshot on a blank terminal of its size:
// every cell with its colours and attributes, then the cursor. A recording
// that starts with them replays to this screen, so that it can hold only the
// output since a moment. Reverse video is written as the colours it shows,
// but for swapped default colours.
func (s Snapshot) ANSI() []byte {
	var b []byte
	if s.AltScreen {
		b = append(b, "\x1b[?1049h"...)
	}
	b = append(b, "\x1b[0m\x1b[H\x1b[2J"...)
	var cur Cell
	first := true
	for y, row := range s.Cells {
		b = append(b, fmt.Sprintf("\x1b[%d;1H", y+1)...)
		for _, c := range row {
			if c.Char == 0 {
				continue // the right half of a wide character
			}
			pen := Cell{FG: c.FG, BG: c.BG, Attr: c.Attr &^ Reverse}
			if c.FG == DefaultBG || c.BG == DefaultFG {
				// Default colours swapped: only reverse video says so.
				pen = Cell{FG: c.BG, BG: c.FG, Attr: c.Attr | Reverse}
			}
			if first || pen != cur {
				b = appendSGR(b, pen)
				cur, first = pen, false
			}
			b = utf8.AppendRune(b, c.Char)
		}
	}
	b = append(b, fmt.Sprintf("\x1b[0m\x1b[%d;%dH", s.Cursor.Y+1, s.Cursor.X+1)...)
	if s.CursorVisible {
		return append(b, "\x1b[?25h"...)
	}
	return append(b, "\x1b[?25l"...)
}

func appendSGR(b []byte, c Cell) []byte {
	b = append(b, "\x1b[0"...)
	for _, a := range []struct {
		bit  Attr
		code string
	}{{Bold, ";1"}, {Dim, ";2"}, {Italic, ";3"}, {Underline, ";4"}, {Reverse, ";7"}} {
		if c.Attr&a.bit != 0 {
			b = append(b, a.code...)
		}
	}
	b = appendColor(b, c.FG, "38", "39")
	b = appendColor(b, c.BG, "48", "49")
	return append(b, 'm')
}

func appendColor(b []byte, c Color, set, def string) []byte {
	if r, g, bl, ok := c.IsRGB(); ok {
		return append(b, fmt.Sprintf(";%s;2;%d;%d;%d", set, r, g, bl)...)
	}
	if c == DefaultFG || c == DefaultBG {
		return append(b, ";"+def...)
	}
	return append(b, fmt.Sprintf(";%s;5;%d", set, c)...)
}
