package screen

import (
	"strconv"
	"strings"
)

// pane is the part of the screen a dialog is drawn in, found by its frame:
// the lines under a rule across the screen (how Claude Code draws its
// dialogs), the inside of a box (╭─╮ │ ╰─╯ or ┌─┐ └─┘), or, with no frame,
// a block of text in one margin with nothing but blank lines above it.
type pane struct {
	ls []line // its lines, cut to a box's inside
	// below are the lines under a box's bottom edge: a footer drawn
	// outside the box.
	below []line
	// width is what wrapsInto takes as the screen's width for the pane's
	// text.
	width int
	// ruleY is the row of the rule the pane is drawn under; -1 for none.
	ruleY     int
	boxed     bool
	frameless bool
	// cut says the pane's top is above the screen: its title is not in
	// sight.
	cut bool
	// edgeTitle is text drawn in a box's top edge ("╭─ Title ─╮").
	edgeTitle string
}

// Box-drawing characters of a dialog's frame.
const (
	boxRoundTopLeft     = '╭'
	boxRoundTopRight    = '╮'
	boxRoundBottomLeft  = '╰'
	boxRoundBottomRight = '╯'
	boxTopRight         = '┐'
	boxBottomRight      = '┘'
)

// findBox finds a box at the bottom of the screen: its bottom edge the
// lowest on the screen, with nothing under it but blank lines and a footer
// of key hints, its sides straight up to its top edge or the screen's top.
func findBox(ls []line, bottom int) (pane, bool) {
	for y := bottom; y >= 0 && bottom-y <= footerLines+1; y-- {
		left, right, _, ok := boxEdge(ls[y], boxRoundBottomLeft, boxRoundBottomRight)
		if !ok {
			left, right, _, ok = boxEdge(ls[y], boxBottomLeft, boxBottomRight)
		}
		if !ok {
			continue
		}
		// Its text is one column in from each side: wrapsInto's margin
		// then leaves that text's width.
		p := pane{ruleY: -1, boxed: true, width: right - left + 2}
		p.below = ls[y+1 : bottom+1]
		if !blankLines(p.below) {
			if _, _, from, ok := findFooter(p.below); !ok || !blankLines(p.below[:from]) {
				return pane{}, false
			}
		}
		top := -1
		for z := y - 1; z >= 0; z-- {
			if l, r, title, ok := topEdge(ls[z]); ok && l == left && r == right {
				top, p.edgeTitle = z, title
				break
			}
			if !sideAt(ls[z], left) || !sideAt(ls[z], right) {
				return pane{}, false
			}
		}
		p.cut = top < 0
		for z := top + 1; z < y; z++ {
			p.ls = append(p.ls, ls[z].sub(left+1, right))
		}
		return p, len(p.ls) > 0 || p.edgeTitle != ""
	}
	return pane{}, false
}

// topEdge reads a box's top edge, with any text drawn in it.
func topEdge(l line) (left, right int, title string, ok bool) {
	if left, right, title, ok = boxEdge(l, boxRoundTopLeft, boxRoundTopRight); ok {
		return left, right, title, true
	}
	return boxEdge(l, boxTopLeft, boxTopRight)
}

// boxEdge reads an edge drawn from corner a to corner b with ruleRune
// between them, or text in it: the cell columns of its corners and the
// text. A bottom edge holds no text.
func boxEdge(l line, a, b rune) (left, right int, text string, ok bool) {
	first, last := extent(l)
	if first < 0 || last-first < 3 || l.runes[first] != a || l.runes[last] != b {
		return 0, 0, "", false
	}
	inner := l.runes[first+1 : last]
	if len(inner) == 0 || inner[0] != ruleRune || inner[len(inner)-1] != ruleRune {
		return 0, 0, "", false
	}
	text = strings.TrimSpace(strings.Trim(string(inner), string(ruleRune)))
	if text != "" && (a == boxRoundBottomLeft || a == boxBottomLeft) {
		return 0, 0, "", false
	}
	return l.x(first), l.x(last), text, true
}

// sideAt reports whether l draws a box's side in cell column x.
func sideAt(l line, x int) bool {
	i := l.at(x)
	return i < len(l.runes) && l.x(i) == x && l.runes[i] == boxSide
}

// isFrameLine matches a line that is all rule: a rule, a dashed rule, or a
// box's edge, of any length.
func isFrameLine(l line) bool {
	t := trimSpace(l.runes)
	if len(t) < 3 {
		return false
	}
	for _, r := range t {
		switch r {
		case ruleRune, dashRune, boxRoundTopLeft, boxRoundTopRight, boxRoundBottomLeft, boxRoundBottomRight,
			boxTopLeft, boxTopRight, boxBottomLeft, boxBottomRight:
		default:
			return false
		}
	}
	return true
}

// isMarker matches the line Claude draws where lines of a dialog or a list
// are out of sight: "↑ 4 more lines", "↓ 60 more".
func isMarker(l line) bool {
	t := strings.TrimSpace(l.text())
	rest, ok := strings.CutPrefix(t, string(moreAbove)+" ")
	if !ok {
		rest, ok = strings.CutPrefix(t, string(moreBelow)+" ")
	}
	if !ok {
		return false
	}
	n, tail, _ := strings.Cut(rest, " ")
	if _, err := strconv.Atoi(n); err != nil {
		return false
	}
	word, more, _ := strings.Cut(tail, " ")
	return word == "more" && !strings.Contains(more, " ")
}

func blankLines(ls []line) bool {
	for _, l := range ls {
		if !l.blank() {
			return false
		}
	}
	return true
}

// margin is the cell column l's text begins at.
func margin(l line) int {
	first, _ := extent(l)
	if first < 0 {
		return -1
	}
	return l.x(first)
}

// blockTop is where a dialog drawn with no frame begins, walking up from
// row from of ls: the block of lines in margin m or further right,
// its paragraphs a single blank line apart, that ends at a line further
// left, at two blank lines or at a frame line. Rules and markers inside it
// are passed over. cut says the block reaches the screen's top row.
func blockTop(ls []line, from, m int) (top int, cut bool) {
	top = from
	blanks := 0
	for y := from - 1; y >= 0; y-- {
		l := ls[y]
		switch {
		case l.blank():
			blanks++
			if blanks == 2 {
				return top, false
			}
			continue
		case isMarker(l) || isDashedRule(l):
		case isFrameLine(l) || margin(l) < m:
			return top, false
		}
		blanks = 0
		top = y
	}
	return top, !ls[0].blank()
}

// isDashedRule matches a dashed rule of any length, as Claude draws around
// a tool's detail inside a dialog.
func isDashedRule(l line) bool {
	t := trimSpace(l.runes)
	for _, r := range t {
		if r != dashRune {
			return false
		}
	}
	return len(t) > 0
}
