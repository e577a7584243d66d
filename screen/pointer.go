package screen

import "github.com/claudewrap/claudewrap/vt"

// SameBesidePointer reports whether a and b hold the same characters but
// for what Claude's fullscreen renderer draws after the person's pointer
// (2.1.299 and later; recordings fullscreen-hover): the row under it shaded
// (colours are not compared), the eyes of the logo beside the banner
// ("Claude Code v…") following it, and the cursor left where that frame
// parks it. None of it says anything about Claude working. The logo is the
// cells left of "Claude Code" on the banner's row, the row above it and
// the two below.
func SameBesidePointer(a, b vt.Snapshot) bool {
	if a.Cols != b.Cols || a.Rows != b.Rows || a.CursorVisible != b.CursorVisible ||
		a.AltScreen != b.AltScreen || len(a.Cells) != len(b.Cells) {
		return false
	}
	row, col := logoAt(a)
	if r, c := logoAt(b); r != row || c != col {
		return false
	}
	for y := range a.Cells {
		ra, rb := a.Cells[y], b.Cells[y]
		if len(ra) != len(rb) {
			return false
		}
		from := 0
		if row >= 0 && y >= row-1 && y <= row+2 {
			from = col
		}
		for x := from; x < len(ra); x++ {
			if ra[x].Char != rb[x].Char {
				return false
			}
		}
	}
	return true
}

// logoAt returns the row of Claude's banner and the column its
// "Claude Code" begins at, past a logo; -1, 0 when no row holds one.
func logoAt(s vt.Snapshot) (row, col int) {
	for y, r := range s.Cells {
		for x := 1; x < len(r); x++ {
			if r[x].Char == 'C' && rowHas(r[x:], "Claude Code v") {
				return y, x
			}
		}
	}
	return -1, 0
}
