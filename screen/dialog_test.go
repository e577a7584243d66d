package screen_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/screen"
)

// TestBypassDialog: the confirmation --dangerously-skip-permissions asks
// for is read as the bypass dialog on every recorded version and size,
// numbered (2.1.197) or not (2.1.332), its warning whole or wrapped (40
// columns): "No, exit" focused, "Yes, I accept" under it.
func TestBypassDialog(t *testing.T) {
	files, err := filepath.Glob("../testdata/screens/*/bypass-dialog-*.cast")
	if err != nil || len(files) < 2 {
		t.Fatalf("recordings of the bypass dialog: %q %v", files, err)
	}
	for _, f := range files {
		d, ok := screen.ParseDialog(replay(t, f, 0))
		if !ok || d.Kind != screen.BypassDialog || !slices.Equal(d.Options, []string{"No, exit", "Yes, I accept"}) ||
			d.Focus != 0 || d.Find("Yes, I accept") != 1 {
			t.Errorf("%s: want the bypass dialog, focus on \"No, exit\"; got %v %v", f, ok, d)
		}
	}
}

// TestBypassLookalike: the warning's words elsewhere in a dialog (a command
// that prints them, asked about in a permission prompt) do not make it the
// bypass dialog: they must open it.
func TestBypassLookalike(t *testing.T) {
	em := screen.New(screen.Options{Cols: 80, Rows: 20})
	_, _ = em.Write([]byte("\x1b[2J\x1b[H● Bash(echo)\r\n\r\n" + strings.Repeat("─", 80) + "\r\n" +
		" Bash command\r\n\r\n   echo WARNING: Claude Code running in Bypass Permissions mode\r\n\r\n" +
		" Do you want to proceed?\r\n ❯ 1. Yes\r\n   2. Yes, I accept\r\n   3. No\r\n\r\n Esc to cancel\r\n"))
	d, ok := screen.ParseDialog(em.Snapshot())
	if !ok || d.Kind != screen.PermissionDialog {
		t.Errorf("want a permission dialog, got %v %v", ok, d)
	}
}

// dialogScreen draws lines as Claude draws a dialog at the bottom of a
// screen cols wide: a rule, then the lines.
func dialogScreen(t *testing.T, cols int, lines ...string) screen.Dialog {
	t.Helper()
	em := screen.New(screen.Options{Cols: cols, Rows: 30})
	text := "\x1b[2J\x1b[H● Working\r\n\r\n" + strings.Repeat("─", cols) + "\r\n" + strings.Join(lines, "\r\n") + "\r\n"
	if _, err := em.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	d, ok := screen.ParseDialog(em.Snapshot())
	if !ok {
		t.Fatalf("no dialog on\n%s", em.Snapshot().Text())
	}
	return d
}

// TestDialogWrapped: a title or a prompt Claude wrapped at the screen's
// edge is read whole, so the dialog is known by its words at any width
// (plan approval's question at 80 columns, on every pinned version, was
// read as an unknown dialog; see the plan-wrapped recordings); a short
// line over another is no wrap ("Bash command" over its tip).
func TestDialogWrapped(t *testing.T) {
	d := dialogScreen(t, 60,
		" Create file",
		" /work/project/reports/quarterly/summary-of-the-numbers.txt",
		"",
		" Do you want to create",
		" quarterly-summary-of-the-numbers-for-the-board.txt?",
		" ❯ 1. Yes",
		"   2. No",
		"",
		" Esc to cancel")
	if d.Kind != screen.PermissionDialog || d.Prompt != "Do you want to create quarterly-summary-of-the-numbers-for-the-board.txt?" ||
		d.Title != "Create file" {
		t.Errorf("a wrapped file name: want a permission dialog with the prompt whole, got %s", d)
	}
	d = dialogScreen(t, 60,
		" Bash command",
		" Tip: auto mode handles these prompts",
		"",
		"   rm -rf build",
		"",
		" Do you want to proceed?",
		" ❯ 1. Yes",
		"   2. No")
	if d.Title != "Bash command" || d.Prompt != "Do you want to proceed?" || d.Kind != screen.PermissionDialog {
		t.Errorf("short lines: want them apart, got title %q, prompt %q, %s", d.Title, d.Prompt, d.Kind)
	}
	d = dialogScreen(t, 80,
		" Claude has written up a plan and is ready to execute. Would you like to",
		" proceed?",
		"",
		" ❯ 1. Yes, and use auto mode",
		"   2. Yes, manually approve edits",
		"   3. Tell Claude what to change")
	want := "Claude has written up a plan and is ready to execute. Would you like to proceed?"
	if d.Kind != screen.PlanDialog || d.Title != want || d.Prompt != want {
		t.Errorf("plan approval at 80 columns: got %s", d)
	}
}

// TestDialogFind: an option is found by its label, whole or followed by
// more words or a clause after a comma (WebFetch's "No, and tell Claude
// what to do differently (esc)" for a rule's select: "No"); an exact label
// wins, and two that only start alike find nothing.
func TestDialogFind(t *testing.T) {
	fetch := screen.Dialog{Options: []string{"Yes", "Yes, and don't ask again for example.com", "No, and tell Claude what to do differently (esc)"}}
	plan := screen.Dialog{Options: []string{"Yes, and use auto mode", "Yes, manually approve edits", "Tell Claude what to change"}}
	for _, tc := range []struct {
		d     screen.Dialog
		label string
		want  int
	}{
		{fetch, "No", 2}, {fetch, "Yes", 0}, {fetch, "Yes, and don't ask again for example.com", 1},
		{plan, "Yes", -1}, {plan, "Tell Claude", 2}, {plan, "Maybe", -1},
	} {
		if got := tc.d.Find(tc.label); got != tc.want {
			t.Errorf("Find(%q) in %q = %d, want %d", tc.label, tc.d.Options, got, tc.want)
		}
	}
}

// drawn is what ParseDialog reads off a screen cols wide and rows high that
// shows text.
func drawn(t *testing.T, cols, rows int, text string) (screen.Dialog, bool) {
	t.Helper()
	em := screen.New(screen.Options{Cols: cols, Rows: rows})
	if _, err := em.Write([]byte("\x1b[2J\x1b[H" + strings.ReplaceAll(text, "\n", "\r\n"))); err != nil {
		t.Fatal(err)
	}
	return screen.ParseDialog(em.Snapshot())
}

// TestDialogShapes: a dialog is known by a menu or a footer of key hints,
// in a box, under a rule, or in a block of its own; its title is its first
// line (or the text in a box's top edge), its body what is between the
// title and the menu or footer. Whatever is drawn while Claude's input box
// shows, a form's footer and Claude at work are no dialog.
func TestDialogShapes(t *testing.T) {
	rule := strings.Repeat("─", 60)
	for _, tc := range []struct {
		name, text  string
		title, body string
		options     []string
		keys        []string
		cut, none   bool
	}{
		{name: "box, keys under it",
			text:  "● Working\n\n╭──────────────────────────────╮\n│ Restart the server?          │\n│                              │\n│ It drops every connection.   │\n╰──────────────────────────────╯\n  Enter to restart · Esc to go back\n",
			title: "Restart the server?", body: "It drops every connection.", keys: []string{"Enter: restart", "Esc: go back"}},
		{name: "box, keys inside, title in its edge",
			text:  "┌─ 数据库 🚀 ──────────────────┐\n│ Pick one.                    │\n│                              │\n│ ❯ 1. Yes                     │\n│   2. No                      │\n│                              │\n│ ↑/↓ to move · Esc to cancel  │\n└──────────────────────────────┘\n",
			title: "数据库 🚀", body: "Pick one.", options: []string{"Yes", "No"}, keys: []string{"↑/↓: move", "Esc: cancel"}},
		{name: "box cut at the top",
			text: "│ line one                     │\n│ line two                     │\n│ Press Enter to continue…     │\n╰──────────────────────────────╯\n",
			body: "line one\nline two", keys: []string{"Enter: continue"}, cut: true},
		{name: "rule, keys only",
			text:  "● Bash(ls)\n  ⎿  Waiting…\n\n" + rule + "\n  Cannot reach the check\n\n  Some words here.\n\n  Enter to stay · shift+Tab to leave · Esc to cancel\n",
			title: "Cannot reach the check", body: "Some words here.", keys: []string{"Enter: stay", "shift+Tab: leave", "Esc: cancel"}},
		{name: "no frame, a menu",
			text:  "\n\n Choose a colour\n\n ❯ Red\n   Blue\n\n Enter to choose\n",
			title: "Choose a colour", options: []string{"Red", "Blue"}, keys: []string{"Enter: choose"}},
		{name: "no frame, cut, a marker",
			text: "  more of the text\n\n  the end of it\n ↑ 3 more lines\n  Enter to go on · Esc to cancel\n",
			body: "more of the text\n\nthe end of it", keys: []string{"Enter: go on", "Esc: cancel"}, cut: true},
		{name: "Claude's input box, menu under it", none: true,
			text: rule + "\n❯ /co\n" + rule + "\n  ❯ /compact   Free up context\n    /config    Open settings\n    /context   Show the context\n"},
		{name: "Claude's input box, keys under it", none: true,
			text: "● Done.\n\n" + rule + "\n❯ \n" + rule + "\n  Enter to send · Esc to clear\n"},
		{name: "Claude at work", none: true,
			text: "● Bash(sleep 9)\n  ⎿  Running…\n\n✻ Thinking…\n\n  esc to interrupt\n"},
		{name: "a form's footer, its page unread", none: true,
			text: "Which one?\n\n  2. SQLite\n  3. Type something.\n\nEnter to select · ↑/↓ to navigate · Esc to cancel\n"},
		{name: "a box with no keys", none: true,
			text: "╭──────────────────────────────╮\n│ Claude Code v2.1.332          │\n╰──────────────────────────────╯\n"},
		{name: "text that is no footer", none: true,
			text: rule + "\n  A note\n\n  Remember to go to the shop.\n"},
	} {
		d, ok := drawn(t, 60, 16, tc.text)
		if tc.none {
			if ok {
				t.Errorf("%s: read as %s", tc.name, d)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: no dialog", tc.name)
			continue
		}
		var ks []string
		for _, k := range d.Keys {
			ks = append(ks, k.Key+": "+k.Does)
		}
		if d.Title != tc.title || d.Body != tc.body || d.Cut != tc.cut || !slices.Equal(d.Options, tc.options) || !slices.Equal(ks, tc.keys) {
			t.Errorf("%s: read title %q, body %q, cut %t, options %q, keys %q\nwant %q, %q, %t, %q, %q",
				tc.name, d.Title, d.Body, d.Cut, d.Options, ks, tc.title, tc.body, tc.cut, tc.options, tc.keys)
		}
		if d.Kind != screen.OtherDialog {
			t.Errorf("%s: kind %s", tc.name, d.Kind)
		}
	}
}

// TestKeyHints: a footer's hints, "KEY to DOES" or "Press KEY to DOES",
// keys named or a character, with modifiers and alternatives; a segment
// that is no hint gives no key, and a footer must begin with one.
func TestKeyHints(t *testing.T) {
	for _, tc := range []struct {
		footer string
		want   []string
	}{
		{"Enter to confirm · Esc to cancel", []string{"Enter: confirm", "Esc: cancel"}},
		{"Press Enter to continue…", []string{"Enter: continue"}},
		{"ctrl+g to edit in Vim · ~/.claude/plans/x.md", []string{"ctrl+g: edit in Vim"}},
		{"Tab/Arrow keys to navigate · n to add notes · y/n to answer", []string{"Tab/Arrow keys: navigate", "n: add notes", "y/n: answer"}},
		{"shift+Tab to go to the next one", []string{"shift+Tab: go to the next one"}},
		{"ctrl+shift+k to kill · F5 to refresh · PgDn to page", []string{"ctrl+shift+k: kill", "F5: refresh", "PgDn: page"}},
		{"Remember to go to the shop", nil},
		{"⏵⏵ auto mode on (shift+tab to cycle) · ? for shortcuts", nil},
		{"Enter to", nil},
		{"Big red button to press · Esc to cancel", nil},
	} {
		d, ok := drawn(t, 80, 10, strings.Repeat("─", 80)+"\n A title\n\n "+tc.footer+"\n")
		var got []string
		for _, k := range d.Keys {
			got = append(got, k.Key+": "+k.Does)
		}
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("%q: keys %q (a dialog: %v), want %q", tc.footer, got, ok, tc.want)
		}
	}
}
