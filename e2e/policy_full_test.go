//go:build e2e && full

package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/stress"
)

// TestPassthroughEscKitty: Claude on a kitty's terminal, its queries
// answered as a kitty answers them; an unmatched question is the person's,
// and they press Esc, which the terminal sends as CSI 27 u once Claude has
// turned the kitty keyboard protocol on (2.1.332 does; 2.1.197 does not,
// and gets a bare ESC). claudewrap reports the form cancelled by the person
// and the turn ends (it took only a bare ESC for Esc, and left the form
// handed over with nothing reported).
func TestPassthroughEscKitty(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		tr, tty := startOnTTYAs(t, stress.Kitty, version, "testdata/scenarios/database.yaml", "pick a database", nil, "--exit-after-turn")
		tty.Close()
		waitText(t, tr.screen, 60*time.Second, "5. Chat about this")
		esc, how := "\x1b", "a bare ESC: Claude left the kitty keyboard protocol off"
		if regexp.MustCompile(`\x1b\[>[1-9][0-9]*u`).MatchString(tr.text()) {
			esc, how = "\x1b[27u", "CSI 27 u"
		} else if minor(version) >= 332 {
			t.Fatalf("Claude never pushed kitty keyboard flags on a kitty's terminal:\n%q", tr.text())
		}
		tr.ptmx.Write([]byte(esc))
		r := tr.wait(t)
		var byPerson bool
		for _, e := range r.find("cancelled") {
			byPerson = byPerson || e["by"] == "person"
		}
		if !byPerson || len(r.find("handed_over")) != 1 || len(r.find("verified")) != 0 {
			t.Fatalf("want the form handed over, then cancelled by the person (Esc as %s)\n%s", how, r)
		}
		report("Claude Code %s: passthrough on a kitty's terminal: the person's Esc (%s) cancelled the form, reported", version, how)
	})
}

// TestPassthroughTimeout: the person does not answer; after --answer-timeout
// claudewrap gives the fallback answer on their screen.
func TestPassthroughTimeout(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		rulesFile := writeRulesFile(t, `version: 1
defaults:
  fallback: {type: "The person stepped away."}
rules: []
`)
		tr := startInTerminal(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--exit-after-turn", "--rules", rulesFile, "--answer-timeout", "2s")
		r := tr.wait(t)
		res := r.toolResult(t, "toolu_01database")
		if !strings.Contains(res.Content, `="The person stepped away."`) || len(r.find("timeout")) != 1 || len(r.find("verified")) != 1 {
			t.Fatalf("tool_result %q\n%s", res.Content, r)
		}
		report("Claude Code %s: passthrough timeout: fallback answer verified", version)
	})
}
