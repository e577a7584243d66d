//go:build e2e && full

package e2e

import (
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// TestHeadlessTerm: a headless run from a shell whose TERM has Claude draw
// without colours or in ASCII (none, as in CI; dumb; the Linux console's),
// or that asks for no colours (NO_COLOR, FORCE_COLOR=0), answers its form
// all the same: Claude draws on claudewrap's emulator and is told the
// terminal that is.
func TestHeadlessTerm(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		for _, env := range []string{"TERM=", "TERM=dumb", "TERM=linux", "NO_COLOR=1", "FORCE_COLOR=0"} {
			t.Run(env, func(t *testing.T) {
				sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
				r := runWrapped(t, sb, "version: 1\nrules:\n  - {when: {header: Database}, answer: {select: SQLite}}\n",
					[]string{env}, nil, "pick a database")
				if r.code != 0 || !r.has("verified") {
					t.Fatalf("exit %d, want the form answered and verified\n%s", r.code, r)
				}
				report("Claude Code %s: headless with %s: the form answered and verified", version, env)
			})
		}
	})
}
