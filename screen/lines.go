package screen

import (
	"slices"
	"unicode"

	"github.com/claudewrap/claudewrap/vt"
)

// line is one screen row without the right halves of wide characters.
type line struct {
	y     int
	runes []rune
	cells []vt.Cell
	xs    []int // the cell column of each rune; nil when it is the rune's index
}

func (l line) text() string {
	r := l.runes
	for len(r) > 0 && r[len(r)-1] == ' ' {
		r = r[:len(r)-1]
	}
	return string(r)
}

func (l line) blank() bool {
	for _, r := range l.runes {
		if r != ' ' {
			return false
		}
	}
	return true
}

// x is the cell column of rune i.
func (l line) x(i int) int {
	if l.xs == nil {
		return i
	}
	return l.xs[i]
}

// at is the index of the first rune at or right of cell column x.
func (l line) at(x int) int {
	if l.xs == nil {
		return min(x, len(l.runes))
	}
	i, _ := slices.BinarySearch(l.xs, x)
	return i
}

// sub is the line cut to the runes in cell columns [from, to).
func (l line) sub(from, to int) line {
	i, j := l.at(from), l.at(to)
	out := line{y: l.y, runes: l.runes[i:j], cells: l.cells[i:j]}
	if l.xs != nil {
		out.xs = make([]int, j-i)
		for k := range out.xs {
			out.xs[k] = l.xs[i+k] - from
		}
	} else if from > 0 {
		out.xs = make([]int, j-i)
		for k := range out.xs {
			out.xs[k] = i + k - from
		}
	}
	return out
}

// lines splits s into lines. The runes of all lines share one allocation; a
// line's cells are the snapshot's row itself unless it holds wide characters.
func lines(s vt.Snapshot) []line {
	out := make([]line, len(s.Cells))
	total := 0
	for _, row := range s.Cells {
		total += len(row)
	}
	runes := make([]rune, 0, total)
	for y, row := range s.Cells {
		start, halves := len(runes), false
		for _, c := range row {
			if c.Char == 0 {
				halves = true
				continue
			}
			runes = append(runes, c.Char)
		}
		l := line{y: y, runes: runes[start:len(runes):len(runes)], cells: row}
		if halves {
			l.cells = make([]vt.Cell, 0, len(l.runes))
			l.xs = make([]int, 0, len(l.runes))
			for x, c := range row {
				if c.Char != 0 {
					l.cells = append(l.cells, c)
					l.xs = append(l.xs, x)
				}
			}
		}
		out[y] = l
	}
	return out
}

// trimSpace is strings.TrimSpace for runes.
func trimSpace(r []rune) []rune {
	for len(r) > 0 && unicode.IsSpace(r[0]) {
		r = r[1:]
	}
	for len(r) > 0 && unicode.IsSpace(r[len(r)-1]) {
		r = r[:len(r)-1]
	}
	return r
}

// end is the cell column after the line's last character other than space.
func (l line) end() int {
	for i := len(l.runes) - 1; i >= 0; i-- {
		if l.runes[i] != ' ' {
			return l.x(i) + max(1, vt.RuneWidth(l.runes[i]))
		}
	}
	return 0
}
