//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/vt"
)

// TestLabelNotOffered: a rule that names a label the form does not offer
// leaves the question unmatched (reported with the reason); under fail the
// form is cancelled, nothing is submitted, and the exit status is 4.
func TestLabelNotOffered(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, "  - {name: wrong, answer: {select: Oracle}}\n"), "--on-unmatched", "fail", "--exit-after-turn")
		un := r.find("unmatched")
		if r.code != 4 || len(un) != 1 || !strings.Contains(fmt.Sprint(un[0]["reason"]), `label "Oracle" is not offered`) {
			t.Fatalf("want exit 4 and an unmatched event naming the label\n%s", r)
		}
		if len(r.find("cancelled")) != 1 || len(r.find("key")) != 1 {
			t.Errorf("want the form cancelled with one key (Esc)\n%s", r)
		}
		// The last line on stderr says why: which question, and the rule
		// that could not answer it.
		if l := lastLine(r.stderr); !strings.Contains(l, `the question "Which database should we use?" is unmatched: rule "wrong"`) ||
			!strings.Contains(l, `label "Oracle" is not offered`) || !strings.HasSuffix(l, "; unmatched questions fail the run") {
			t.Errorf("want stderr's last line naming the question and the rule's reason, got %q", r.stderr)
		}
		for _, res := range r.sb.API.ToolResults() {
			if !res.IsError {
				t.Errorf("Claude recorded %q", res.Content)
			}
		}
		report("Claude Code %s: label not offered: unmatched, cancelled, exit 4", version)
	})
}

// TestFallbackPolicy: with --on-unmatched fallback the rules' fallback
// answer is typed.
func TestFallbackPolicy(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		rulesFile := writeRulesFile(t, `version: 1
defaults:
  fallback: {type: "No answer was available; use your judgment."}
rules: []
`)
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", rulesFile, "--on-unmatched", "fallback", "--exit-after-turn")
		res := r.toolResult(t, "toolu_01database")
		if want := `="No answer was available; use your judgment."`; !strings.Contains(res.Content, want) || r.code != 0 ||
			len(r.find("verified")) != 1 {
			t.Fatalf("tool_result %q, want %s verified\n%s", res.Content, want, r)
		}
		report("Claude Code %s: fallback policy: typed fallback verified", version)
	})
}

func writeRulesFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// terminalRun is claudewrap started on a PTY that stands for the person's
// terminal.
type terminalRun struct {
	cmd    *exec.Cmd
	ptmx   *os.File
	mu     sync.Mutex
	shown  bytes.Buffer
	screen vt.Emulator // what the person sees
	done   chan struct{}
	read   chan struct{} // closed when the terminal has nothing more to read
	// drains is set when claudewrap holds the terminal's only copy, so
	// its exit ends what the terminal reads.
	drains bool
	sb     *claudetest.Sandbox
	events string
}

func (tr *terminalRun) text() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.shown.String()
}

// waitShown waits until the person's terminal has received want.
func (tr *terminalRun) waitShown(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(tr.text(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it showed %q", want, tail(tr.text(), 3000))
		}
		time.Sleep(20 * time.Millisecond) // polling a buffer under a deadline
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// wait waits for claudewrap to exit and returns its status and events.
func (tr *terminalRun) wait(t *testing.T) *run {
	t.Helper()
	select {
	case <-tr.done:
	case <-time.After(90 * time.Second):
		tr.cmd.Process.Kill()
		<-tr.done
		t.Fatalf("claudewrap did not exit; terminal: %q", tail(tr.text(), 3000))
	}
	if tr.drains {
		select {
		case <-tr.read: // what claudewrap wrote last is in tr.text()
		case <-time.After(10 * time.Second):
			t.Fatalf("the terminal was still being read 10s after claudewrap exited")
		}
	}
	r := &run{code: tr.cmd.ProcessState.ExitCode(), sb: tr.sb}
	r.readEvents(t, tr.events)
	return r
}

// startInTerminal runs the claudewrap binary on a fresh PTY of 100x40.
func startInTerminal(t *testing.T, version, scenario, prompt string, args ...string) *terminalRun {
	t.Helper()
	tr, tty := startOnTTY(t, version, scenario, prompt, nil, args...)
	tty.Close() // claudewrap holds the only copy: its exit ends the PTY
	tr.drains = true
	return tr
}

// TestAskPrompt drives claudewrap's own prompt through a PTY: headless, with
// a terminal at hand, an unmatched question is asked there; the answer
// typed is given to Claude's form and verified.
func TestAskPrompt(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		tr := startInTerminal(t, version, "testdata/scenarios/three.yaml", "plan the project",
			"--headless", "--exit-after-turn", "--rules", writeRules(t, "  - {when: {header: Naming}, answer: {select: camelCase}}\n"))
		tr.waitShown(t, "[Database] Which database should we use?")
		tr.waitShown(t, "> ")
		tr.ptmx.Write([]byte("9\r")) // not an option: asked again
		tr.waitShown(t, "9 is not an option")
		tr.ptmx.Write([]byte("2\r"))
		tr.waitShown(t, "[Features] Which features should we build?")
		tr.ptmx.Write([]byte("4, 1\r"))
		r := tr.wait(t)
		res := r.toolResult(t, "toolu_01three")
		want := `"Which database should we use?"="SQLite", "Which features should we build?"="API, Auth", "How should we name things?"="camelCase"`
		if !strings.Contains(res.Content, want) || r.code != 0 || len(r.find("verified")) != 1 {
			t.Fatalf("tool_result %q, want %s\n%s", res.Content, want, r)
		}
		if strings.Contains(tr.text(), "Claude Code v") {
			t.Errorf("a headless run drew Claude on the terminal")
		}
		report("Claude Code %s: ask prompt through a PTY: answers verified", version)
	})
}

// TestAskTimeoutFallback: nobody answers the prompt; after --answer-timeout
// the fallback answer is given.
func TestAskTimeoutFallback(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		rulesFile := writeRulesFile(t, `version: 1
defaults:
  fallback: {type: "Nobody was there; pick the simplest."}
rules: []
`)
		tr := startInTerminal(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--headless", "--exit-after-turn", "--rules", rulesFile, "--on-unmatched", "ask", "--answer-timeout", "1s")
		tr.waitShown(t, "Which database should we use?")
		r := tr.wait(t)
		res := r.toolResult(t, "toolu_01database")
		if !strings.Contains(res.Content, `="Nobody was there; pick the simplest."`) || r.code != 0 ||
			len(r.find("timeout")) != 1 || len(r.find("verified")) != 1 {
			t.Fatalf("tool_result %q\n%s", res.Content, r)
		}
		report("Claude Code %s: ask timed out: fallback answer verified", version)
	})
}

// TestPassthrough: Claude is on the person's terminal; an unmatched question
// is theirs to answer in Claude's own menu, and claudewrap reports it.
func TestPassthrough(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		tr := startInTerminal(t, version, "testdata/scenarios/database.yaml", "pick a database", "--exit-after-turn")
		waitText(t, tr.screen, 60*time.Second, "5. Chat about this")
		tr.ptmx.Write([]byte("\x1b[B")) // the person moves to SQLite
		waitText(t, tr.screen, 10*time.Second, "❯ 2. SQLite")
		tr.ptmx.Write([]byte("\r"))
		r := tr.wait(t)
		res := r.toolResult(t, "toolu_01database")
		if !strings.Contains(res.Content, `="SQLite"`) || len(r.find("handed_over")) != 1 || len(r.find("verified")) != 0 {
			t.Fatalf("tool_result %q\n%s", res.Content, r)
		}
		var byPerson bool
		for _, e := range r.find("submitted") {
			byPerson = byPerson || e["by"] == "person"
		}
		if !byPerson {
			t.Errorf("want a submitted event by the person\n%s", r)
		}
		report("Claude Code %s: passthrough: the person answered in Claude's menu", version)
	})
}

// TestPartlyRuledAtTerminal: Claude is on the person's terminal and asks a
// form whose first question a rule answers and whose second none does. The
// rule's answer is given on the screen, then the form is the person's at
// the second question, and claudewrap says so; the person answers it in
// Claude's menu. Claude records both, and the rule's answer is reported
// kept.
func TestPartlyRuledAtTerminal(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		tr := startInTerminal(t, version, "testdata/scenarios/duo.yaml", "pick two things", "--exit-after-turn",
			"--rules", writeRules(t, "  - {name: db, when: {header: Database}, answer: {select: SQLite}}\n"))
		waitText(t, tr.screen, 60*time.Second, "Which cache should we use?", "2. Memcached")
		// The person takes the form once claudewrap has handed it over (a key
		// of theirs before that takes the whole form over).
		if !waitFileOr(tr.events, `"event":"handed_over"`, 30*time.Second) {
			t.Fatalf("the form was not handed over; terminal: %q", tail(tr.text(), 2000))
		}
		tr.ptmx.Write([]byte("\x1b[B")) // the person moves to Memcached
		waitText(t, tr.screen, 10*time.Second, "❯ 2. Memcached")
		tr.ptmx.Write([]byte("\r"))
		waitText(t, tr.screen, 10*time.Second, "Submit answers")
		tr.ptmx.Write([]byte("\r"))
		r := tr.wait(t)
		res := r.toolResult(t, "toolu_01duo")
		if !strings.Contains(res.Content, `"Which database should we use?"="SQLite"`) || !strings.Contains(res.Content, `"Which cache should we use?"="Memcached"`) {
			t.Fatalf("tool_result %q\n%s", res.Content, r)
		}
		var handed, kept bool
		for _, e := range r.find("handed_over") {
			handed = handed || strings.Contains(fmt.Sprint(e["reason"]), `the rules answered question 1 ("Database") on the screen`)
		}
		for _, e := range r.find("submitted") {
			kept = kept || e["by"] == "person" && strings.Contains(fmt.Sprint(e["kept_rules"]), "SQLite")
		}
		if !handed || !kept || len(r.find("key")) == 0 || r.code != 0 {
			t.Fatalf("want the rule's answer keyed, the form handed over at question 2, the rule's answer reported kept\n%s", r)
		}
		if !strings.Contains(tr.text(), `verified: Claude recorded rule "db"'s answer "SQLite"`) {
			t.Errorf("the terminal does not say the rule's answer was recorded:\n%s", tail(tr.text(), 2000))
		}
		report("Claude Code %s: a partly ruled form at the terminal: the rule's question answered on the screen, the rest the person's, both recorded", version)
	})
}
