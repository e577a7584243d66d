package claudetest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMakefileVersions: the Makefile's CLAUDE_VERSIONS and E2E_VERSIONS
// (what make installs and the e2e suite runs on) list what Pinned and
// DefaultVersions do (what the golden tests and tools read).
func TestMakefileVersions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(Root(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, "?=")
		if name = strings.TrimSpace(name); ok && (name == "CLAUDE_VERSIONS" || name == "E2E_VERSIONS") {
			got[name] = strings.Fields(value)
		}
	}
	if !slices.Equal(got["CLAUDE_VERSIONS"], Pinned) {
		t.Errorf("Makefile CLAUDE_VERSIONS %q, Pinned %q", got["CLAUDE_VERSIONS"], Pinned)
	}
	if !slices.Equal(got["E2E_VERSIONS"], DefaultVersions) {
		t.Errorf("Makefile E2E_VERSIONS %q, DefaultVersions %q", got["E2E_VERSIONS"], DefaultVersions)
	}
}
