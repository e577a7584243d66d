package screen

import (
	"math"
	"slices"
	"strconv"
	"strings"
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

// Recognize finds the AskUserQuestion form on a screen. The form is the
// lowest thing Claude draws, so it is read from the bottom up: the footer,
// "Chat about this" under a rule, the options, then as much of the question,
// header and tab row as the screen still shows; or the review page's
// "Submit answers" and "Cancel" and the answers above them. The whole
// structure must be there, so that permission prompts, numbered lists in
// Claude's replies and half-drawn frames are not taken for a form.
func Recognize(s vt.Snapshot) (*Form, error) {
	ls := lines(s)
	bottom := len(ls) - 1
	for bottom >= 0 && ls[bottom].blank() {
		bottom--
	}
	if bottom < 0 {
		return nil, noForm("the screen is blank")
	}
	f, err := parseQuestionPage(ls, bottom, s.Cols)
	if err == nil {
		f.MarksJoin = s.MarksJoin
		return f, nil
	}
	if r, rerr := parseReviewPage(ls, bottom, s.Cols); rerr == nil {
		r.MarksJoin = s.MarksJoin
		if n, ok := parseVersion(s.Version); ok {
			r.Review.Silent = before(n, [3]int{2, 1, 266})
		}
		return r, nil
	} else if SessionsView(s) {
		return nil, noForm("Claude's sessions view: its conversation moved to the background, where a form waits in the list")
	} else if !strings.Contains(err.Error(), "no footer") {
		return nil, err
	} else {
		return nil, rerr
	}
}

func isTabRow(l line) bool {
	r := trimSpace(l.runes)
	return len(r) > 2 && r[0] == tabLeft && r[len(r)-1] == tabRight &&
		slices.ContainsFunc(r, isChip)
}

// isChip matches the mark a tab starts with: open, answered or Submit.
func isChip(r rune) bool { return r == chipOpen || r == chipAnswered || r == chipSubmit }

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

// isChipRow matches a single question's header: " ☐ Database". The header
// is any text: it may keep white space in front (" ☐  Space", 2.1.227 and
// older), hold two spaces in a row ("Two  words"; and 2.1.227 and older
// leave a blank column after an emoji of a text character and VS16, which
// they give two columns and the emulator one: "☐ ⚠  Risk"), or be a JSON
// string (2.1.266 on). parseTop takes it for the header only under a rule
// or at the top of the screen.
func isChipRow(l line) bool {
	r := l.runes
	return len(r) > 3 && r[0] == ' ' && (r[1] == chipOpen || r[1] == chipAnswered) && r[2] == ' ' &&
		len(trimSpace(r[3:])) > 0
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

// isMoreLines matches 2.1.330's " ↑ 3 more lines" under "Chat about this":
// the form's top is off the screen.
func isMoreLines(l line) bool {
	t := strings.TrimSpace(l.text())
	rest, ok := strings.CutPrefix(t, moreLinesPrefix)
	if !ok {
		return false
	}
	n, tail, ok := strings.Cut(rest, " ")
	_, err := strconv.Atoi(n)
	return ok && err == nil && strings.HasPrefix(" "+tail, moreLinesSuffix)
}

// numbered is a row like "❯ 2. SQLite", "↓ 4. Redis" or "  3.A wrapped label".
type numbered struct {
	mark   rune // column 0: ' ', pointer, moreAbove or moreBelow
	number int
	label  string
	numFG  vt.Color // colour of the number, which descriptions share
}

func (n numbered) focused() bool { return n.mark == pointer }

func parseNumbered(l line) (numbered, bool) {
	r := l.runes
	if len(r) < 4 || (r[0] != pointer && r[0] != ' ' && r[0] != moreAbove && r[0] != moreBelow) || r[1] != ' ' {
		return numbered{}, false
	}
	i := 2
	for i < len(r) && i < 5 && r[i] >= '0' && r[i] <= '9' {
		i++
	}
	if i == 2 || i >= len(r) || r[i] != '.' {
		return numbered{}, false
	}
	n, err := strconv.Atoi(string(r[2:i]))
	if err != nil || n == 0 {
		return numbered{}, false
	}
	label := strings.TrimSpace(string(r[i+1:]))
	if label == "" {
		return numbered{}, false
	}
	return numbered{mark: r[0], number: n, label: label, numFG: l.cells[2].FG}, true
}

// firstFG is the colour of the first non-space character.
func firstFG(l line) vt.Color {
	for i, r := range l.runes {
		if r != ' ' {
			return l.cells[i].FG
		}
	}
	return vt.DefaultFG
}

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

// parseQuestionPage reads a question page whose footer ends at row bottom.
func parseQuestionPage(ls []line, bottom, cols int) (*Form, error) {
	f := &Form{}
	top := bottom
	for top > 0 && !ls[top-1].blank() && bottom-top < 3 && !isRule(ls[top-1], cols) && !isChat(ls[top-1]) && !isMoreLines(ls[top-1]) {
		top--
	}
	var footer []string
	for y := top; y <= bottom; y++ {
		footer = append(footer, strings.TrimSpace(ls[y].text()))
	}
	f.Footer = strings.Join(footer, " ")
	body, insert := strings.CutPrefix(f.Footer, footerInsert)
	if !strings.HasPrefix(body, footerSelect) || !strings.HasSuffix(body, footerCancel) && !(insert && strings.HasSuffix(body, footerEditor)) {
		return nil, noForm("no footer")
	}
	f.Insert = insert
	y := top - 1
	if y >= 0 && isMoreLines(ls[y]) {
		y-- // lines are hidden above; parseTop finds out whether the header is
	}
	for y >= 0 && ls[y].blank() {
		y--
	}
	if y < 1 {
		return nil, noForm("nothing above the footer")
	}
	chat, ok := parseChat(ls[y])
	if !ok {
		return nil, noForm("no %q row above the footer", chatLabel)
	}
	f.Chat = &chat
	if y--; !isRule(ls[y], cols) {
		return nil, noForm("no rule above %q", chatLabel)
	}
	// Numbers, descriptions and placeholders are drawn in the footer's
	// dim colour.
	dim := firstFG(ls[bottom])
	var err error
	if strings.Contains(f.Footer, footerNotes) {
		err = parsePreviewBody(f, ls, y, dim)
	} else {
		err = parseListBody(f, ls, y, dim)
	}
	if err != nil {
		return nil, err
	}
	f.Focus = questionFocus(f)
	if f.Insert && f.Focus.Kind != FocusOther {
		// Insert mode is "Type something"'s: with the focus seen
		// elsewhere, the page is read in passing (nothing to press on).
		f.Focus = Focus{}
	}
	return f, nil
}

func isChat(l line) bool {
	_, ok := parseChat(l)
	return ok
}

// parseChat reads "  5. Chat about this", or "  Chat about this" in the
// preview layout, either with the pointer.
func parseChat(l line) (Row, bool) {
	if n, ok := parseNumbered(l); ok && n.label == chatLabel && n.mark != moreAbove && n.mark != moreBelow {
		return Row{Number: n.number, Label: chatLabel, Focused: n.focused()}, true
	}
	r := l.runes
	if len(r) > 2 && (r[0] == pointer || r[0] == ' ') && r[1] == ' ' && strings.TrimSpace(string(r[2:])) == chatLabel {
		return Row{Label: chatLabel, Focused: r[0] == pointer}, true
	}
	return Row{}, false
}

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
				// label begins (random forms run 72, s000).
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

func questionFocus(f *Form) Focus {
	// While "Chat about this" has the focus, the preview layout keeps the
	// pointer on the last option, and 2.1.197 on the multi-select button;
	// the chat row loses its pointer as soon as the focus leaves it.
	if f.Chat.Focused {
		return Focus{Kind: FocusChat}
	}
	var found []Focus
	for _, o := range f.Options {
		if o.Focused {
			found = append(found, Focus{Kind: FocusOption, Index: o.Number - 1})
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

// parseReviewPage reads the review page whose "Cancel" row is at row
// bottom, or above 2.1.330's " ↑ 1 more line" there.
func parseReviewPage(ls []line, bottom, cols int) (*Form, error) {
	if isMoreLines(ls[bottom]) {
		for bottom--; bottom > 0 && ls[bottom].blank(); bottom-- {
		}
	}
	cancel, ok := parseNumbered(ls[bottom])
	if !ok || cancel.label != cancelAnswers || bottom < 1 {
		return nil, noForm("no question footer (%q … %q) and no review page (%q) at the bottom", footerSelect, footerCancel, cancelAnswers)
	}
	submit, ok := parseNumbered(ls[bottom-1])
	if !ok || submit.label != submitAnswers || submit.number != 1 || cancel.number != 2 {
		return nil, noForm("no %q above %q", submitAnswers, cancelAnswers)
	}
	f := &Form{}
	rv := &Review{
		Submit: Row{Number: 1, Label: submitAnswers, Focused: submit.focused()},
		Cancel: Row{Number: 2, Label: cancelAnswers, Focused: cancel.focused()},
	}
	// Up to the title (and the tab row over it), or the top of the screen.
	y := bottom - 2
	for ; y >= 0; y-- {
		if strings.TrimSpace(ls[y].text()) == reviewTitle {
			break
		}
		if isRule(ls[y], cols) || isTabRow(ls[y]) {
			return nil, noForm("no %q above the answers", reviewTitle)
		}
	}
	if y < 0 {
		f.Cut = true
	} else {
		z := y - 1
		for z >= 0 && ls[z].blank() {
			z--
		}
		if z >= 0 && isTabRow(ls[z]) {
			if err := parseHeader(f, ls[z]); err != nil {
				return nil, err
			}
		} else {
			f.Top = y
		}
	}
	// answering: the entry's arrow has come, and the rows after it are its
	// answer's.
	var started, answering bool
	for z := y + 1; z < bottom-1; z++ {
		raw := ls[z].text()
		t := stripGutter(raw)
		full := ls[z].end() >= cols-fullRow
		switch {
		case t == "" || isMoreLines(ls[z]):
			continue
		case strings.HasPrefix(t, reviewWarning):
			rv.Incomplete = true
			continue
		case strings.HasPrefix(t, reviewQuestion):
			rv.Answers = append(rv.Answers, ReviewAnswer{})
			addRow(&rv.Answers[len(rv.Answers)-1].Question, strings.TrimPrefix(t, reviewQuestion), full)
			started, answering = true, false
			continue
		case strings.HasPrefix(t, reviewAnswer) && len(rv.Answers) > 0:
			addRow(&rv.Answers[len(rv.Answers)-1].Answer, strings.TrimPrefix(t, reviewAnswer), full)
			answering = true
			continue
		case t == reviewArrow && len(rv.Answers) > 0:
			// The arrow alone: the answer's first word did not fit
			// after it and begins the next row (random forms run 81,
			// s017: a 69-letter identifier at 73 columns).
			answering = true
			continue
		}
		if !started {
			continue // the end of an entry whose start is off the screen
		}
		if !strings.HasPrefix(raw, " ") {
			// In column 0: "Ready to submit your answers?" and the like.
			started = false
			continue
		}
		a := &rv.Answers[len(rv.Answers)-1]
		if !answering {
			addRow(&a.Question, t, full)
		} else {
			addRow(&a.Answer, t, full)
		}
	}
	if len(rv.Answers) == 0 && !f.Cut {
		return nil, noForm("a review page with no answers")
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

// fullRow: a review page's row ending this close to the screen's right
// edge may have lost text at its end (see SameWrapped). Claude wraps a row
// a column short of the edge: "…" in place of what did not fit ended in
// the column before the last, and the row without an emoji that did not
// (a space where it began) three columns short (random forms runs 73, 75).
const fullRow = 3

// addRow adds a row to a review entry's question or answer, after a space,
// and ends a row that reached the right edge (full) with "\n", which marks
// where text may be missing (see ReviewAnswer).
func addRow(s *string, row string, full bool) {
	if *s != "" && !strings.HasSuffix(*s, "\n") {
		*s += " "
	}
	*s += row
	if full {
		*s += "\n"
	}
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
