package screen

import (
	"fmt"
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

// DialogKind is what a dialog asks about.
type DialogKind string

// The dialogs claudewrap tells apart, by their words as every pinned
// version draws them. Their option lists differ by version and by tool, so
// a dialog is read from the screen, never from a table.
const (
	TrustDialog      DialogKind = "trust"      // "Accessing workspace: … Yes, I trust this folder"
	PermissionDialog DialogKind = "permission" // a tool asks: "Do you want to proceed?" and the like
	PlanDialog       DialogKind = "plan"       // ExitPlanMode: "Exit plan mode?", "Ready to code?"
	// BypassDialog is the confirmation --dangerously-skip-permissions asks
	// for before the session starts: "WARNING: Claude Code running in
	// Bypass Permissions mode … No, exit / Yes, I accept".
	BypassDialog DialogKind = "bypass_permissions"
	// AutoModeDialog is auto mode finding that its safety check does not
	// get through (a gateway in ANTHROPIC_BASE_URL): "Auto mode can't
	// check actions in this session", no menu, its keys "Enter to stay in
	// auto mode · shift+Tab to leave for accept edits mode and stop · Esc
	// to cancel".
	AutoModeDialog DialogKind = "auto_mode_check"
	// APIKeyDialog asks, before the session starts, whether to use the
	// ANTHROPIC_API_KEY in the environment: "Detected a custom API key …
	// Do you want to use this API key?". It is no permission prompt.
	APIKeyDialog DialogKind = "api_key"
	// MCPServerDialog asks whether to run a server of the project's
	// .mcp.json: "New MCP server found in this project: NAME" (its name in
	// Dialog.Server), or several in a list of checkboxes.
	MCPServerDialog DialogKind = "mcp_server"
	// OnboardingDialog is a first-run screen, before any session: the
	// theme picker ("Choose the text style that looks best with your
	// terminal") and the security notes that follow it ("Press Enter to
	// continue").
	OnboardingDialog DialogKind = "onboarding"
	OtherDialog      DialogKind = "other" // a menu, or a screen of key hints, nobody named
)

// Dialog is a screen on which Claude waits for a key and that is not an
// AskUserQuestion form, an MCP server's input form or Claude's own prompt:
// the folder trust dialog, a permission prompt, plan approval, auto mode's
// check, a first-run screen, or one nobody told claudewrap about. It has a
// menu of options, key hints, or both.
type Dialog struct {
	Kind DialogKind
	// Title is the dialog's first line ("Bash command", "Accessing
	// workspace:", "Exit plan mode?"), joined with the next where Claude
	// wrapped it; a box's top edge may hold it ("╭─ Title ─╮"). "" when
	// the top of the dialog is above the screen (Cut).
	Title string
	// Body is the dialog's text between its title and its menu (or its
	// footer, with no menu): each line trimmed, paragraphs one blank line
	// apart, without the rules and "↑ N more lines" markers among them.
	Body string
	// Prompt is the text just above the options ("Do you want to
	// proceed?"); Title and Prompt that Claude wrapped are joined with
	// single spaces. "" with no menu.
	Prompt string
	// Header is the first line of a dialog drawn in two parts, above its
	// detail between dashed rules and the rule over the question: plan
	// approval's "Ready to code?". "" for the others.
	Header string
	// Options are the rows' labels, without their numbers and the mark of
	// the current value ("✔"); a label that wraps is joined with single
	// spaces. None when the dialog has no menu.
	Options []string
	// Rows are the screen rows of each option's first line.
	Rows []int
	// Focus is the index of the option the pointer is on; -1 with no menu.
	Focus int
	// Footer is the line of key hints at the dialog's foot, joined where
	// it wraps ("Esc to cancel · Tab to amend"), if any.
	Footer string
	// Keys are the footer's hints, in order.
	Keys []Key
	// Server is the MCP server an MCPServerDialog asks about, when it asks
	// about one.
	Server string
	// Cut says the dialog's top is above the screen: a dialog taller than
	// the screen, scrolled to its foot. Its Title is "".
	Cut bool
	// Text is the dialog's whole text, from the line under its rule (or
	// its box's top edge) down.
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

// Key is the first of d's keys that is key ("Enter", "Esc"), compared
// without regard to case, and whether there is one.
func (d Dialog) Key(key string) (Key, bool) {
	for _, k := range d.Keys {
		if strings.EqualFold(k.Key, key) {
			return k, true
		}
	}
	return Key{}, false
}

// Servers are the MCP servers an MCPServerDialog asks about: its Server,
// or the names on its checkbox rows ("[✔] demo") when it lists several.
func (d Dialog) Servers() []string {
	if d.Kind != MCPServerDialog {
		return nil
	}
	if d.Server != "" {
		return []string{d.Server}
	}
	var out []string
	for _, o := range d.Options {
		if n := labelIndent(o); n >= 4 && strings.HasPrefix(o, "[") {
			out = append(out, string([]rune(o)[n:]))
		}
	}
	return out
}

func (d Dialog) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dialog %s: %q", d.Kind, d.Title)
	if d.Prompt != "" && d.Prompt != d.Title {
		fmt.Fprintf(&b, " / %q", d.Prompt)
	}
	b.WriteString("\n")
	if d.Cut {
		b.WriteString("  cut: its top is above the screen\n")
	}
	if d.Header != "" {
		fmt.Fprintf(&b, "  header: %q\n", d.Header)
	}
	if d.Server != "" {
		fmt.Fprintf(&b, "  server: %q\n", d.Server)
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
	for _, k := range d.Keys {
		fmt.Fprintf(&b, "  key %s: %q\n", k.Key, k.Does)
	}
	return b.String()
}

// ParseDialog finds a dialog at the bottom of the screen. What makes one is
// a menu — rows indented alike, one of them behind the pointer, which is
// never in column 0 outside a box (forms and Claude's input box put it
// there) — or a footer of key hints ("Enter to confirm · Esc to cancel"),
// or both; found in a frame: under a rule across the screen, in a box, or
// with none, a block of text of its own. Nothing is a dialog while Claude's
// input box shows (its command menu and suggestions are drawn under it,
// its conversation above), nor an AskUserQuestion form or an MCP server's
// input form, read or not, nor Claude at work ("esc to interrupt").
func ParseDialog(s vt.Snapshot) (Dialog, bool) {
	if _, err := Recognize(s); err == nil {
		return Dialog{}, false
	}
	if _, ok := ParseElicitation(s); ok {
		return Dialog{}, false
	}
	ls := lines(s)
	if _, _, ok := promptBox(ls, s.Cols); ok {
		return Dialog{}, false
	}
	bottom := len(ls) - 1
	for bottom >= 0 && ls[bottom].blank() {
		bottom--
	}
	if bottom < 0 {
		return Dialog{}, false
	}
	p, ok := findBox(ls, bottom)
	if !ok {
		p = pane{ruleY: -1, width: s.Cols}
		for y := bottom - 1; y >= 0; y-- {
			if isRule(ls[y], s.Cols) {
				p.ruleY = y
				break
			}
		}
		p.ls = ls[p.ruleY+1 : bottom+1]
		p.frameless = p.ruleY < 0
	}
	d, ok := readPane(p)
	if !ok {
		return Dialog{}, false
	}
	if p.ruleY >= 0 {
		d.Header = header(ls, p.ruleY, s.Cols)
	}
	d.Kind = dialogKind(d)
	if name, ok := strings.CutPrefix(d.Title, mcpServerTitle); ok && d.Kind == MCPServerDialog {
		d.Server = name
	}
	return d, true
}

// readPane reads the dialog in p: its menu, its footer, then its title,
// body and prompt above them. ok is false when p has neither a menu nor a
// footer of key hints, or its footer is a form's or Claude's at work.
func readPane(p pane) (Dialog, bool) {
	ls := p.ls
	d := Dialog{Focus: -1, Cut: p.cut}
	end := len(ls) - 1
	for end >= 0 && ls[end].blank() {
		end--
	}
	if end < 0 && blankLines(p.below) {
		return d, false
	}
	m, hasMenu := findMenu(ls[:end+1], p.boxed)
	footerAt := end + 1
	if p.boxed && !blankLines(p.below) {
		d.Keys, d.Footer, _, _ = findFooter(p.below)
	} else {
		after := 0
		if hasMenu {
			after = m.end + 1
		}
		if keys, text, from, ok := findFooter(ls[after : end+1]); ok {
			d.Keys, d.Footer, footerAt = keys, text, after+from
		}
	}
	if strings.Contains(strings.ToLower(d.Footer), interruptHint) {
		return d, false // Claude at work
	}
	if !hasMenu && (d.Footer == "" || strings.HasPrefix(d.Footer, footerSelect)) {
		return d, false // no dialog, or a form's footer over a page that could not be read
	}
	anchor, indent := footerAt, 0
	if end >= 0 {
		indent = margin(ls[min(footerAt, end)])
	}
	if hasMenu {
		anchor, indent = m.top, m.col
		d.Options, d.Rows, d.Focus = m.options, m.rows, m.focus
	}
	top := 0
	if p.frameless {
		top, d.Cut = blockTop(ls, anchor, indent)
	}
	var text []string
	for _, l := range ls[top : end+1] {
		text = append(text, l.text())
	}
	for _, l := range p.below {
		text = append(text, l.text())
	}
	d.Text = strings.TrimRight(strings.Join(text, "\n"), "\n")
	if strings.Contains(d.Text, elicitTitleEnd) {
		return d, false // an MCP server's input form that could not be read
	}
	y := top
	for y < anchor && (ls[y].blank() || isMarker(ls[y]) || isFrameLine(ls[y])) {
		y++
	}
	titleEnd := top - 1
	switch {
	case p.edgeTitle != "":
		d.Title = p.edgeTitle
	case !d.Cut && y < anchor:
		to := y
		// A title runs past the middle of the screen before it wraps: a
		// short one over a long path is two lines.
		for to < anchor-1 && wrapsInto(ls[to], ls[to+1], p.width) && ls[to].end() > p.width/2 {
			to++
		}
		d.Title, titleEnd = joinLines(ls[y:to+1]), to
	}
	d.Body = bodyText(ls[titleEnd+1 : anchor])
	if hasMenu {
		d.Prompt = promptAbove(ls[top:m.top], p.width)
	}
	return d, true
}

// promptAbove is the last paragraph of ls, joined where Claude wrapped it;
// "" when ls ends in a rule or a marker.
func promptAbove(ls []line, width int) string {
	y := len(ls) - 1
	for y >= 0 && ls[y].blank() {
		y--
	}
	if y < 0 || isMarker(ls[y]) || isFrameLine(ls[y]) {
		return ""
	}
	from := y
	for from > 0 && wrapsInto(ls[from-1], ls[from], width) {
		from--
	}
	return joinLines(ls[from : y+1])
}

// bodyText is the text of ls as Dialog.Body holds it.
func bodyText(ls []line) string {
	var body []string
	for _, l := range ls {
		if isMarker(l) || isFrameLine(l) {
			continue
		}
		t := strings.TrimSpace(l.text())
		if t == "" && (len(body) == 0 || body[len(body)-1] == "") {
			continue
		}
		body = append(body, t)
	}
	for len(body) > 0 && body[len(body)-1] == "" {
		body = body[:len(body)-1]
	}
	return strings.Join(body, "\n")
}

// wrapMargin is the columns at the screen's right edge Claude leaves free
// when it wraps a dialog's text (its padding and border).
const wrapMargin = 4

// wrapsInto reports whether b continues a, wrapped there by Claude: both
// indented alike, and b's first word would not have fitted at a's end near
// the screen's right edge. A line that ends short of the edge is a line of
// its own ("Bash command" above its tip).
func wrapsInto(a, b line, cols int) bool {
	ai, _ := extent(a)
	bi, bEnd := extent(b)
	if ai < 0 || bi < 0 || a.x(ai) != b.x(bi) || isMarker(b) {
		return false
	}
	word := bi
	for word+1 <= bEnd && b.runes[word+1] != ' ' {
		word++
	}
	width := b.end() - b.x(bi)
	if word+1 < len(b.runes) {
		width = b.x(word+1) - b.x(bi)
	}
	return a.end()+1+width > cols-wrapMargin
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

// The words the dialogs are known by.
const (
	// bypassWarning opens the bypass-permissions confirmation on every
	// pinned version; a narrow screen wraps it.
	bypassWarning = "WARNING: Claude Code running in Bypass Permissions mode"
	autoModeTitle = "Auto mode can't check actions in this session"
	autoModeStay  = "stay in auto mode"
	apiKeyTitle   = "Detected a custom API key"
	apiKeyPrompt  = "Do you want to use this API key?"
	// mcpServerTitle is followed by the server's name; mcpServersTitle
	// follows their number when there are several.
	mcpServerTitle  = "New MCP server found in this project: "
	mcpServersTitle = " new MCP servers found in this project"
	themePicker     = "Choose the text style that looks best with your terminal"
	securityNotes   = "Security notes:"
)

// dialogKind tells the dialogs apart by their words, as each pinned version
// draws them; a dialog whose top is above the screen by its keys and its
// question.
func dialogKind(d Dialog) DialogKind {
	text := strings.Join(strings.Fields(strings.ReplaceAll(d.Text, "’", "'")), " ")
	stay, _ := d.Key("Enter")
	enter := stay.Does
	switch {
	case strings.HasPrefix(text, bypassWarning):
		return BypassDialog
	case strings.Contains(d.Text, "trust this folder"):
		return TrustDialog
	case strings.HasPrefix(strings.ReplaceAll(d.Title, "’", "'"), autoModeTitle) || enter == autoModeStay:
		return AutoModeDialog
	case strings.HasPrefix(d.Title, apiKeyTitle) || d.Prompt == apiKeyPrompt:
		return APIKeyDialog
	case strings.HasPrefix(d.Title, mcpServerTitle) || strings.Contains(d.Title, mcpServersTitle):
		return MCPServerDialog
	case strings.Contains(text, themePicker) || strings.HasPrefix(text, securityNotes) && enter == "continue":
		return OnboardingDialog
	case d.Title == "Exit plan mode?" || d.Title == "Ready to code?" || d.Header == "Ready to code?" ||
		strings.Contains(d.Prompt, "Would you like to proceed?"):
		return PlanDialog
	case strings.HasPrefix(d.Prompt, "Do you want to") || strings.Contains(d.Prompt, " Do you want to "):
		return PermissionDialog
	}
	return OtherDialog
}
