package screen

import (
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

// inList reports whether the blank row y lies inside an option list
// rather than between the question and the list: the row above it is drawn
// indented (an option's row, description or wrapped label; the question
// starts in column 0), and is not the header chip.
func inList(ls []line, y int) bool {
	if y == 0 {
		return false
	}
	above := ls[y-1]
	if above.blank() || isChipRow(above) {
		return false
	}
	switch above.runes[0] {
	case ' ', pointer, moreAbove, moreBelow:
		return true
	}
	return false
}

// dimLabel reports whether a numbered-looking row is drawn all in the dim
// colour, as a description such as "2. Not an option" is: a real option's
// label is not dim, but for the "Type something" placeholder.
func dimLabel(l line, n numbered, dim vt.Color) bool {
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(n.label, boxOpen), boxTicked))
	if t == otherSingle || t == otherMulti {
		return false
	}
	for i := 2; i < len(l.runes); i++ {
		if l.runes[i] == '.' {
			for _, c := range l.cells[i+1:] {
				if c.Char != ' ' && c.Char != 0 {
					return c.FG == dim
				}
			}
			return false
		}
	}
	return false
}

// entry is one numbered row with the rows that continue it.
type entry struct {
	numbered
	extra []string // wrapped label lines
	desc  []string
}

// joinSplitBox mends 2.1.227's checkbox split by a wrapping label: the
// row reads "[  Long label" and the next "]  rest of it" (or "[✔" and "]").
func (e *entry) joinSplitBox() {
	if len(e.extra) == 0 || !strings.HasPrefix(e.extra[0], "]") {
		return
	}
	for _, open := range []string{"[ ", "[✔"} {
		if rest, ok := strings.CutPrefix(e.label, open); ok && !strings.HasPrefix(rest, "] ") {
			box := strings.TrimSpace(open) + "]"
			if box == "[]" {
				box = "[ ]"
			}
			e.label = box + " " + strings.TrimSpace(rest)
			if t := strings.TrimSpace(strings.TrimPrefix(e.extra[0], "]")); t != "" {
				e.extra[0] = t
			} else {
				e.extra = e.extra[1:]
			}
			return
		}
	}
}

// isButton matches the multi-select button: "     Next", "❯    Submit".
func isButton(l line) (Button, bool) {
	r := l.runes
	if len(r) < 5 || (r[0] != pointer && r[0] != ' ') {
		return Button{}, false
	}
	t := strings.TrimSpace(string(r[1:]))
	if (t != buttonNext && t != buttonSub) || strings.TrimSpace(string(r[1:5])) != "" {
		return Button{}, false
	}
	return Button{Label: t, Focused: r[0] == pointer}, true
}

// parseListBody reads the option list of a single- or multi-select question
// above the rule at row rule: the rows up to a blank one (or the top of the
// screen), then what is above them.
func parseListBody(f *Form, ls []line, rule int, dim vt.Color) error {
	ob := rule
	for ob > 0 && (!ls[ob-1].blank() || inList(ls, ob-1)) {
		ob--
	}
	var rows []*entry
	var button *Button
	for y := ob; y < rule; y++ {
		l := ls[y]
		if l.blank() {
			continue // 2.1.197 leaves a blank row under a wrapped label
		}
		if n, ok := parseNumbered(l); ok && !dimLabel(l, n, dim) {
			if button != nil {
				return noForm("numbered row after the button at row %d", y)
			}
			rows = append(rows, &entry{numbered: n})
			continue
		}
		if len(rows) == 0 {
			if ob == 0 {
				continue // the rest of an option whose first line is off the screen
			}
			return noForm("row %d is not an option: %q", y, l.text())
		}
		last := rows[len(rows)-1]
		if b, ok := isButton(l); ok && firstFG(l) != last.numFG {
			if button != nil {
				return noForm("two buttons")
			}
			button = &b
			continue
		}
		if button != nil || l.runes[0] != ' ' {
			return noForm("unexpected row %d: %q", y, l.text())
		}
		t := strings.TrimSpace(l.text())
		// A description is drawn in the number's colour; a wrapped label
		// keeps the label's.
		if firstFG(l) == last.numFG || len(last.desc) > 0 {
			last.desc = append(last.desc, t)
		} else {
			last.extra = append(last.extra, t)
		}
	}
	if len(rows) == 0 {
		return noForm("no options above the rule")
	}
	if f.Chat.Number == 0 {
		return noForm("%q is not numbered", chatLabel)
	}
	// Numbers run on, and "Type something" is the one before the chat row.
	other := f.Chat.Number - 1
	for i, r := range rows {
		if i > 0 && r.number != rows[i-1].number+1 {
			return noForm("row numbered %d after %d", r.number, rows[i-1].number)
		}
		if r.number > other {
			return noForm("row numbered %d below %q", r.number, "Type something")
		}
		switch {
		case r.mark == moreAbove && i == 0:
			f.MoreAbove = true
		case r.mark == moreBelow && i == len(rows)-1:
			f.MoreBelow = true
		case r.mark == moreAbove || r.mark == moreBelow:
			return noForm("a scroll mark on row %d", r.number)
		}
	}
	// A scrolled list marks hidden rows with ↑ or ↓ in column 0, unless
	// the pointer takes that column.
	if first := rows[0]; first.number > 1 && !f.MoreAbove && ob > 0 {
		if !first.focused() {
			return noForm("the list starts at %d with nothing above", first.number)
		}
		f.MoreAbove = true
	}
	if last := rows[len(rows)-1]; last.number < other && !f.MoreBelow {
		if !last.focused() {
			return noForm("the list ends at %d, %q is %d", last.number, "Type something", other)
		}
		f.MoreBelow = true
	}
	f.Button = button
	f.MultiSelect = button != nil
	if !f.MultiSelect {
		// The button may be off the screen; a boxed "Type something" still
		// tells a multi-select question.
		if last := rows[len(rows)-1]; last.number == other &&
			(strings.HasPrefix(last.label, boxOpen) || strings.HasPrefix(last.label, boxTicked)) &&
			strings.HasSuffix(last.label, otherMulti) {
			f.MultiSelect = true
		}
	}
	for _, r := range rows {
		if f.MultiSelect {
			r.joinSplitBox()
		}
		label := strings.Join(append([]string{r.label}, r.extra...), " ")
		ticked := false
		if f.MultiSelect {
			switch {
			case strings.HasPrefix(label, boxOpen):
				label = strings.TrimPrefix(label, boxOpen)
			case strings.HasPrefix(label, boxTicked):
				label, ticked = strings.TrimPrefix(label, boxTicked), true
			default:
				return noForm("option %d has no checkbox", r.number)
			}
		}
		if r.number == other {
			text := strings.Join(append([]string{label}, r.desc...), " ")
			f.Other = &Other{Number: r.number, Text: text, Placeholder: text == otherSingle || text == otherMulti,
				Ticked: ticked, Focused: r.focused()}
			continue
		}
		f.Options = append(f.Options, Option{
			Number:      r.number,
			Label:       label,
			Description: strings.Join(r.desc, " "),
			Ticked:      ticked,
			Focused:     r.focused(),
		})
	}
	if button != nil && f.Other == nil && !f.MoreBelow {
		return noForm("a button with no %q row", "Type something")
	}
	if ob == 0 {
		f.Cut, f.Top = true, 0
		return nil
	}
	return parseTop(f, ls, ob)
}
