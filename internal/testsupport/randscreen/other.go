package randscreen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// background is n rows to draw above a dialog: Claude's conversation over
// a rule or a box; blank rows, and now and then a banner at the left edge,
// over a dialog with no frame.
func background(r *rand.Rand, n int, fr frame) []row {
	out := make([]row, 0, n)
	if fr == framePlain {
		banner := n >= 3 && r.IntN(2) == 0
		for i := range n {
			if banner && i == n-3 {
				out = append(out, row{text: "Welcome to Claude Code v2.1." + fmt.Sprint(r.IntN(400)), role: roleBack})
				continue
			}
			out = append(out, row{role: roleBack})
		}
		return out
	}
	for len(out) < n {
		out = append(out, conversation(r, n-len(out))...)
	}
	return out[len(out)-n:]
}

// conversation is a few rows of what Claude shows above its input box: an
// echoed message, its replies, a tool's call and output, blank rows between
// them; never a rule, and a "❯" only where Claude echoes a message.
func conversation(r *rand.Rand, room int) []row {
	var out []row
	add := func(t string) { out = append(out, row{text: t, role: roleBack}) }
	width := 60
	switch r.IntN(4) {
	case 0:
		add("❯ " + strings.Join(words(r, 2+r.IntN(6), width, true), " "))
	case 1:
		for i, l := range wrap(words(r, 3+r.IntN(30), width, false), width) {
			if i == 0 {
				add("● " + l)
			} else {
				add("  " + l)
			}
		}
	case 2:
		add("● Bash(" + strings.Join(words(r, 1+r.IntN(4), width, true), " ") + ")")
		add("  ⎿  " + strings.Join(words(r, 1+r.IntN(6), width, true), " "))
		for i := range r.IntN(3) {
			add(fmt.Sprintf("     %d. %s", i+1, strings.Join(words(r, 2, width, true), " ")))
		}
	case 3:
		add("  ⎿  Read " + fmt.Sprint(r.IntN(300)) + " lines (ctrl+o to expand)")
	}
	if len(out) < room {
		add("")
	}
	return out
}

// Claude's status lines under its input box.
var statusLines = []string{
	"  ⏵⏵ bypass permissions on (shift+tab to cycle)",
	"  ⏵⏵ auto mode on (shift+tab to cycle) · ← for agents",
	"  ? for shortcuts",
	"  -- INSERT --",
	"  esc to interrupt",
	"  Enter to send · Esc to clear · ctrl+g to edit in Vim",
	"  ⏸ plan mode on (shift+tab to cycle)",
}

// drawOther draws a screen that is no dialog.
func drawOther(r *rand.Rand, s *Screen) []row {
	cols := s.Cols
	rule := row{text: strings.Repeat("─", cols), role: roleBack}
	var foot []row // the screen's last rows
	add := func(t string) { foot = append(foot, row{text: t, role: roleBack}) }
	inputBox := func(typed string) {
		foot = append(foot, rule)
		lines := wrap(strings.Fields(typed), cols-4)
		if len(lines) == 0 {
			lines = []string{""}
		}
		add("❯ " + lines[0])
		for _, l := range lines[1:] {
			add("  " + l)
		}
		foot = append(foot, rule)
	}
	typedText := func(n int) string { return strings.Join(words(r, n, cols, false), " ") }
	switch r.IntN(6) {
	case 0:
		s.Shape = "prompt"
		inputBox(typedText(r.IntN(30)))
		for range 1 + r.IntN(2) {
			add(statusLines[r.IntN(len(statusLines))])
		}
	case 1:
		s.Shape = "slash"
		inputBox("/" + english[r.IntN(len(english))][:1])
		n := 2 + r.IntN(min(18, s.Rows-8))
		focus := r.IntN(n)
		for i := range n {
			p := "    "
			if i == focus && r.IntN(4) > 0 {
				p = "  ❯ "
			}
			name := "/" + strings.Join(words(r, 1, 20, true), "-")
			add(p + pad(name, 28) + strings.Join(words(r, 2+r.IntN(6), cols, true), " "))
		}
		if r.IntN(2) == 0 {
			add(fmt.Sprintf("    ↓ %d more", 1+r.IntN(60)))
		}
	case 2:
		s.Shape = "at"
		inputBox("@" + english[r.IntN(len(english))])
		for range 2 + r.IntN(min(10, s.Rows-8)) {
			if r.IntN(3) == 0 {
				add("    * " + pad(english[r.IntN(len(english))]+" (agent)", 28) + strings.Join(words(r, 5, cols, true), " ") + "…")
			} else {
				add("    + src/" + english[r.IntN(len(english))] + ".go")
			}
		}
	case 3:
		s.Shape = "spinner"
		add("● Bash(" + strings.Join(words(r, 1+r.IntN(5), cols, true), " ") + ")")
		add("  ⎿  " + []string{"Waiting…", "Running…", "Running… (3s)"}[r.IntN(3)])
		add("")
		spin := []string{"✻ Thinking… (esc to interrupt)", "✢ Cooking… (12s · ↓ 1.2k tokens · esc to interrupt)",
			"· Pondering… (esc to interrupt · ctrl+t to show todos)"}[r.IntN(3)]
		add(spin)
		if r.IntN(2) == 0 {
			add("")
			inputBox(typedText(r.IntN(5)))
			add("  esc to interrupt")
		} else if r.IntN(2) == 0 {
			add("")
			add("  esc to interrupt")
		}
	case 4:
		s.Shape = "tool"
		add("● Read(src/" + english[r.IntN(len(english))] + ".go)")
		add("  ⎿  Read " + fmt.Sprint(r.IntN(500)) + " lines (ctrl+o to expand)")
		for i := range r.IntN(4) {
			add(fmt.Sprintf("  %d. %s ❯ %s", i+1, strings.Join(words(r, 2, cols, true), " "), english[r.IntN(len(english))]))
		}
		if r.IntN(2) == 0 {
			w := min(cols, 20+r.IntN(30))
			for _, rw := range boxed(r, []row{{text: "- " + english[r.IntN(len(english))]}, {text: "+ " + english[r.IntN(len(english))]}}, 2, w, false, "") {
				rw.role = roleBack
				foot = append(foot, rw)
			}
		}
		if r.IntN(2) == 0 {
			add("")
			inputBox("")
			add(statusLines[r.IntN(len(statusLines))])
		}
	case 5:
		s.Shape = "banner"
		w := min(cols, 40+r.IntN(20))
		inner := []row{{text: "Welcome back!"}, {}, {text: "Opus 5.5 · API Usage Billing"}, {text: "/tmp/project"}}
		for _, rw := range boxed(r, inner, 0, w, true, fmt.Sprintf("Claude Code v2.1.%d", r.IntN(400))) {
			rw.role = roleBack
			foot = append(foot, rw)
		}
		if r.IntN(2) == 0 {
			add("")
			inputBox(typedText(r.IntN(8)))
			add(statusLines[r.IntN(len(statusLines))])
		}
	}
	if len(foot) > s.Rows {
		foot = foot[len(foot)-s.Rows:]
	}
	return append(background(r, s.Rows-len(foot), frameRule), foot...)
}
