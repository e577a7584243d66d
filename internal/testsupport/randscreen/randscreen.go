// Package randscreen draws screens nobody picked, from a seed: dialogs in
// shapes claudewrap has no grammar for — a box (╭─╮ or ┌─┐) or a rule with
// a title, a body of random text (CJK, emoji, long lines that wrap, bodies
// that scroll behind "↑ N more lines" markers or run off the top of the
// screen) and key hints, with a menu or without one, or a menu with no frame
// — and screens that are no dialog: Claude's input box with typed text, its
// command menu and file suggestions under it, spinners, tool output, the
// welcome banner. Each comes with what it must be read as.
//
// It is test support: package screen's tests feed the screens through the
// emulator, and fakedialog draws one on a terminal.
package randscreen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Key is a key hint a dialog shows: the key and what it does.
type Key struct {
	Key  string `json:"key"`
	Does string `json:"does"`
}

// Screen is one random screen and what it must be read as.
type Screen struct {
	Seed       int64
	Cols, Rows int
	// Shape names what was drawn: "box", "rule" or "plain" (no frame) for
	// a dialog, with "+menu", "+keys", "+scroll" (a body behind markers),
	// "+cut" (its top above the screen), "+edge" (a title in the box's
	// edge); "prompt", "slash", "at", "spinner", "tool" or "banner" for
	// a screen that is no dialog.
	Shape string
	// Output draws the screen on a terminal of Cols × Rows.
	Output []byte
	// Dialog says the screen is a dialog; the fields below are what it
	// must be read as.
	Dialog bool
	// Title is its title, words joined with single spaces; "" when Cut.
	Title string
	// Body is its text between the title and the menu or footer, each
	// line trimmed; compare it without white space (a long word broken
	// at the line's end).
	Body    string
	Options []string
	Focus   int // -1 with no menu
	Keys    []Key
	Cut     bool
}

// Size is the terminal size a seed's screen is drawn at when nobody gives
// one: 40 to 200 columns, 16 to 50 rows.
func Size(seed int64) (cols, rows int) {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	return 40 + r.IntN(161), 16 + r.IntN(35)
}

// New draws the screen of seed at its Size.
func New(seed int64) Screen {
	cols, rows := Size(seed)
	return Draw(seed, cols, rows)
}

// Draw draws the screen of seed on a terminal cols × rows (at least 40 × 16
// make sense). Two screens in three are dialogs.
func Draw(seed int64, cols, rows int) Screen {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(cols)<<16|uint64(rows)))
	s := Screen{Seed: seed, Cols: cols, Rows: rows, Focus: -1}
	var rs []row
	if r.IntN(3) < 2 {
		for {
			d := s
			var ok bool
			if rs, ok = drawDialog(r, &d); ok {
				s = d
				break
			}
		}
	} else {
		rs = drawOther(r, &s)
	}
	s.Output = emit(r, rs, cols, rows)
	return s
}

func (s Screen) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, %dx%d, %s", s.Seed, s.Cols, s.Rows, s.Shape)
	if !s.Dialog {
		b.WriteString(": no dialog")
		return b.String()
	}
	fmt.Fprintf(&b, ": title %q, cut %t, options %q (focus %d), keys %q", s.Title, s.Cut, s.Options, s.Focus, s.Keys)
	return b.String()
}

// role is what a row of the screen is part of.
type role int

const (
	roleBack   role = iota // what is above a dialog: conversation, a banner, blank rows
	roleBlank              // a blank row inside a dialog
	roleFrame              // a rule or a box's edge
	roleTitle              // a line of the title
	roleBody               // a line of the body (and the prompt over a menu)
	roleMarker             // "↑ N more lines"
	roleMenu               // an option's row or its label's continuation
	roleUnder              // lines between a menu and the footer
	roleFooter             // the key hints
)

// row is one row of the screen: its text as the terminal shows it (every
// cell but trailing blanks) and its role.
type row struct {
	text  string
	role  role
	focus bool // the menu row the pointer is on
}

// emit is the output that draws rows, the last of them on the screen's
// bottom row or above it: cleared and written row by row at their places,
// or written as a stream of lines that scrolls the top off, or after
// another frame drawn and cleared; each row in colours of its role.
func emit(r *rand.Rand, rs []row, cols, rows int) []byte {
	for i := range rs {
		if cells(rs[i].text) > cols {
			// Claude cuts what does not fit its width (a command's
			// description, a long output line) and ends it with "…".
			head, _ := cutCells(rs[i].text, cols-1)
			rs[i].text = head + "…"
		}
	}
	var b strings.Builder
	if r.IntN(4) == 0 {
		b.WriteString("\x1b[2J\x1b[H")
		for i := range min(rows, 5) {
			fmt.Fprintf(&b, "\x1b[%d;1Ha stale frame %d %s", i+1, i, strings.Repeat("x", r.IntN(cols/2)))
		}
	}
	b.WriteString("\x1b[2J\x1b[H")
	if r.IntN(2) == 0 {
		for i, rw := range rs {
			if i > 0 {
				b.WriteString("\r\n")
			}
			b.WriteString(style(r, rw))
		}
		return []byte(b.String())
	}
	first := max(0, len(rs)-rows)
	for i, rw := range rs[first:] {
		fmt.Fprintf(&b, "\x1b[%d;1H", i+1)
		if r.IntN(3) == 0 {
			b.WriteString("\x1b[2K") // as a renderer clears a row it draws again
		}
		b.WriteString(style(r, rw))
	}
	return []byte(b.String())
}

// style colours a row as Claude would its part: a bold title, a dim footer,
// a coloured pointer and frame, text in a colour now and then.
func style(r *rand.Rand, rw row) string {
	t := rw.text
	switch rw.role {
	case roleTitle:
		return "\x1b[1m" + t + "\x1b[22m"
	case roleFooter:
		return "\x1b[2m" + t + "\x1b[0m"
	case roleFrame:
		return fmt.Sprintf("\x1b[38;5;%dm%s\x1b[39m", 1+r.IntN(230), t)
	case roleMenu:
		if rw.focus {
			return strings.Replace(t, "❯", "\x1b[38;2;215;119;87m❯\x1b[39m\x1b[1m", 1) + "\x1b[22m"
		}
	}
	if r.IntN(4) == 0 {
		return fmt.Sprintf("\x1b[3%dm%s\x1b[m", 1+r.IntN(7), t)
	}
	return t
}
