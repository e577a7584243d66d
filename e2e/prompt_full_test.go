//go:build e2e && full

package e2e

import (
	"strings"
	"testing"
)

// TestAskPromptKeys: the ask prompt at a terminal (a PTY), on the real
// Claude Code, as a person uses it: a label typed (any case) selects it and
// is verified, with the summary on the terminal; Ctrl-D is no answer (the
// form is cancelled, exit 0); Ctrl-C ends the run with 130, the form
// cancelled, the reason on the terminal.
func TestAskPromptKeys(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		start := func() *terminalRun {
			return startInTerminal(t, version, "testdata/scenarios/database.yaml", "pick a database",
				"--headless", "--exit-after-turn", "--rules", writeRulesFile(t, "version: 1\n"))
		}
		tr := start()
		tr.waitShown(t, "Ctrl-C: end the run")
		tr.ptmx.Write([]byte("sqlite\r"))
		r := tr.wait(t)
		res := r.toolResult(t, "toolu_01database")
		if r.code != 0 || !strings.Contains(res.Content, `"Which database should we use?"="SQLite"`) {
			t.Fatalf("label: exit %d, tool_result %q\n%s", r.code, res.Content, r)
		}
		// The terminal may not have been read to its end yet when the run
		// exits: read on, under a deadline.
		tr.waitShown(t, `verified: Claude recorded "Which database should we use?" = "SQLite"`)
		tr.waitShown(t, "1 form asked, 1 answered by you, 1 verified")

		tr = start()
		tr.waitShown(t, "Ctrl-C: end the run")
		tr.ptmx.Write([]byte{4})
		r = tr.wait(t)
		tr.waitShown(t, "(no answer")
		if r.code != 0 || len(r.find("cancelled")) != 1 {
			t.Fatalf("Ctrl-D: want the form cancelled, exit 0; got exit %d\n%s\nterminal:\n%s", r.code, r, tail(tr.text(), 2000))
		}

		tr = start()
		tr.waitShown(t, "Ctrl-C: end the run")
		tr.ptmx.Write([]byte("Post\x03"))
		r = tr.wait(t)
		tr.waitShown(t, "claudewrap: interrupted (Ctrl-C)")
		if r.code != 130 || len(r.find("cancelled")) != 1 {
			t.Fatalf("Ctrl-C: want the form cancelled, exit 130 and the reason; got exit %d\n%s\nterminal:\n%s", r.code, r, tail(tr.text(), 2000))
		}
		for _, res := range r.sb.API.ToolResults() {
			if !res.IsError {
				t.Errorf("Ctrl-C: Claude recorded %q", res.Content)
			}
		}
		report("Claude Code %s: ask prompt keys at a PTY: a typed label verified with the summary; Ctrl-D no answer (cancelled, exit 0); Ctrl-C cancelled, exit 130", version)
	})
}
