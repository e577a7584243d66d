package screen

import "strings"

// Prompt finds Claude's own input box — a "❯" line between two rules, the
// bottom rule possibly several lines further down when the input wraps —
// and returns the text in it. ok is false when no input box shows (e.g. a
// form or a dialog has taken its place).
func Prompt(s Snapshot) (text string, ok bool) {
	ls := lines(s)
	for y := len(ls) - 1; y > 0; y-- {
		r := ls[y].runes
		if len(r) < 1 || r[0] != pointer || (len(r) > 1 && r[1] != ' ' && r[1] != nbsp) || !isRule(ls[y-1], s.Cols) {
			continue
		}
		parts := []string{strings.TrimSpace(string(r[1:]))}
		for z := y + 1; z < len(ls); z++ {
			if isRule(ls[z], s.Cols) {
				return strings.TrimSpace(strings.Join(parts, " ")), true
			}
			parts = append(parts, strings.TrimSpace(ls[z].text()))
		}
	}
	return "", false
}

// Echoes counts the places above Claude's input box where Claude shows text
// as a message sent to it: a "❯ " line, wrapped onto lines indented by two
// spaces, every version alike. Spacing is not compared (see [Squash]).
func Echoes(s Snapshot, text string) int {
	want := Squash(text)
	if want == "" {
		return 0
	}
	ls := lines(s)
	n := 0
	for y, l := range ls {
		r := l.runes
		if len(r) < 2 || r[0] != pointer || (r[1] != ' ' && r[1] != nbsp) || (y > 0 && isRule(ls[y-1], s.Cols)) {
			continue // not an echo, or the input box itself
		}
		got := Squash(string(r[1:]))
		// The lines below continue it only while they go on spelling text:
		// the echo's wrapped lines and a status line look alike.
		for z := y + 1; got != want && strings.HasPrefix(want, got) && z < len(ls); z++ {
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
