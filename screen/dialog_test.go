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
