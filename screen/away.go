package screen

import (
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

// SessionsView reports whether s shows Claude Code's sessions view rather
// than its conversation: ← at its prompt while Claude works moves the
// conversation to the background (every pinned version), and a form it
// then asks waits in the view's "Needs input" list, not on the screen
// (2.1.227 and later). It looks like
//
//	Your conversation moved to the background — enter opens it · esc returns to it ·   (2.1.227, 2.1.299)
//	Your session moved to the background · enter opens it · esc returns to it ·        (2.1.330, 2.1.332)
//	…
//	────────────────────────────────
//	❯ describe a task for a new session
//	────────────────────────────────
//	⏵⏵ auto mode · enter to return · space to reply · ctrl+x to delete · ? for shortcuts
//
// and on 2.1.197, with no notice, the conversation "Working" in its list
// and the footer "enter to open · space to reply · …". It is read from
// the view's own rows, so that a form's text cannot pass for it (a label,
// a description, typed text, Claude's transcript above the form): the
// bottom row, under the rule of its prompt box, is the view's footer, or
// a row begins with the notice while the prompt box closes the screen
// (a narrow screen cuts the footer short).
func SessionsView(s vt.Snapshot) bool {
	ls := lines(s)
	bottom := len(ls) - 1
	for bottom >= 0 && ls[bottom].blank() {
		bottom--
	}
	if bottom < 1 || !isRule(ls[bottom-1], s.Cols) {
		return false
	}
	footer := ls[bottom].text()
	if strings.Contains(footer, "enter to return · space to reply") || strings.Contains(footer, "enter to open · space to reply") {
		return true
	}
	for _, l := range ls[:bottom-1] {
		t := strings.TrimSpace(l.text())
		if strings.HasPrefix(t, "Your session moved to") || strings.HasPrefix(t, "Your conversation moved to") {
			return true
		}
	}
	return false
}
