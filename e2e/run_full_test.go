//go:build e2e && full

package e2e

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// TestVimMode: Claude's vim mode on (editorMode "vim", as /vim leaves it).
// 2.1.321 and later type "Type something" in vim's insert mode, their
// footer "-- INSERT -- · …" with no "Esc to cancel": the three questions,
// the last a typed answer, are answered and verified all the same.
func TestVimMode(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/three.yaml")
		if err := claudetest.Configure(sb.Home, map[string]any{"editorMode": "vim"}); err != nil {
			t.Fatal(err)
		}
		r := runIn(t, sb, "plan the project", "", "--rules", abs(t, "testdata/rules/three.yaml"), "--exit-after-turn")
		res := r.toolResult(t, "toolu_01three")
		want := `"How should we name things?"="snake_case, like the rest of the repo"`
		if res.IsError || !strings.Contains(res.Content, want) || len(r.find("verified")) != 1 || r.code != 0 {
			t.Fatalf("tool_result %q, want %s, verified, exit 0\n%s", res.Content, want, r)
		}
		insert := "no insert mode"
		if b, err := os.ReadFile(r.cast); err == nil && bytes.Contains(b, []byte("-- INSERT -- ·")) {
			insert = `"-- INSERT --" on the form`
		} else if minor(version) >= 321 {
			t.Errorf("Claude never drew its insert mode's footer on the form: not its vim mode")
		}
		report("Claude Code %s: vim mode (%s): three questions answered, the typed one too, and verified", version, insert)
	})
}
