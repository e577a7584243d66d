package screen

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/claudewrap/claudewrap/vt"
)

// DialogKind is what a dialog asks about.
type DialogKind string

// The dialogs claudewrap tells apart. Their option lists differ by version
// and by tool, so a dialog is read from the screen, never from a table.
const (
	TrustDialog      DialogKind = "trust"      // "Accessing workspace: … Yes, I trust this folder"
	PermissionDialog DialogKind = "permission" // a tool asks: "Do you want to proceed?" and the like
	PlanDialog       DialogKind = "plan"       // ExitPlanMode: "Exit plan mode?", "Ready to code?"
	// BypassDialog is the confirmation --dangerously-skip-permissions asks
	// for before the session starts: "WARNING: Claude Code running in
	// Bypass Permissions mode … No, exit / Yes, I accept".
	BypassDialog DialogKind = "bypass_permissions"
	OtherDialog  DialogKind = "other" // a menu claudewrap does not know
)

// Dialog is a menu Claude draws that is not an AskUserQuestion form: the
// folder trust dialog, the bypass-permissions confirmation, a permission
// prompt, plan approval, or one nobody told claudewrap about.
type Dialog struct {
	Kind DialogKind
	// Title is the first line under the rule the dialog is drawn below
	// ("Bash command", "Accessing workspace:", "Exit plan mode?").
	Title string
	// Prompt is the text just above the options ("Do you want to
	// proceed?"); Title and Prompt that Claude wrapped are joined with
	// single spaces.
	Prompt string
	// Header is the first line of a dialog drawn in two parts, above its
	// detail between dashed rules and the rule over the question: plan
	// approval's "Ready to code?". "" for the others.
	Header string
	// Options are the rows' labels, without their numbers; a label that
	// wraps is joined with single spaces.
	Options []string
	// Rows are the screen rows of each option's first line.
	Rows []int
	// Focus is the index of the option the pointer is on.
	Focus int
	// Footer is the line under the options, if any ("Esc to cancel · Tab
	// to amend").
	Footer string
	// Text is the dialog's whole text, from the line under its rule down.
	Text string
}

// Same reports whether d and o are one dialog, wherever the focus is.
func (d Dialog) Same(o Dialog) bool {
	if d.Kind != o.Kind || d.Title != o.Title || d.Prompt != o.Prompt || len(d.Options) != len(o.Options) {
		return false
	}
	for i := range d.Options {
		if d.Options[i] != o.Options[i] {
			return false
		}
	}
	return true
}

// Find is the index of the option labelled label: equal, or the label
// followed by more words on the row (a label that wraps, a hint after it,
// or a clause after a comma: "No, and tell Claude what to do differently");
// -1 when there is none, or more than one.
func (d Dialog) Find(label string) int {
	found := -1
	for i, o := range d.Options {
		if o == label {
			return i
		}
		if strings.HasPrefix(o, label+" ") || strings.HasPrefix(o, label+", ") {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

func (d Dialog) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dialog %s: %q", d.Kind, d.Title)
	if d.Prompt != d.Title {
		fmt.Fprintf(&b, " / %q", d.Prompt)
	}
	b.WriteString("\n")
	if d.Header != "" {
		fmt.Fprintf(&b, "  header: %q\n", d.Header)
	}
	for i, o := range d.Options {
		mark := " "
		if i == d.Focus {
			mark = string(pointer)
		}
		fmt.Fprintf(&b, "  %s %d. %s\n", mark, i+1, o)
	}
	if d.Footer != "" {
		fmt.Fprintf(&b, "  footer: %q\n", d.Footer)
	}
	return b.String()
}

// dialogTail bounds the lines Claude may draw under a dialog's footer.
const dialogTail = 3

// ParseDialog finds a dialog at the bottom of the screen. Its options are a
// run of rows indented alike, one of them behind the pointer, under a
// full-width rule; the pointer is never in column 0 (forms and Claude's
// input box put it there). An AskUserQuestion form is not a dialog.
func ParseDialog(s vt.Snapshot) (Dialog, bool) {
	if _, err := Recognize(s); err == nil {
		return Dialog{}, false
	}
	if _, ok := ParseElicitation(s); ok {
		return Dialog{}, false // an MCP server's form, not a menu
	}
	ls := lines(s)
	bottom := len(ls) - 1
	for bottom >= 0 && ls[bottom].blank() {
		bottom--
	}
	// The pointer row: the lowest one, near the bottom.
	focusY, col := -1, 0
	for y := bottom; y >= 0 && focusY < 0; y-- {
		r := ls[y].runes
		for x, c := range r {
			if c == ' ' {
				continue
			}
			if c == pointer && x > 0 && x+2 < len(r) && r[x+1] == ' ' {
				focusY, col = y, x
			}
			break
		}
	}
	if focusY < 0 {
		return Dialog{}, false
	}
	// Rows of the menu: "❯ label" or "  label" at the pointer's column,
	// continuation lines indented further; a blank or less indented line
	// ends it.
	optionAt := func(l line) (string, bool) {
		r := l.runes
		if len(r) <= col+2 || !allSpace(r[:col]) {
			return "", false
		}
		if (r[col] != pointer && r[col] != ' ') || r[col+1] != ' ' || r[col+2] == ' ' {
			return "", false
		}
		return strings.TrimSpace(string(r[col+2:])), true
	}
	continuation := func(l line) (string, bool) {
		r := l.runes
		if len(r) <= col+3 || !allSpace(r[:col+3]) || l.blank() {
			return "", false
		}
		return strings.TrimSpace(string(r)), true
	}
	top := focusY
	for top > 0 {
		_, opt := optionAt(ls[top-1])
		_, cont := continuation(ls[top-1])
		if !opt && !cont {
			break
		}
		top--
	}
	for top < focusY {
		if _, ok := optionAt(ls[top]); ok {
			break
		}
		top++
	}
	var d Dialog
	d.Focus = -1
	end := top
	for y := top; y <= bottom; y++ {
		if label, ok := optionAt(ls[y]); ok {
			if ls[y].runes[col] == pointer {
				if d.Focus >= 0 {
					return Dialog{}, false // two pointers
				}
				d.Focus = len(d.Options)
			}
			d.Options = append(d.Options, label)
			d.Rows = append(d.Rows, y)
			end = y
			continue
		}
		if more, ok := continuation(ls[y]); ok && len(d.Options) > 0 {
			d.Options[len(d.Options)-1] += " " + more
			end = y
			continue
		}
		break
	}
	if len(d.Options) < 2 || d.Focus < 0 || !numbering(d.Options) {
		return Dialog{}, false
	}
	for i, o := range d.Options {
		// 2.1.227 ticks the chosen row ("… ✔") for a frame before the
		// dialog goes: the same option, not another dialog.
		d.Options[i] = strings.TrimSuffix(stripNumber(o), " ✔")
	}
	// Under the menu: a footer and at most a few lines more.
	under := 0
	for y := end + 1; y <= bottom; y++ {
		if ls[y].blank() {
			continue
		}
		if d.Footer == "" {
			d.Footer = strings.TrimSpace(ls[y].text())
		}
		under++
	}
	if under > dialogTail {
		return Dialog{}, false
	}
	// Above it: the prompt, and the rule the dialog is drawn under.
	ruleY, promptY := -1, -1
	for y := top - 1; y >= 0; y-- {
		if isRule(ls[y], s.Cols) {
			ruleY = y
			break
		}
		if promptY < 0 && !ls[y].blank() {
			promptY = y
		}
	}
	if ruleY < 0 {
		return Dialog{}, false
	}
	if promptY >= 0 {
		from := promptY
		for from-1 > ruleY && wrapsInto(ls[from-1], ls[from], s.Cols) {
			from--
		}
		d.Prompt = joinLines(ls[from : promptY+1])
	}
	var text []string
	for y := ruleY + 1; y <= bottom; y++ {
		if d.Title == "" && !ls[y].blank() {
			to := y
			// A title runs past the middle of the screen before it wraps:
			// a short one over a long path is two lines.
			for to < top-1 && wrapsInto(ls[to], ls[to+1], s.Cols) && len(ls[to].text()) > s.Cols/2 {
				to++
			}
			d.Title = joinLines(ls[y : to+1])
		}
		text = append(text, ls[y].text())
	}
	d.Text = strings.Join(text, "\n")
	d.Header = header(ls, ruleY, s.Cols)
	d.Kind = dialogKind(d)
	return d, true
}

// wrapMargin is the columns at the screen's right edge Claude leaves free
// when it wraps a dialog's text (its padding and border).
const wrapMargin = 4

// wrapsInto reports whether b continues a, wrapped there by Claude: both
// indented alike, and b's first word would not have fitted at a's end near
// the screen's right edge. A line that ends short of the edge is a line of
// its own ("Bash command" above its tip).
func wrapsInto(a, b line, cols int) bool {
	ai, aEnd := extent(a)
	bi, bEnd := extent(b)
	if ai < 0 || bi < 0 || a.x(ai) != b.x(bi) {
		return false
	}
	word := bi
	for word+1 <= bEnd && b.runes[word+1] != ' ' {
		word++
	}
	width := b.x(word) + 1 - b.x(bi)
	if word+1 < len(b.runes) {
		width = b.x(word+1) - b.x(bi)
	}
	return a.x(aEnd)+1+1+width > cols-wrapMargin
}

// extent is the index of l's first and last non-space rune; -1, -1 when
// it is blank.
func extent(l line) (first, last int) {
	first, last = -1, -1
	for i, r := range l.runes {
		if r != ' ' {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// joinLines is the text of lines wrapped from one, joined with spaces.
func joinLines(ls []line) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = strings.TrimSpace(l.text())
	}
	return strings.Join(parts, " ")
}

// dashRune draws the dashed rules around a tool's detail in a dialog.
const dashRune = '╌'

// header is the first line of a dialog that begins above the rule at
// ruleY: plan approval draws its header ("Ready to code?") and the plan
// between dashed rules above a second rule, over its question. "" when
// the line above the rule is no dashed rule.
func header(ls []line, ruleY, cols int) string {
	y := ruleY - 1
	for y >= 0 && ls[y].blank() {
		y--
	}
	if y < 0 || !isDashed(ls[y], cols) {
		return ""
	}
	for ; y >= 0; y-- {
		if isRule(ls[y], cols) {
			for z := y + 1; z < ruleY; z++ {
				if !ls[z].blank() {
					return strings.TrimSpace(ls[z].text())
				}
			}
		}
	}
	return ""
}

// isDashed matches a dashed rule across most of the screen.
func isDashed(l line, cols int) bool {
	t := trimSpace(l.runes)
	for _, r := range t {
		if r != dashRune {
			return false
		}
	}
	return len(t) > 0 && len(t)*minRuleFraction >= cols
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

// bypassWarning opens the bypass-permissions confirmation on every pinned
// version; a narrow screen wraps it.
const bypassWarning = "WARNING: Claude Code running in Bypass Permissions mode"

// dialogKind tells the dialogs apart by their words, as each pinned version
// draws them.
func dialogKind(d Dialog) DialogKind {
	switch {
	case strings.HasPrefix(strings.Join(strings.Fields(d.Text), " "), bypassWarning):
		return BypassDialog
	case strings.Contains(d.Text, "trust this folder"):
		return TrustDialog
	case d.Title == "Exit plan mode?" || d.Title == "Ready to code?" || d.Header == "Ready to code?" ||
		strings.Contains(d.Prompt, "Would you like to proceed?"):
		return PlanDialog
	case strings.HasPrefix(d.Prompt, "Do you want to") || strings.Contains(d.Prompt, " Do you want to "):
		return PermissionDialog
	}
	return OtherDialog
}
