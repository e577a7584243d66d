package screen

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// What Claude Code draws, in one place. Seen on 2.1.197 and 2.1.330; the
// golden screens in testdata/screens keep these honest.
const (
	pointer         = '❯' // the focused row's marker, in column 0
	nbsp            = '\u00a0'
	quoteBar        = "│ " // 2.1.330 draws a wrapped question behind a bar
	tabLeft         = '←'
	tabRight        = '→'
	chipOpen        = '☐'
	chipAnswered    = '☒'
	chipSubmit      = '✔'
	ruleRune        = '─'
	boxOpen         = "[ ] "
	boxTicked       = "[✔] "
	otherSingle     = "Type something."
	otherMulti      = "Type something"
	chatLabel       = "Chat about this"
	reviewTitle     = "Review your answers"
	reviewQuestion  = "● "
	reviewAnswer    = "→ "
	submitAnswers   = "Submit answers"
	cancelAnswers   = "Cancel"
	footerSelect    = "Enter to select"
	footerCancel    = "Esc to cancel"
	buttonNext      = "Next"
	buttonSubmit    = "Submit"
	minRuleFraction = 2 // a rule spans at least 1/minRuleFraction of the width
)

// line is one screen row without the right halves of wide characters.
type line struct {
	y     int
	runes []rune
	cells []Cell
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

// lines splits s into lines. The runes of all lines share one allocation; a
// line's cells are the snapshot's row itself unless it holds wide characters.
func lines(s Snapshot) []line {
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
			l.cells = make([]Cell, 0, len(l.runes))
			for _, c := range row {
				if c.Char != 0 {
					l.cells = append(l.cells, c)
				}
			}
		}
		out[y] = l
	}
	return out
}

// Recognize finds the AskUserQuestion form on a screen. It recognises the
// whole structure — header, question, numbered rows in sequence, the rule,
// "Chat about this", the footer — so that permission prompts, numbered lists
// in Claude's replies and half-drawn frames are not taken for a form. When
// several candidates appear, the lowest one on the screen wins: that is the
// live one.
func Recognize(s Snapshot) (*Form, error) {
	ls := lines(s)
	var firstErr error
	for y := len(ls) - 1; y >= 0; y-- {
		if !isTabRow(ls[y]) && !isChipRow(ls[y]) {
			continue
		}
		f, err := parseForm(ls, y, s.Cols)
		if err == nil {
			return f, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = noForm("no tab row or header chip")
	}
	return nil, firstErr
}

func isTabRow(l line) bool {
	r := trimSpace(l.runes)
	return len(r) > 2 && r[0] == tabLeft && r[len(r)-1] == tabRight &&
		slices.ContainsFunc(r, func(c rune) bool { return c == chipOpen || c == chipAnswered || c == chipSubmit })
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

// isChipRow matches a single question's header: " ☐ Database".
func isChipRow(l line) bool {
	r := l.runes
	return len(r) > 3 && r[0] == ' ' && (r[1] == chipOpen || r[1] == chipAnswered) && r[2] == ' ' &&
		r[3] != ' ' && !strings.Contains(l.text(), "  ")
}

func isRule(l line, cols int) bool {
	t := trimSpace(l.runes)
	for _, r := range t {
		if r != ruleRune {
			return false
		}
	}
	return len(t) > 0 && len(t)*minRuleFraction >= cols
}

// numbered is a row like "❯ 2. SQLite" or "  3.A wrapped label".
type numbered struct {
	focused bool
	number  int
	label   string
	numFG   Color // colour of the number, which descriptions share
}

func parseNumbered(l line) (numbered, bool) {
	r := l.runes
	if len(r) < 4 || (r[0] != pointer && r[0] != ' ') || r[1] != ' ' {
		return numbered{}, false
	}
	i := 2
	for i < len(r) && unicode.IsDigit(r[i]) {
		i++
	}
	if i == 2 || i >= len(r) || r[i] != '.' {
		return numbered{}, false
	}
	n, err := strconv.Atoi(string(r[2:i]))
	if err != nil {
		return numbered{}, false
	}
	label := strings.TrimSpace(string(r[i+1:]))
	if label == "" {
		return numbered{}, false
	}
	return numbered{focused: r[0] == pointer, number: n, label: label, numFG: l.cells[2].FG}, true
}

// firstFG is the colour of the first non-space character.
func firstFG(l line) (Color, int) {
	for i, r := range l.runes {
		if r != ' ' {
			return l.cells[i].FG, i
		}
	}
	return DefaultFG, -1
}

func parseTabs(l line) []Tab {
	var tabs []Tab
	r := l.runes
	for i := 0; i < len(r); i++ {
		if r[i] != chipOpen && r[i] != chipAnswered && r[i] != chipSubmit {
			continue
		}
		j := i + 1
		for j < len(r) && r[j] != chipOpen && r[j] != chipAnswered && r[j] != chipSubmit && r[j] != tabRight {
			j++
		}
		t := Tab{
			Title:    strings.TrimSpace(string(r[i+1 : j])),
			Answered: r[i] == chipAnswered,
			Submit:   r[i] == chipSubmit,
			Active:   l.cells[i].BG != DefaultBG,
		}
		tabs = append(tabs, t)
		i = j - 1
	}
	return tabs
}

// parseForm parses the form whose first line is ls[top].
func parseForm(ls []line, top, cols int) (*Form, error) {
	f := &Form{Top: top}
	if isTabRow(ls[top]) {
		f.Tabs = parseTabs(ls[top])
		active := -1
		for i, t := range f.Tabs {
			if t.Active {
				if active >= 0 {
					return nil, noForm("two active tabs")
				}
				active = i
			}
		}
		if active < 0 {
			return nil, noForm("no active tab")
		}
		if !f.Tabs[active].Submit {
			f.Header = f.Tabs[active].Title
		}
	} else {
		f.Header = strings.TrimSpace(string(ls[top].runes[3:]))
	}

	y := skipBlank(ls, top+1)
	if y == top+1 {
		return nil, noForm("no blank line under the header")
	}
	var q []string
	for ; y < len(ls) && !ls[y].blank(); y++ {
		q = append(q, strings.TrimSpace(strings.TrimPrefix(ls[y].text(), quoteBar)))
	}
	if len(q) == 0 {
		return nil, noForm("no question text")
	}
	question := strings.Join(q, " ")
	y = skipBlank(ls, y)
	if question == reviewTitle {
		return parseReview(f, ls, y)
	}
	f.Question = question
	return parseQuestion(f, ls, y, cols)
}

func skipBlank(ls []line, y int) int {
	for y < len(ls) && ls[y].blank() {
		y++
	}
	return y
}

// parseQuestion parses the options, the "Type something" row, the button,
// the rule, "Chat about this" and the footer, starting at row y.
func parseQuestion(f *Form, ls []line, y, cols int) (*Form, error) {
	type entry struct {
		numbered
		desc  []string
		extra []string // wrapped label lines
	}
	var rows []*entry
	var button *Button
	for ; y < len(ls) && !isRule(ls[y], cols); y++ {
		l := ls[y]
		if l.blank() {
			return nil, noForm("blank line among the options at row %d", y)
		}
		if n, ok := parseNumbered(l); ok {
			if button != nil {
				return nil, noForm("numbered row after the button at row %d", y)
			}
			rows = append(rows, &entry{numbered: n})
			continue
		}
		if len(rows) == 0 {
			return nil, noForm("row %d is not an option: %q", y, l.text())
		}
		t := strings.TrimSpace(l.text())
		if b := strings.TrimSpace(strings.TrimPrefix(t, string(pointer))); b == buttonNext || b == buttonSubmit {
			button = &Button{Label: b, Focused: l.runes[0] == pointer}
			continue
		}
		if button != nil || l.runes[0] == pointer {
			return nil, noForm("unexpected row %d: %q", y, l.text())
		}
		last := rows[len(rows)-1]
		// A description is drawn in the number's colour; a wrapped label
		// keeps the label's.
		if fg, _ := firstFG(l); fg == last.numFG || len(last.desc) > 0 {
			last.desc = append(last.desc, t)
		} else {
			last.extra = append(last.extra, t)
		}
	}
	if y >= len(ls) {
		return nil, noForm("no rule under the options")
	}
	if len(rows) < 2 {
		return nil, noForm("%d numbered rows above the rule", len(rows))
	}
	for i, r := range rows {
		if r.number != i+1 {
			return nil, noForm("row numbered %d where %d belongs", r.number, i+1)
		}
	}

	// The rule, then "Chat about this", then the footer.
	y++
	chat, ok := parseNumbered(ls[min(y, len(ls)-1)])
	if !ok || chat.label != chatLabel || chat.number != len(rows)+1 {
		return nil, noForm("no %q row under the rule", chatLabel)
	}
	f.Chat = &Row{Number: chat.number, Label: chat.label, Focused: chat.focused}
	// The footer, wrapped over several lines on a narrow screen.
	var footer []string
	for y = skipBlank(ls, y+1); y < len(ls) && !ls[y].blank() && len(footer) < 3; y++ {
		footer = append(footer, strings.TrimSpace(ls[y].text()))
	}
	f.Footer = strings.Join(footer, " ")
	if !strings.HasPrefix(f.Footer, footerSelect) || !strings.HasSuffix(f.Footer, footerCancel) {
		return nil, noForm("no footer")
	}

	f.MultiSelect = strings.HasPrefix(rows[0].label, boxOpen) || strings.HasPrefix(rows[0].label, boxTicked)
	for i, r := range rows {
		label := strings.Join(append([]string{r.label}, r.extra...), " ")
		ticked := false
		if f.MultiSelect {
			switch {
			case strings.HasPrefix(label, boxOpen):
				label = strings.TrimPrefix(label, boxOpen)
			case strings.HasPrefix(label, boxTicked):
				label, ticked = strings.TrimPrefix(label, boxTicked), true
			default:
				return nil, noForm("option %d has no checkbox", r.number)
			}
		}
		if i == len(rows)-1 {
			// The last numbered row is "Type something", placeholder or typed.
			ph := label == otherSingle || label == otherMulti
			f.Other = &Other{Number: r.number, Text: label, Placeholder: ph, Ticked: ticked, Focused: r.focused}
			break
		}
		f.Options = append(f.Options, Option{
			Number:      r.number,
			Label:       label,
			Description: strings.Join(r.desc, " "),
			Ticked:      ticked,
			Focused:     r.focused,
		})
	}
	if f.MultiSelect != (button != nil) {
		return nil, noForm("a multi-select form needs its button, and only it")
	}
	f.Button = button
	f.Focus = questionFocus(f)
	return f, nil
}

func questionFocus(f *Form) Focus {
	var found []Focus
	for i, o := range f.Options {
		if o.Focused {
			found = append(found, Focus{Kind: FocusOption, Index: i})
		}
	}
	if f.Other != nil && f.Other.Focused {
		found = append(found, Focus{Kind: FocusOther})
	}
	if f.Button != nil && f.Button.Focused {
		found = append(found, Focus{Kind: FocusButton})
	}
	if f.Chat != nil && f.Chat.Focused {
		found = append(found, Focus{Kind: FocusChat})
	}
	if len(found) != 1 {
		return Focus{}
	}
	return found[0]
}

// parseReview parses the review page from the first answer at row y.
func parseReview(f *Form, ls []line, y int) (*Form, error) {
	rv := &Review{}
rows:
	for ; y < len(ls); y++ {
		t := strings.TrimSpace(ls[y].text())
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, reviewQuestion):
			rv.Answers = append(rv.Answers, ReviewAnswer{Question: strings.TrimPrefix(t, reviewQuestion)})
			continue
		case strings.HasPrefix(t, reviewAnswer) && len(rv.Answers) > 0:
			a := &rv.Answers[len(rv.Answers)-1]
			a.Answer = join(a.Answer, strings.TrimPrefix(t, reviewAnswer))
			continue
		}
		if n, ok := parseNumbered(ls[y]); ok {
			switch {
			case n.label == submitAnswers && n.number == 1:
				rv.Submit = Row{Number: n.number, Label: n.label, Focused: n.focused}
			case n.label == cancelAnswers && n.number == 2:
				rv.Cancel = Row{Number: n.number, Label: n.label, Focused: n.focused}
			default:
				return nil, noForm("unexpected row on the review page: %q", t)
			}
			if rv.Cancel.Number != 0 {
				break rows
			}
			continue
		}
		if rv.Submit.Number != 0 {
			return nil, noForm("unexpected row on the review page: %q", t)
		}
		// Indented: wrapped question or answer text. In column 0: a line
		// such as "Ready to submit your answers?" above the choices.
		if len(rv.Answers) > 0 && ls[y].runes[0] == ' ' {
			a := &rv.Answers[len(rv.Answers)-1]
			if a.Answer == "" {
				a.Question = join(a.Question, t)
			} else {
				a.Answer = join(a.Answer, t)
			}
		}
	}
	if rv.Submit.Number == 0 || rv.Cancel.Number == 0 {
		return nil, noForm("review page without %q and %q", submitAnswers, cancelAnswers)
	}
	f.Review = rv
	switch {
	case rv.Submit.Focused && !rv.Cancel.Focused:
		f.Focus = Focus{Kind: FocusSubmit}
	case rv.Cancel.Focused && !rv.Submit.Focused:
		f.Focus = Focus{Kind: FocusCancel}
	}
	return f, nil
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}
