//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

var (
	reportMu    sync.Mutex
	reportLines []string
)

// report notes what a test proved against which Claude Code version. go test
// hides a passing package's output, so TestMain also writes the notes to
// .cache/e2e-report.txt, which `make test` prints.
func report(format string, args ...any) {
	line := fmt.Sprintf("e2e: "+format, args...)
	fmt.Fprintln(os.Stderr, line)
	reportMu.Lock()
	reportLines = append(reportLines, line)
	reportMu.Unlock()
}

func TestMain(m *testing.M) {
	code := m.Run()
	sort.Strings(reportLines)
	head := fmt.Sprintf("e2e: the real Claude Code offline against the fake API: %s on %s, "+
		"random forms on every pinned version (%s): %d checks passed\n", suite,
		strings.Join(claudetest.Versions(), " and "), strings.Join(claudetest.PinnedVersions(), ", "), len(reportLines))
	if code != 0 {
		head = "e2e: FAILED (see above); passed before that:\n"
	}
	if dir, err := os.Getwd(); err == nil {
		out := filepath.Join(filepath.Dir(dir), ".cache", "e2e-report.txt")
		os.MkdirAll(filepath.Dir(out), 0o755)
		os.WriteFile(out, []byte(head+strings.Join(reportLines, "\n")+"\n"), 0o644)
	}
	os.Exit(code)
}
