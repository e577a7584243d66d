package screen

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

// parsePreviewBody reads the preview layout above the rule at row rule:
// from the bottom, the notes, the preview box, and the options to the left
// of the box.
func parsePreviewBody(f *Form, ls []line, rule int, dim vt.Color) error {
	// The box's bottom border is the lowest "└───┘" above the rule; what a
	// preview holds is drawn inside the box, above it.
	bottom, bx := -1, -1
	for y := rule - 1; y >= 0 && bottom < 0; y-- {
		r := ls[y].runes
		for i, c := range r {
			if c == boxBottomLeft && isBorder(r[i+1:]) {
				bottom, bx = y, ls[y].x(i)
				break
			}
		}
	}
	if bottom < 0 {
		return noForm("no preview box")
	}
	if bx < previewMinLeft {
		return noForm("the preview box leaves no room for options")
	}
	boxTop := -1
	var box []string
	for y := bottom - 1; y >= 0; y-- {
		l := ls[y]
		if l.blank() {
			continue // 2.1.197 leaves a blank row under a wrapped label, across the box too
		}
		i := l.at(bx)
		if i >= len(l.runes) || l.x(i) != bx {
			return noForm("the preview box is broken at row %d", y)
		}
		c := l.runes[i]
		if c == boxTopLeft {
			boxTop = y
			break
		}
		if c != boxSide && c != boxCut {
			// A narrow box wraps its "├─── ✂ ─── N lines hidden ┤" line; a
			// tab in a preview (2.1.227 prints it raw) pushes the right side
			// onto a row of its own.
			rest := strings.TrimSpace(string(l.runes[i:]))
			if strings.HasSuffix(rest, "┤") || c == ' ' && (rest == "" || rest == string(boxSide)) {
				continue
			}
			return noForm("the preview box is broken at row %d", y)
		}
		inner := strings.TrimSpace(string(l.runes[i+1:]))
		inner = strings.TrimSpace(strings.TrimSuffix(inner, string(boxSide)))
		box = append(box, inner)
	}
	if boxTop < 0 {
		// The box runs off the top of the screen: the form is taller than
		// the terminal (open notes take room), and so are its first options.
		boxTop, f.Cut = 0, true
	}
	slices.Reverse(box)
	p := &Preview{Box: box}
	f.Preview = p

	// The options: left of the box, from its top down, as many rows as
	// they take (more than the box when its preview is short).
	items, end, err := previewOptions(ls, boxTop, rule, bx, dim, f.Cut)
	if err != nil {
		return err
	}
	f.Options = items

	// The notes: under the box, at its left edge. "Notes:" is drawn in a
	// colour of its own, and on a narrow screen 2.1.197 breaks it ("Notes"
	// on one line, ":" on the next) and wraps the text beside it: the text
	// is what is not in the label's colour.
	var notes []string
	var label vt.Color
	var labelText strings.Builder
	found := false
	for y := bottom + 1; y < rule; y++ {
		if left := ls[y].sub(0, bx); y > end && !left.blank() {
			return noForm("unexpected row %d left of the notes: %q", y, left.text())
		}
		right := ls[y].sub(bx, math.MaxInt)
		if !found {
			i := slices.IndexFunc(right.runes, func(r rune) bool { return r != ' ' })
			if i < 0 {
				continue
			}
			found, label = true, right.cells[i].FG
		}
		var b strings.Builder
		for i, r := range right.runes {
			if right.cells[i].FG == label {
				labelText.WriteRune(r)
			} else {
				b.WriteRune(r)
			}
		}
		if t := strings.TrimSpace(b.String()); t != "" {
			notes = append(notes, t)
		}
	}
	if l := Squash(labelText.String()); !found || (l != notesLabel && l != notesLabel+":") {
		return noForm("no %q under the preview", notesLabel)
	}
	n := strings.Join(notes, " ")
	switch {
	case isText(n, notesHint):
	case isText(n, notesPrompt):
		p.Editing = true
	default:
		p.Notes = n
		p.Editing = strings.Contains(f.Footer, footerEditor)
	}
	if f.Chat.Number != 0 {
		return noForm("%q is numbered in the preview layout", chatLabel)
	}
	return parseTop(f, ls, boxTop)
}

// isText reports whether s is want, or want cut short with "…".
func isText(s, want string) bool {
	if s == want {
		return true
	}
	p, ok := strings.CutSuffix(s, "…")
	return ok && p != "" && strings.HasPrefix(want, p)
}

// previewOptions reads the options left of the preview box (columns
// before bx), from row top until a blank row or the rule. Each option is a
// row of three boxes: the pointer (or a space), the number " N." in the
// dim colour, and the label, which wraps. On a narrow screen Claude
// squeezes the first two: the pointer may vanish (2.1.197) and the number
// may wrap onto the option's second line (2.1.330). So an option is found
// by the dim space that starts its number box, its number is read from
// the dim characters of its first two lines, and its focus from the
// pointer or its label drawn bold.
func previewOptions(ls []line, top, rule, bx int, dim vt.Color, cut bool) ([]Option, int, error) {
	type item struct {
		number  string
		label   []string
		pointer bool
		bold    bool
		lines   int
	}
	var items []*item
	end := top
	for y := top; y < rule; y++ {
		left := ls[y].sub(0, bx)
		if left.blank() {
			if dimLead(left, dim) {
				// A label too long to share its first row (an unbroken
				// word): the number's box, squeezed, wraps too, its dim
				// space alone on this row, "N." on the next, where the
				// label begins.
				items = append(items, &item{lines: 1})
				end = y
			}
			continue // 2.1.197 leaves a blank row under a wrapped label
		}
		end = y
		start, labelAt := false, -1
		var num []rune
		for i, r := range left.runes {
			c := left.cells[i]
			switch {
			case labelAt >= 0:
			case r == pointer && left.x(i) < 2:
				continue
			case c.FG == dim && left.x(i) < 5:
				if r == ' ' && len(num) == 0 {
					start = true
				} else if r != ' ' {
					num = append(num, r)
				}
				continue
			case r == ' ':
				continue
			default:
				labelAt = i
			}
		}
		if !start && len(items) == 0 {
			if cut {
				continue // the rest of an option whose first line is off the screen
			}
			return nil, 0, noForm("row %d is not an option: %q", y, left.text())
		}
		if start {
			items = append(items, &item{})
		}
		it := items[len(items)-1]
		it.lines++
		if it.lines <= 2 {
			it.number += string(num)
		}
		if left.runes[0] == pointer || (len(left.runes) > 1 && left.runes[1] == pointer && left.x(1) < 2) {
			it.pointer = true
		}
		if labelAt >= 0 {
			t := strings.TrimSpace(string(left.runes[labelAt:]))
			it.label = append(it.label, t)
			if left.cells[labelAt].Attr&vt.Bold != 0 {
				it.bold = true
			}
		}
	}
	if len(items) < 2 && !cut || len(items) == 0 {
		return nil, 0, noForm("%d options beside the preview", len(items))
	}
	first := 1
	if cut {
		// Numbers run on from the first visible one.
		n, err := strconv.Atoi(strings.TrimSuffix(items[0].number, "."))
		if err != nil || n < 1 {
			return nil, 0, noForm("the first visible option is numbered %q", items[0].number)
		}
		first = n
	}
	var out []Option
	for k, it := range items {
		i := first - 1 + k
		if it.number != strconv.Itoa(i+1)+"." {
			return nil, 0, noForm("option %d is numbered %q beside the preview", i+1, it.number)
		}
		label := strings.Join(it.label, " ")
		chosen := false
		if l, ok := strings.CutSuffix(label, previewChosen); ok {
			label, chosen = l, true
		}
		out = append(out, Option{Number: i + 1, Label: label, Ticked: chosen, Focused: it.pointer || it.bold})
	}
	return out, end, nil
}

// dimLead reports whether l, blank, holds the dim space that begins an
// option's number box (" N.") within its first columns.
func dimLead(l line, dim vt.Color) bool {
	for i, r := range l.runes {
		if l.x(i) >= 5 {
			break
		}
		if r == ' ' && l.cells[i].FG == dim {
			return true
		}
	}
	return false
}

// isBorder matches the rest of a box's bottom border: "───┘".
func isBorder(r []rune) bool {
	r = trimSpace(r)
	if len(r) < 2 || r[len(r)-1] != '┘' {
		return false
	}
	for _, c := range r[:len(r)-1] {
		if c != ruleRune {
			return false
		}
	}
	return true
}
