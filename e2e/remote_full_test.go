//go:build e2e && full

package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// TestRemoteRace: the person is asked on claudewrap's prompt while an
// answer comes from another process: the first wins, the prompt says it is
// no longer asked and who answered, exactly one answer is submitted, and a
// second remote answer is told the form was taken.
func TestRemoteRace(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		tr := startInTerminal(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--headless", "--exit-after-turn", "--rules", writeRulesFile(t, "version: 1\n"))
		tr.waitShown(t, "Ctrl-C: end the run")
		session := strconv.Itoa(tr.cmd.Process.Pid)
		waitPending(t, tr.sb, session)
		out, errOut, code := claudewrapCmd(t, tr.sb, "answer", session, "--index", "3")
		if code != 0 || !strings.Contains(out, `= "MongoDB"`) {
			t.Fatalf("remote answer: exit %d\n%s%s\nterminal: %s", code, out, errOut, tail(tr.text(), 2000))
		}
		tr.waitShown(t, "(no longer asked: answered from elsewhere (claudewrap answer, pid ")
		tr.ptmx.Write([]byte("1\r")) // too late: nobody asks any more
		r := tr.wait(t)
		res := r.toolResult(t, "toolu_01database")
		if r.code != 0 || !strings.Contains(res.Content, `"Which database should we use?"="MongoDB"`) || len(r.sb.API.ToolResults()) != 1 {
			t.Fatalf("exit %d, Claude recorded %+v\n%s", r.code, r.sb.API.ToolResults(), r)
		}
		if _, errOut, code := claudewrapCmd(t, tr.sb, "answer", session, "--index", "1"); code == 0 {
			t.Errorf("a second answer to an ended session: exit 0 %q", errOut)
		}
		report("Claude Code %s: remote answer raced the ask prompt: the first won, the prompt said so, one answer recorded", version)
	})
}
