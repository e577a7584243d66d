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

func TestOlder(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"2.1.266", "2.1.299", true},
		{"2.1.299", "2.1.299", false},
		{"2.1.332", "2.1.299", false},
		{"2.1.99", "2.1.100", true},
		{"2.0.999", "2.1.0", true},
		{"3", "2.1.299", false},
	} {
		if got := Older(tc.a, tc.b); got != tc.want {
			t.Errorf("Older(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
