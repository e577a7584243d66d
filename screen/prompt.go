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
