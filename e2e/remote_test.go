//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/remote"
)

// claudewrapCmd runs another claudewrap command (pending, answer) as a
// person would from another terminal, and returns its stdout, stderr and
// exit status.
func claudewrapCmd(t *testing.T, sb *claudetest.Sandbox, args ...string) (string, string, int) {
	t.Helper()
	return claudewrapEnv(t, sb, nil, args...)
}

// claudewrapEnv is claudewrapCmd with env added to the sandbox's.
func claudewrapEnv(t *testing.T, sb *claudetest.Sandbox, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(claudetest.Claudewrap(t), args...)
	cmd.Env = append(sb.Env(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

type pendingForm struct {
	Session   string `json:"session"`
	ToolUseID string `json:"tool_use_id"`
	Questions []struct {
		Question string `json:"question"`
		Options  []struct {
			Label       string `json:"label"`
			Description string `json:"description"`
		} `json:"options"`
	} `json:"questions"`
}

// waitPending waits until `claudewrap pending --json` lists a form of the
// session (other tests' sessions may be listed too).
func waitPending(t *testing.T, sb *claudetest.Sandbox, session string) pendingForm {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, errOut, code := claudewrapCmd(t, sb, "pending", "--json")
		var forms []pendingForm
		if code != 0 || json.Unmarshal([]byte(out), &forms) != nil {
			t.Fatalf("pending --json: exit %d %q %s", code, out, errOut)
		}
		for _, f := range forms {
			if f.Session == session {
				return f
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s never listed a pending form; pending says %s", session, out)
		}
		time.Sleep(200 * time.Millisecond) // polling another process under a deadline
	}
}

// waitingRun is a headless run on the database scenario whose form waits
// for an answer from anywhere (--on-unmatched wait).
type waitingRun struct {
	sb      *claudetest.Sandbox
	env     []string           // added to the sandbox's, for the run and its other commands
	session string             // the run's claudewrap pid, which names it
	evs     string             // its events file
	stderr  testkit.SyncBuffer // read while the run goes on
	done    chan error         // the run's end
}

// startWaiting starts a waitingRun with args added to its flags.
func startWaiting(t *testing.T, version string, args ...string) *waitingRun {
	t.Helper()
	return startWaitingOn(t, version, "testdata/scenarios/database.yaml", "version: 1\n", args, "pick a database")
}

// startWaitingOn starts a run of scenario under --on-unmatched wait with
// rulesYAML, flags added to claudewrap's and claude to Claude's arguments.
func startWaitingOn(t *testing.T, version, scenario, rulesYAML string, flags []string, claude ...string) *waitingRun {
	t.Helper()
	return startWaitingEnv(t, version, scenario, rulesYAML, nil, flags, claude...)
}

// startWaitingEnv is startWaitingOn with env added to the run's
// environment.
func startWaitingEnv(t *testing.T, version, scenario, rulesYAML string, env, flags []string, claude ...string) *waitingRun {
	t.Helper()
	return startWaitingIn(t, claudetest.New(t, version, scenario), rulesYAML, env, flags, claude...)
}

// startWaitingIn is startWaitingEnv in a sandbox the test prepared.
func startWaitingIn(t *testing.T, sb *claudetest.Sandbox, rulesYAML string, env, flags []string, claude ...string) *waitingRun {
	t.Helper()
	w := &waitingRun{sb: sb, env: env,
		evs: filepath.Join(t.TempDir(), "events.jsonl"), done: make(chan error, 1)}
	args := append([]string{"run", "--claude", w.sb.Claude, "--headless", "--exit-after-turn", "--on-unmatched", "wait",
		"--rules", writeRulesFile(t, rulesYAML), "--events", w.evs}, flags...)
	args = append(append(args, "--"), claude...)
	cmd := exec.Command(claudetest.Claudewrap(t), args...)
	cmd.Env, cmd.Dir = append(w.sb.Env(), env...), w.sb.Dir
	cmd.Stderr = &w.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	w.session = strconv.Itoa(cmd.Process.Pid)
	return w
}

// answerSQLite answers the form with claudewrap answer --select label,
// which must say Claude recorded SQLite, and waits for the run to end
// with exit 0.
func (w *waitingRun) answerSQLite(t *testing.T, label string) {
	t.Helper()
	out, errOut, code := claudewrapCmd(t, w.sb, "answer", w.session, "--select", label)
	if code != 0 || !strings.Contains(out, `verified: Claude recorded "Which database should we use?" = "SQLite"`) {
		t.Fatalf("answer --select %s: exit %d\n%s%s", label, code, out, errOut)
	}
	if err := w.end(t); err != nil {
		t.Fatalf("the run: %v\n%s", err, w.stderr.String())
	}
}

// TestRemoteAnswer: a headless run under --on-unmatched wait waits; the
// form shows in claudewrap pending, whole; a malformed answer is refused
// and changes nothing; claudewrap answer from another process answers it,
// and exits 0 once Claude recorded exactly that. The --notify command got
// the form.
func TestRemoteAnswer(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		notified := filepath.Join(t.TempDir(), "notified.json")
		w := startWaiting(t, version, "--notify", "cat > "+notified)
		sb, session := w.sb, w.session

		// claudewrap wait returns once a question waits (any session's).
		if out, errOut, code := claudewrapCmd(t, sb, "wait", "--timeout", "60s", "--json"); code != 0 || !strings.Contains(out, `"tool_use_id"`) {
			t.Fatalf("wait: exit %d %s %s", code, out, errOut)
		}
		f := waitPending(t, sb, session)
		if f.ToolUseID != "toolu_01database" || len(f.Questions) != 1 || len(f.Questions[0].Options) != 3 ||
			f.Questions[0].Options[1].Description != "Embedded, simple" {
			t.Fatalf("pending form %+v", f)
		}
		text, _, code := claudewrapCmd(t, sb, "pending")
		if code != 0 || !strings.Contains(text, "Which database should we use?") || !strings.Contains(text, "2. SQLite — Embedded, simple") {
			t.Errorf("pending (text): exit %d\n%s", code, text)
		}
		// Malformed: a label not offered, two answers for one question.
		if _, errOut, code := claudewrapCmd(t, sb, "answer", session, "--select", "Oracle"); code != 2 || !strings.Contains(errOut, `no option "Oracle"`) {
			t.Errorf("label not offered: exit %d %q", code, errOut)
		}
		// Labels are matched exactly, as a rule's select: another case is
		// refused, naming the label meant.
		if _, errOut, code := claudewrapCmd(t, sb, "answer", session, "--select", "sqlite"); code != 2 ||
			!strings.Contains(errOut, `no option "sqlite"; did you mean "SQLite"? labels are matched exactly`) {
			t.Errorf("label in another case: exit %d %q", code, errOut)
		}
		if _, errOut, code := claudewrapCmd(t, sb, "answer", session, "--answers", "[{select: SQLite}, {type: x}]"); code != 2 ||
			!strings.Contains(errOut, "asks 1 question; 2 answers given") {
			t.Errorf("two answers: exit %d %q", code, errOut)
		}
		w.answerSQLite(t, "SQLite")
		res := sb.API.ToolResults()
		if len(res) != 1 || !strings.Contains(res[0].Content, `"Which database should we use?"="SQLite"`) {
			t.Errorf("Claude recorded %+v", res)
		}
		if b, err := os.ReadFile(notified); err != nil || !strings.Contains(string(b), `"tool_use_id":"toolu_01database"`) ||
			!strings.Contains(string(b), "Which database should we use?") || !strings.Contains(string(b), `"pid":`+session+`,`) {
			t.Errorf("--notify got %q, %v", b, err)
		}
		if rest, _, _ := claudewrapCmd(t, sb, "pending", "--json"); strings.Contains(rest, `"session": "`+session+`"`) {
			t.Errorf("the ended session is still listed: %s", rest)
		}
		report("Claude Code %s: remote answer: pending shows the form, malformed answers refused, claudewrap answer verified (exit 0), --notify got the form", version)
	})
}

// TestRemoteUnshowable: a headless run waits on a form (--on-unmatched
// wait). Answers whose text Claude's screen cannot show as typed are
// refused before they take the form: claudewrap answer refuses --type "ok
// 👍🏽" and invalid UTF-8 itself (exit 2, one line); the session refuses
// the same answer from a program that speaks its protocol and checks
// nothing. Nothing is pressed, the form still waits, and claudewrap answer
// --select SQLite then answers it: verified, exit 0, Claude recorded only
// that. Before, the answer was taken and failed on the screen, the form
// was cancelled, and the next answer found no form.
func TestRemoteUnshowable(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		w := startWaiting(t, version)
		f := waitPending(t, w.sb, w.session)
		for _, tc := range []struct{ text, why string }{{"ok 👍🏽", "holds a skin tone"}, {"ok \xff", "is not valid UTF-8"}} {
			_, errOut, code := claudewrapCmd(t, w.sb, "answer", w.session, "--type", tc.text)
			if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") > 0 || !strings.Contains(errOut, "--type: ") || !strings.Contains(errOut, tc.why) {
				t.Errorf("answer --type %q: exit %d %q, want exit 2 and one line saying %q", tc.text, code, errOut, tc.why)
			}
		}
		o := answerUnchecked(t, w.session, f.ToolUseID, []answer.Decision{{Action: answer.Type, Text: "ok 👍🏽"}})
		if o.Result != "refused" || !strings.Contains(o.Message, "holds a skin tone") {
			t.Errorf("the session took %+v, want refused: holds a skin tone", o)
		}
		if again := waitPending(t, w.sb, w.session); again.ToolUseID != f.ToolUseID {
			t.Fatalf("pending %+v after the refused answers, want %s", again, f.ToolUseID)
		}
		w.answerSQLite(t, "SQLite")
		b, _ := os.ReadFile(w.evs)
		if res := w.sb.API.ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, `"Which database should we use?"="SQLite"`) ||
			strings.Contains(string(b), `"event":"cancelled"`) || strings.Contains(string(b), "ok 👍🏽") {
			t.Errorf("Claude recorded %+v\n%s", res, b)
		}
		report("Claude Code %s: remote answers with text the screen cannot show (skin tone, invalid UTF-8): refused by claudewrap answer (exit 2) and by the session, the form still waited, --select SQLite then verified", version)
	})
}

// answerUnchecked sends an answer to session's control socket as any
// program of the person's may, checking nothing first, and returns the
// session's reply. The run's environment (claudetest.Env) sets no
// XDG_RUNTIME_DIR, so the run lists itself under /tmp (remote.Dir).
func answerUnchecked(t *testing.T, session, toolUseID string, ds []answer.Decision) remote.Outcome {
	t.Helper()
	sock := filepath.Join("/tmp", fmt.Sprintf("claudewrap-%d", os.Getuid()), session+".sock")
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(remote.AnswerWait))
	req, _ := json.Marshal(map[string]any{"op": "answer", "tool_use_id": toolUseID, "answers": ds})
	if _, err := c.Write(append(req, '\n')); err != nil {
		t.Fatal(err)
	}
	var o remote.Outcome
	if err := json.NewDecoder(c).Decode(&o); err != nil {
		t.Fatalf("the session's reply: %v", err)
	}
	return o
}

// TestExecAnswer: examples/exec.yaml hands the database question to a
// program (examples/ask-llm.sh, with a stand-in for the LLM): its answer is
// driven and verified; a program whose answer is not an offered label
// leaves the question unmatched (exit 4 under fail), nothing recorded.
func TestExecAnswer(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		root := claudetest.Root(t)
		for _, tc := range []struct {
			reply string
			code  int
		}{{"SQLite", 0}, {"Oracle, surely", 4}} {
			sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
			llm := filepath.Join(t.TempDir(), "llm")
			if err := os.WriteFile(llm, []byte("#!/bin/sh\ncat >/dev/null\necho '"+tc.reply+"'\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			evs := filepath.Join(t.TempDir(), "events.jsonl")
			cmd := exec.Command(claudetest.Claudewrap(t), "run", "--claude", sb.Claude, "--headless", "--exit-after-turn",
				"--rules", filepath.Join(root, "examples", "exec.yaml"), "--events", evs, "--", "pick a database")
			cmd.Env, cmd.Dir = append(sb.Env(), "LLM="+llm), sb.Dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			b, _ := os.ReadFile(evs)
			res := sb.API.ToolResults()
			if code != tc.code {
				t.Fatalf("LLM says %q: exit %d, want %d\n%s\n%s", tc.reply, code, tc.code, stderr.String(), b)
			}
			if tc.code == 0 && (len(res) != 1 || !strings.Contains(res[0].Content, `"Which database should we use?"="SQLite"`) ||
				!strings.Contains(string(b), `"event":"verified"`)) {
				t.Fatalf("Claude recorded %+v\n%s", res, b)
			}
			// The one line on stderr says why the rule's program gave no answer.
			if tc.code != 0 && (!strings.Contains(stderr.String(), `its program "./ask-llm.sh" failed`) ||
				!strings.Contains(stderr.String(), "not one of the labels") || !strings.Contains(string(b), "not one of the labels")) {
				t.Fatalf("unmatched: stderr %q\n%s", stderr.String(), b)
			}
			for _, r := range res {
				if tc.code != 0 && !r.IsError {
					t.Errorf("Claude recorded %q", r.Content)
				}
			}
		}
		report("Claude Code %s: exec answer: the program's label verified; a reply that is no label left the question unmatched (exit 4)", version)
	})
}

// TestRemotePartlyRuled: a rule answers one question of three; the form
// waits for the other two, pending shows which rule decided which
// question, claudewrap answer gives only the open two, and Claude records
// all three: the rule's and the remote answer's.
func TestRemotePartlyRuled(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		w := startWaitingOn(t, version, "testdata/scenarios/three.yaml",
			"version: 1\nrules:\n  - {name: naming, when: {header: Naming}, answer: {select: camelCase}}\n", nil, "plan the project")
		waitPending(t, w.sb, w.session)
		out, errOut, code := claudewrapCmd(t, w.sb, "pending", "--json")
		var forms []struct {
			Session string `json:"session"`
			Decided []struct {
				Index int    `json:"index"`
				Rule  string `json:"rule"`
			} `json:"decided"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &forms) != nil {
			t.Fatalf("pending --json: exit %d %q %s", code, out, errOut)
		}
		ruled := false
		for _, f := range forms {
			ruled = ruled || f.Session == w.session && len(f.Decided) == 1 && f.Decided[0].Index == 3 && f.Decided[0].Rule == "naming"
		}
		if !ruled {
			t.Fatalf("pending does not show question 3 decided by rule naming:\n%s", out)
		}
		out, errOut, code = claudewrapCmd(t, w.sb, "answer", w.session, "--answers", "[{select: SQLite}, {select: [API, Auth]}]")
		if code != 0 || !strings.Contains(out, "verified") {
			t.Fatalf("answer the two open questions: exit %d\n%s%s", code, out, errOut)
		}
		if err := w.end(t); err != nil {
			t.Fatalf("the run: %v\n%s", err, w.stderr.String())
		}
		want := `"Which database should we use?"="SQLite", "Which features should we build?"="API, Auth", "How should we name things?"="camelCase"`
		var got string
		for _, res := range w.sb.API.ToolResults() {
			if res.ToolUseID == "toolu_01three" {
				got = res.Content
			}
		}
		if !strings.Contains(got, want) {
			t.Fatalf("tool_result %q, want %s", got, want)
		}
		report("Claude Code %s: a form with one question ruled and two answered with claudewrap answer: Claude recorded all three", version)
	})
}
