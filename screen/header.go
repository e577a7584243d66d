package screen

import (
	"slices"
	"strings"
	"unicode"

	"github.com/claudewrap/claudewrap/vt"
)

// parseTabs reads the tabs of the tab row l, each title up to the next chip.
func parseTabs(l line) []Tab {
	var tabs []Tab
	r := l.runes
	end := len(r)
	for end > 0 && unicode.IsSpace(r[end-1]) {
		end--
	}
	if end > 0 && r[end-1] == tabRight {
		end--
	}
	starts := tabStarts(r)
	for k, i := range starts {
		j := end
		if k+1 < len(starts) {
			j = starts[k+1]
		}
		tabs = append(tabs, Tab{
			Title:    oneSpaced(string(r[i+1 : j])),
			Answered: r[i] == chipAnswered,
			Submit:   r[i] == chipSubmit,
			Active:   l.cells[i].BG != vt.DefaultBG,
		})
	}
	return tabs
}

// tabStarts lists where the tabs of the tab row r begin: at each chip, but
// for one right after a tab's own chip and space, which is its title's
// first character ("☒ ✔ Done"). Tabs on a crowded row may be one space
// apart ("☐ Q1 ☐ A…"), so a chip later in a title is not told from a tab:
// such a row has one tab too many and disagrees with the hook (refused).
func tabStarts(r []rune) []int {
	var starts []int
	for i, c := range r {
		if isChip(c) && !(len(starts) > 0 && starts[len(starts)-1] == i-2 && r[i-1] == ' ') {
			starts = append(starts, i)
		}
	}
	return starts
}

// wrappedTabs reads the rest of the tabs' titles from next, the row under
// the tab row l, when 2.1.197 wrapped them onto it on a narrow screen: each
// tab is a box from the column before its chip to the column before the
// next chip, and a title wraps within its box. It returns each tab's
// continuation ("" for none), in the order of parseTabs. Every character
// of next must fall in a tab's box, and be on the active tab's background
// in the active tab's box and on no such background elsewhere.
func wrappedTabs(l, next line) ([]string, bool) {
	if !isTabRow(l) {
		return nil, false
	}
	var starts []int // each tab's box's first column
	bg := vt.DefaultBG
	active := -1
	for _, i := range tabStarts(l.runes) {
		if l.cells[i].BG != vt.DefaultBG {
			bg, active = l.cells[i].BG, len(starts)
		}
		starts = append(starts, l.x(i)-1)
	}
	if active < 0 {
		return nil, false
	}
	parts := make([]strings.Builder, len(starts))
	found := false
	for i, r := range next.runes {
		if r == ' ' && next.cells[i].BG == vt.DefaultBG {
			continue
		}
		x := next.x(i)
		k := -1
		for j, st := range starts {
			if x >= st {
				k = j
			}
		}
		if k < 0 || (k == active) != (next.cells[i].BG == bg) {
			return nil, false
		}
		parts[k].WriteRune(r)
		found = found || r != ' '
	}
	out := make([]string, len(parts))
	for k := range parts {
		out[k] = strings.TrimSpace(parts[k].String())
	}
	return out, found
}

// isTabTail reports whether l can be the row that wraps tab titles under a
// tab row (see wrappedTabs), found alone at the top of a cut page: indented,
// with the active tab's part on its background colour. A question's own
// rows start at the left edge and have no background.
func isTabTail(l line) bool {
	if len(l.runes) == 0 || l.runes[0] != ' ' || l.cells[0].BG != vt.DefaultBG {
		return false
	}
	for i, r := range l.runes {
		if r != ' ' && l.cells[i].BG != vt.DefaultBG {
			return true
		}
	}
	return false
}

// oneSpaced is s trimmed, with each run of spaces inside it made one: a
// header or tab title as people read it, when it was asked with extra
// spaces or the screen left a blank column after an emoji (see isChipRow). Headers are compared without white
// space (Squash); this is for what people see.
func oneSpaced(s string) string { return strings.Join(strings.Fields(s), " ") }

// parseHeader reads the tab row or header chip at ls[y] into f.
func parseHeader(f *Form, l line) error {
	f.Top = l.y
	if !isTabRow(l) {
		f.Header = oneSpaced(string(l.runes[3:]))
		return nil
	}
	f.Tabs = parseTabs(l)
	active := -1
	for i, t := range f.Tabs {
		if t.Active {
			if active >= 0 {
				return noForm("two active tabs")
			}
			active = i
		}
	}
	if active < 0 {
		return noForm("no active tab")
	}
	if !f.Tabs[active].Submit {
		f.Header = f.Tabs[active].Title
	}
	return nil
}

// stripGutter removes 2.1.330's "│ " in front of a multi-line question.
func stripGutter(t string) string {
	t = strings.TrimSpace(t)
	if rest, ok := strings.CutPrefix(t, string(gutter)); ok {
		return strings.TrimSpace(rest)
	}
	return t
}

// parseTop reads what is above the body that starts at row y: the question
// (between one blank row under the header and one above the body), and the
// header chip or tab row. When row 0 comes first, the form is Cut and the
// question may be partial or missing.
func parseTop(f *Form, ls []line, y int) error {
	if y > 0 && !ls[y-1].blank() {
		return noForm("no blank line above the options at row %d", y)
	}
	var q []string
	for z := y - 1; ; z-- {
		if z < 0 {
			f.Cut, f.Top = true, 0
			if len(q) > 1 && ls[1].blank() && isTabTail(ls[0]) {
				q = q[:len(q)-1] // row 0 is the tab row's second row
			}
			break
		}
		l := ls[z]
		if isTabRow(l) || isChipRow(l) && (z == 0 || isRule(ls[z-1], len(ls[z-1].cells))) {
			var wrap []string
			if z+1 < len(ls) && !ls[z+1].blank() {
				// 2.1.197 on a narrow screen wraps tab titles onto a row
				// of their own under the tab row.
				var ok bool
				if wrap, ok = wrappedTabs(l, ls[z+1]); !ok || z+2 >= y || !ls[z+2].blank() {
					return noForm("no blank line under the header")
				}
				q = q[:len(q)-1] // it was taken for the question's first row
			}
			if err := parseHeader(f, l); err != nil {
				return err
			}
			if wrap != nil {
				for k := range f.Tabs {
					t := &f.Tabs[k]
					t.Title = oneSpaced(t.Title + " " + wrap[k])
					if t.Active && !t.Submit {
						f.Header = t.Title
					}
				}
			}
			break
		}
		if isRule(l, len(l.cells)) {
			return noForm("a rule above the question, with no header")
		}
		if !l.blank() {
			q = append(q, stripGutter(l.text()))
		}
	}
	if len(q) == 0 && !f.Cut {
		return noForm("no question text")
	}
	slices.Reverse(q)
	f.Question = strings.Join(q, " ")
	return nil
}
