package stress

import (
	"cmp"
	"slices"
	"time"
)

// terminal puts a session on a terminal now and then, and resizes it
// while its forms are answered: three forms in four, 1 to 3 times each,
// within 0.6 s of the form's first key. The sizes keep at least 60x24: a
// page taller than a short terminal is handed to the person by design
// (headless, claudewrap makes the terminal taller), and the harness has no
// person.
func (g *generator) terminal(s *Session) {
	if g.term.Float64() >= terminalChance {
		return
	}
	s.Terminal = true
	s.Cols, s.Rows = g.termSize()
	for k := range s.Cases {
		c := &s.Cases[k]
		// Sized again: never narrow, short at 24 rows (Terminals left it out).
		c.Classes = slices.DeleteFunc(c.Classes, func(cl string) bool { return cl == "short" || cl == "narrow" })
		c.Classes = append(c.Classes, "terminal")
		if s.Rows < 25 && g.gen >= Replies {
			c.Classes = append(c.Classes, "short")
		}
		if g.term.Float64() < resizeChance {
			for range 1 + g.term.IntN(3) {
				cols, rows := g.termSize()
				c.Resizes = append(c.Resizes, Resize{Cols: cols, Rows: rows,
					After: time.Duration(g.term.IntN(600)) * time.Millisecond})
			}
			slices.SortFunc(c.Resizes, func(a, b Resize) int { return cmp.Compare(a.After, b.After) })
			c.Classes = append(c.Classes, "resized")
		}
		slices.Sort(c.Classes)
	}
	if g.gen < Replies {
		return
	}
	// Drawn last, so that the sizes and resizes stay Terminals'.
	s.Replies = []Term{Mute, Xterm, Kitty}[g.term.IntN(3)]
	if s.Replies == Kitty {
		for k := range s.Cases {
			s.Cases[k].Classes = append(s.Cases[k].Classes, "kitty-keyboard")
			slices.Sort(s.Cases[k].Classes)
		}
	}
	if g.gen < Person {
		return
	}
	// The person presses Down within 0.3 s of a form's first key: while
	// claudewrap answers it, as its last key goes, while Claude records
	// it or while the next form is decided, as it falls.
	if g.person.Float64() < personChance {
		c := &s.Cases[g.person.IntN(len(s.Cases))]
		c.Person = &Keypress{Keys: "\x1b[B", After: time.Duration(g.person.IntN(300)) * time.Millisecond}
		c.Classes = append(c.Classes, "person")
		if g.gen >= Keys { // drawn last, so that the rest stays Person's
			c.Person.Keys = personKeys[g.person.IntN(len(personKeys))]
			if c.Person.Keys == escKey {
				c.Classes = append(c.Classes, "person-esc")
			}
		}
		slices.Sort(c.Classes)
	}
	if g.gen < Pieces || s.Replies == Mute {
		return
	}
	if g.pieces.Float64() < cutChance {
		s.Cut = true
		for k := range s.Cases {
			s.Cases[k].Classes = append(s.Cases[k].Classes, "replies-cut")
			slices.Sort(s.Cases[k].Classes)
		}
	}
}

// escKey is the Esc key as a terminal sends it with no keyboard protocol.
const escKey = "\x1b"

// personKeys are the keys the person presses from generation Keys: Down,
// Up, Right, Left (none of which commits anything in Claude's menu, so
// that what Claude records is claudewrap's answer or nothing), and Esc,
// twice as likely, which cancels the form or leaves a text row.
var personKeys = []string{"\x1b[B", "\x1b[A", "\x1b[C", "\x1b[D", escKey, escKey}

// termSize is a terminal's size, 60x24 to 200x50, favouring the edges.
func (g *generator) termSize() (int, int) {
	cols := 60 + g.term.IntN(141)
	if g.term.Float64() < 0.3 {
		cols = []int{60, 80, 100, 120, 160, 200}[g.term.IntN(6)]
	}
	rows := 24 + g.term.IntN(27)
	if g.term.Float64() < 0.3 {
		rows = []int{24, 30, 40, 50}[g.term.IntN(4)]
	}
	return cols, rows
}
