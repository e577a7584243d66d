//go:build e2e

package e2e

import (
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// TestHeadlessTerm: a headless run from a shell whose TERM has Claude draw
// without colours or in ASCII (none, as in CI; dumb; the Linux console's)
// answers its form all the same: Claude draws on claudewrap's emulator and
// is told the terminal that is.
func TestHeadlessTerm(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		for _, term := range []string{"", "dumb", "linux"} {
			t.Run("TERM="+term, func(t *testing.T) {
				sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
				r := runWrapped(t, sb, "version: 1\nrules:\n  - {when: {header: Database}, answer: {select: SQLite}}\n",
					[]string{"TERM=" + term}, nil, "pick a database")
				if r.code != 0 || !r.has("verified") {
					t.Fatalf("exit %d, want the form answered and verified\n%s", r.code, r)
				}
				report("Claude Code %s: headless with TERM=%q: the form answered and verified", version, term)
			})
		}
	})
}
