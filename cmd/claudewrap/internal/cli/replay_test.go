package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/bundle"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

// TestReplayRefusesAFIFO: replay reads only a regular file, a recording's
// or a bundle's: a FIFO is refused at once, exit 2, not waited on.
func TestReplayRefusesAFIFO(t *testing.T) {
	report, _ := json.Marshal(bundle.Report{ToolUseID: "toolu_1",
		Questions: []answer.Question{{Question: "Which?", Header: "H", Options: []answer.Option{{Label: "A"}}}}})
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string) (arg, fifo string)
	}{
		{"a recording", func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "session.cast")
			testkit.FIFO(t, p)
			return p, p
		}},
		{"a bundle's recording", func(t *testing.T, dir string) (string, string) {
			os.WriteFile(filepath.Join(dir, bundle.ReportFile), report, 0o600)
			testkit.FIFO(t, filepath.Join(dir, bundle.CastFile))
			return dir, filepath.Join(dir, bundle.CastFile)
		}},
		{"a bundle's report", func(t *testing.T, dir string) (string, string) {
			testkit.FIFO(t, filepath.Join(dir, bundle.ReportFile))
			return dir, filepath.Join(dir, bundle.ReportFile)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arg, fifo := tc.plant(t, t.TempDir())
			_, _, err := executeRootWithin(t, 10*time.Second, "replay", arg)
			if want := fifo + ": not a regular file (a FIFO)"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%v, want %q", err, want)
			}
			if code := status(err); code != ExitUsage {
				t.Errorf("exit %d, want %d", code, ExitUsage)
			}
		})
	}
}
