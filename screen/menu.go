package screen

import (
	"strconv"
	"strings"
	"unicode"
)

// menu is a dialog's list of options, one of them behind the pointer.
type menu struct {
	options []string
	rows    []int // the screen row of each option's first line
	focus   int
	// top and end are the indices, in the lines it was found in, of its
	// first and last line.
	top, end int
	col      int // the pointer's column
}

// currentMark is drawn before or after the option that holds the current
// value (the theme picker's "❯ ✔ Auto (match terminal)", 2.1.197's "2.
// Dark mode ✔").
const currentMark = "✔ "

// findMenu finds the lowest menu in ls: rows indented alike, one of them
// behind the pointer, the others blank in its column, each option's label
// wrapping onto lines indented to where its text begins. Labels are
// numbered 1, 2, 3… or not at all. Outside a box (anyColumn false) the
// pointer is never in column 0: forms and Claude's input box put it there.
func findMenu(ls []line, anyColumn bool) (menu, bool) {
	focusY, col := -1, 0
	for y := len(ls) - 1; y >= 0 && focusY < 0; y-- {
		r := ls[y].runes
		for x, c := range r {
			if c == ' ' {
				continue
			}
			if c == pointer && (x > 0 || anyColumn) && x+2 < len(r) && r[x+1] == ' ' {
				focusY, col = y, x
			}
			break
		}
	}
	if focusY < 0 {
		return menu{}, false
	}
	// The current value's mark before a label ("❯ ✔ Auto") puts every
	// label two columns further right.
	fr := ls[focusY].runes
	slot := strings.HasPrefix(string(fr[col+2:]), currentMark) ||
		len(fr) > col+4 && fr[col+2] == ' ' && fr[col+3] == ' ' && fr[col+4] != ' '
	// optionAt reads a row of the menu: its label and the column its text
	// begins at, past its number and checkbox.
	optionAt := func(l line) (label string, text int, ok bool) {
		r := l.runes
		if len(r) <= col+2 || !allSpace(r[:col]) || (r[col] != pointer && r[col] != ' ') || r[col+1] != ' ' {
			return "", 0, false
		}
		start := col + 2
		if r[start] == ' ' {
			if !slot || len(r) <= col+4 || r[col+3] != ' ' || r[col+4] == ' ' {
				return "", 0, false
			}
			start = col + 4
		}
		label = strings.TrimSpace(string(r[start:]))
		return label, start + labelIndent(label), true
	}
	indent := func(l line) int {
		first, _ := extent(l)
		return first
	}
	top := focusY
	for top > 0 {
		_, _, opt := optionAt(ls[top-1])
		if !opt && (ls[top-1].blank() || indent(ls[top-1]) < col+3) {
			break
		}
		top--
	}
	for top < focusY {
		if _, _, ok := optionAt(ls[top]); ok {
			break
		}
		top++
	}
	m := menu{focus: -1, top: top, end: top, col: col}
	textCol := 0
	for y := top; y < len(ls); y++ {
		if label, text, ok := optionAt(ls[y]); ok {
			if ls[y].runes[col] == pointer {
				if m.focus >= 0 {
					return menu{}, false // two pointers
				}
				m.focus = len(m.options)
			}
			m.options = append(m.options, label)
			m.rows = append(m.rows, ls[y].y)
			m.end, textCol = y, text
			continue
		}
		if !ls[y].blank() && len(m.options) > 0 && indent(ls[y]) >= max(textCol, col+3) {
			m.options[len(m.options)-1] += " " + strings.TrimSpace(ls[y].text())
			m.end = y
			continue
		}
		break
	}
	if len(m.options) < 2 || m.focus < 0 || !numbering(m.options) {
		return menu{}, false
	}
	for i, o := range m.options {
		// 2.1.227 ticks the chosen row ("… ✔") for a frame before the
		// dialog goes: the same option, not another dialog.
		m.options[i] = strings.TrimPrefix(strings.TrimSuffix(stripNumber(o), " ✔"), currentMark)
	}
	return m, true
}

// labelIndent is how far into a label its text begins: past "N. " (or
// "N." with no space, 2.1.197's wrapped row) and a checkbox ("[✔] ").
func labelIndent(label string) int {
	n := 0
	r := []rune(label)
	if _, ok := number(label); ok {
		i := strings.Index(label, ".")
		n = len([]rune(label[:i])) + 1
		if n < len(r) && r[n] == ' ' {
			n++
		}
	}
	if len(r) >= n+4 && r[n] == '[' && r[n+2] == ']' && r[n+3] == ' ' {
		n += 4
	}
	return n
}

// numbering accepts options that are all numbered 1, 2, 3… ("1. Yes") or
// none of them (2.1.330's trust dialog).
func numbering(opts []string) bool {
	numbered := 0
	for i, o := range opts {
		if n, ok := number(o); ok {
			if n != i+1 {
				return false
			}
			numbered++
		}
	}
	return numbered == 0 || numbered == len(opts)
}

// number reads the "N. " an option starts with. 2.1.197 draws a label
// that wraps with no space after the number ("2.Yes, and don't ask
// again …"), as forms draw their focused row: "N." then a letter.
func number(o string) (int, bool) {
	i := strings.IndexFunc(o, func(r rune) bool { return !unicode.IsDigit(r) })
	if i <= 0 || !strings.HasPrefix(o[i:], ".") {
		return 0, false
	}
	if rest := o[i+1:]; rest == "" || rest[0] != ' ' && !unicode.IsLetter([]rune(rest)[0]) {
		return 0, false
	}
	n, err := strconv.Atoi(o[:i])
	return n, err == nil
}

func stripNumber(o string) string {
	if _, ok := number(o); ok {
		return strings.TrimSpace(o[strings.Index(o, ".")+1:])
	}
	return o
}

func allSpace(r []rune) bool {
	for _, c := range r {
		if c != ' ' {
			return false
		}
	}
	return true
}
