package screen

import (
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

// Prompt finds Claude's own input box — a "❯" line between two rules, the
// bottom rule possibly several lines further down when the input wraps —
// and returns the text in it. ok is false when no input box shows (e.g. a
// form or a dialog has taken its place).
func Prompt(s vt.Snapshot) (text string, ok bool) {
	text, _, ok = promptBox(lines(s), s.Cols)
	return text, ok
}

// promptBox is [Prompt] on lines, with the row of the box's top rule.
func promptBox(ls []line, cols int) (text string, top int, ok bool) {
	for y := len(ls) - 1; y > 0; y-- {
		if !echoLine(ls[y]) || !isRule(ls[y-1], cols) {
			continue
		}
		parts := []string{strings.TrimSpace(string(ls[y].runes[1:]))}
		for z := y + 1; z < len(ls); z++ {
			if isRule(ls[z], cols) {
				return strings.TrimSpace(strings.Join(parts, " ")), y - 1, true
			}
			parts = append(parts, strings.TrimSpace(ls[z].text()))
		}
	}
	return "", 0, false
}

// echoLine is a line that starts as the input box and Claude's echo of a
// sent message do: "❯" alone or followed by a space.
func echoLine(l line) bool {
	r := l.runes
	return len(r) > 0 && r[0] == pointer && (len(r) == 1 || r[1] == ' ' || r[1] == nbsp)
}

// Echoes counts the places above Claude's input box where Claude shows text
// as a message sent to it: a "❯ " line, wrapped onto lines indented by two
// spaces, every version alike. Spacing is not compared, nor what Squash
// leaves out, spacing marks too on every version (see [Squash]): a count,
// never a confirmation of what was typed. With no input box on the screen
// there is nothing to count above: 0.
func Echoes(s vt.Snapshot, text string) int {
	want := Squash(text)
	ls := lines(s)
	_, top, ok := promptBox(ls, s.Cols)
	if want == "" || !ok {
		return 0
	}
	n := 0
	for y := range top {
		if !echoLine(ls[y]) {
			continue
		}
		got := Squash(string(ls[y].runes[1:]))
		// The lines below continue it only while they go on spelling text:
		// the echo's wrapped lines and a status line look alike.
		for z := y + 1; got != want && strings.HasPrefix(want, got) && z < top; z++ {
			next := ls[z].text()
			more := Squash(next)
			if more == "" || !strings.HasPrefix(next, "  ") || !strings.HasPrefix(want, got+more) {
				break
			}
			got += more
		}
		if got == want {
			n++
		}
	}
	return n
}

// interruptHint is what Claude's footer, under its input box, says while a
// turn runs (the model, a tool), on every pinned version; never while it
// waits at its prompt.
const interruptHint = "esc to interrupt"

// Working reports whether Claude's screen shows a turn running: its input
// box with the interrupt hint under it.
func Working(s vt.Snapshot) bool {
	ls := lines(s)
	_, top, ok := promptBox(ls, s.Cols)
	if !ok {
		return false
	}
	for _, l := range ls[top+1:] {
		if strings.Contains(l.text(), interruptHint) {
			return true
		}
	}
	return false
}
