package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnreadableTerminal(t *testing.T) {
	if got := unreadableTerminal([]string{"TERM=xterm-256color"}); got != "" {
		t.Errorf("xterm-256color: %q, want nothing", got)
	}
	got := unreadableTerminal([]string{"TERM=linux"})
	for _, want := range []string{"TERM=linux", "ASCII", "left to you", "TERM=xterm-256color", "--headless"} {
		if !strings.Contains(got, want) {
			t.Errorf("TERM=linux: %q does not say %q", got, want)
		}
	}
}

// TestWaitUnreachable: a run whose forms would wait for an answer from
// elsewhere, while its sessions folder is refused (others may enter it),
// is refused before Claude starts (exit 2) with the fix, rather than
// waiting for an answer nobody can send.
func TestWaitUnreachable(t *testing.T) {
	runtime := t.TempDir()
	if err := os.MkdirAll(filepath.Join(runtime, "claudewrap"), 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(runtime, "claudewrap"), 0o777)
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	_, _, err := executeRoot(t, "run", "--headless", "--on-unmatched", "wait", "--claude", fakeClaudeScript(t), "--", "exit", "0")
	if status(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), "--on-unmatched wait: no answer could reach this run") ||
		!strings.Contains(err.Error(), "set XDG_RUNTIME_DIR to a private folder") {
		t.Errorf("exit %d: %v", status(err), err)
	}
}
