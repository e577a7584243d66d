package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite: a man page for the root and each command, and the three
// completions, each naming claudewrap's commands.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"man/claudewrap.1":             "claudewrap",
		"man/claudewrap-run.1":         "--exit-after-turn",
		"man/claudewrap-rules-check.1": "rules check",
		"completions/claudewrap.bash":  "__start_claudewrap",
		"completions/claudewrap.zsh":   "#compdef claudewrap",
		"completions/claudewrap.fish":  "complete -c claudewrap",
	} {
		b, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", path, want)
		}
	}
}
