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
