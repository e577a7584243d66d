package screen

import (
	"fmt"
	"strings"
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
	// Title is the window title last set with OSC 0 or 2.
	Title string
	// Seq increases with every Write or Resize that changed the state: two
	// snapshots of one emulator with equal Seq have identical content.
	Seq uint64
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
