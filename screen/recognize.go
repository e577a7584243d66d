package screen

import (
	"slices"
	"strconv"
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

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
