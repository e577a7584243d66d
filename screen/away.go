package screen

import "strings"

// SessionsView reports whether s shows Claude Code's sessions view rather
// than its conversation: ← at its prompt while Claude works moves the
// conversation to the background (2.1.227 and later), and a form it then
// asks waits in the view's "Needs input" list, not on the screen. Seen
// (random forms run 59, seed 1764200000 s008) as
//
//	Your conversation moved to the background — enter opens it · esc returns to it ·   (2.1.227, 2.1.299)
//	Your session moved to the background · enter opens it · esc returns to it ·        (2.1.330, 2.1.332)
//	…
//	enter to return · space to reply · ctrl+x to delete · ? for shortcuts              (the footer)
//
// and on 2.1.197, with no notice, the conversation "Working" in its list:
//
//	enter to open · space to reply · ctrl+x to delete · ? for shortcuts
//
// The notice is read across rows, as a narrow screen wraps it.
func SessionsView(s Snapshot) bool {
	text := strings.Join(strings.Fields(s.Text()), " ")
	return strings.Contains(text, "moved to the background") && strings.Contains(text, "enter opens it") ||
		strings.Contains(text, "enter to return · space to reply") || strings.Contains(text, "enter to open · space to reply")
}
