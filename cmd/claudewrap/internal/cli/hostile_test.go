package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/bundle"
	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/remote"
)

// hostileForm is a form with testkit.Hostile in every field Claude fills in.
func hostileForm() []answer.Question {
	h := testkit.Hostile
	return []answer.Question{{Question: "Deploy? " + h, Header: "Ship" + h, Options: []answer.Option{
		{Label: "Yes " + h, Description: "now " + h, Preview: "diff " + h}, {Label: "No"}}}}
}

// hostileCast is a recording that draws testkit.Hostile, then leaves a
// bidi override on the screen.
func hostileCast(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := cast.NewWriter(&b, 60, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	w.Output([]byte(testkit.Hostile + "\r\nDeploy \u202etxt.exe\u202c now"))
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeFile writes a file under dir and returns its path.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHostileTextEscaped: text from Claude, a session or a file that would
// take over the terminal (a clipboard write, a clear screen, a title, C1
// controls, a bidi override, a CR with a fake verdict) is printed escaped
// by every command that shows it, in its words and in its JSON.
func TestHostileTextEscaped(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	h := testkit.Hostile
	reg, err := remote.Register(answerHandler{
		forms:   []remote.Form{{ToolUseID: "toolu_" + h, Since: time.Now(), Questions: hostileForm()}},
		outcome: remote.Outcome{Result: "verified", Recorded: map[string]string{"Deploy? " + h: "Yes " + h}},
	}, "/tmp/"+h, remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	dir := t.TempDir()
	form, _ := json.Marshal(map[string]any{"questions": hostileForm()})
	bundleOf := func(step string) func(t *testing.T) []string {
		return func(t *testing.T) []string {
			d, err := bundle.Write(t.TempDir(), bundle.Report{Time: time.Now(), ToolUseID: "toolu_" + h, Questions: hostileForm(),
				Decisions: []string{"chat " + strconv.Quote(h)}, Step: step, Reason: "Enter had no effect " + h, Keys: 1}, hostileCast(t))
			if err != nil {
				t.Fatal(err)
			}
			return []string{"replay", d}
		}
	}
	args := func(a ...string) func(*testing.T) []string { return func(*testing.T) []string { return a } }
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
		want string // how the hostile text shows
		json bool
	}{
		{"pending", args("pending"), testkit.HostileShown, false},
		{"pending --json", args("pending", "--json"), `\u009b31m\u202e`, true},
		{"wait", args("wait", "--timeout", "10s"), testkit.HostileShown, false},
		{"wait --json", args("wait", "--timeout", "10s", "--json"), `\u009b31m\u202e`, true},
		{"answer --json", args("answer", strconv.Itoa(os.Getpid()), "--select", "No", "--json"), `\u009b31m\u202e`, true},
		{"replay of a recording", func(t *testing.T) []string {
			return []string{"replay", writeFile(t, t.TempDir(), "x.cast", hostileCast(t))}
		}, `Deploy \u202etxt.exe\u202c now`, false},
		{"replay of a bug report", bundleOf("tick"), "Enter had no effect " + testkit.HostileShown, false},
		{"replay of a chat message's bug report", bundleOf("message"), "Enter had no effect " + testkit.HostileShown, false},
		{"rules test of a form", args("rules", "test", writeFile(t, dir, "r.yaml", []byte("version: 1\n")),
			"--form", writeFile(t, dir, "form.json", form)), "1. [Ship" + testkit.HostileShown, false},
		{"rules allow in a folder so named", func(t *testing.T) []string {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			folder := filepath.Join(t.TempDir(), h)
			if err := os.Mkdir(folder, 0o700); err != nil {
				t.Fatal(err)
			}
			return []string{"rules", "allow", writeFile(t, folder, ".claudewrap.yaml", []byte("version: 1\n"))}
		}, `\rclaudewrap: verified/.claudewrap.yaml (sha256`, false},
		{"rules check of a bad pattern", args("rules", "check", writeFile(t, dir, "bad.yaml",
			[]byte("version: 1\nrules:\n  - when: {question: \"(\\e]52;c;ZXZpbA==\\a\"}\n    answer: {select: A}\n"))), testkit.HostileShown, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, err := executeRoot(t, tc.args(t)...)
			out := stdout + stderr
			if bad := testkit.Unescaped(out); bad != "" {
				t.Errorf("printed raw: %s (exit %d, %v)", bad, status(err), err)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("no %q in:\n%s\n(exit %d, %v)", tc.want, out, status(err), err)
			}
			if tc.json {
				var v any
				if err := json.Unmarshal([]byte(stdout), &v); err != nil {
					t.Errorf("not JSON: %v\n%s", err, stdout)
				}
				if b, _ := json.Marshal(v); !strings.Contains(string(b), `ZXZpbA==\u0007`) {
					t.Errorf("the JSON lost the text: %s", b)
				}
			}
		})
	}
}

// TestHostileTextEscapedOnTerminal runs claudewrap as a process with its
// stderr on a terminal: a run's lines for the person (a fake Claude sends
// a hook holding hostile text) and the reason Main prints when a command
// fails show that text escaped.
func TestHostileTextEscapedOnTerminal(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	h := testkit.Hostile
	reg, err := remote.Register(answerHandler{
		forms:   []remote.Form{{ToolUseID: "toolu_1", Since: time.Now(), Questions: hostileForm()}},
		outcome: remote.Outcome{Result: "failed", Message: "the screen showed " + h},
	}, "/", remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	dir := t.TempDir()
	claude := fakeClaudeScript(t)
	noRules := writeFile(t, dir, "none.yaml", []byte("version: 1\n"))
	failAll := writeFile(t, dir, "fail.yaml", []byte("version: 1\npermissions:\n  - name: stop\n    when: {tool: \".*\"}\n    decide: fail\n"))
	writeFile(t, dir, "prog", []byte("#!/bin/sh\nprintf 'no \\033]52;c;ZXZpbA==\\007\\033[2J\\302\\233\\rclaudewrap: verified' >&2\nexit 1\n"))
	program := writeFile(t, dir, "exec.yaml", []byte("version: 1\nrules:\n  - name: prog\n    when: {question: Deploy}\n    answer: {exec: [./prog]}\n"))
	permission, _ := json.Marshal(map[string]any{"hook_event_name": "PermissionRequest", "session_id": "s1", "tool_name": h, "tool_input": map[string]any{}})
	question, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": "AskUserQuestion",
		"tool_use_id": "toolu_1", "tool_input": map[string]any{"questions": hostileForm()}})
	run := func(rules string, more ...string) []string {
		return append([]string{"run", "--claude", claude, "--rules", rules, "--on-unmatched", "fail"}, more...)
	}
	for _, tc := range []struct {
		name string
		args []string
		code ExitCode
		want []string
	}{
		{"run: a permission no rule decides", run(noRules, "--", "hook", "PermissionRequest", string(permission), "exit", "0"), ExitOK,
			[]string{"claudewrap: no permission rule for " + testkit.HostileShown}},
		{"run: a permission rule that ends the run", run(failAll, "--", "hook", "PermissionRequest", string(permission), "sleep"), 7,
			[]string{"claudewrap: blocked: permission rule \"stop\"", "ends the run at " + testkit.HostileShown}},
		{"run: a rule's program that fails", run(program, "--dry-run", "--", "hook", "PreToolUse", string(question), "sleep"), ExitUnmatched,
			[]string{`its stderr: no \x1b]52;c;ZXZpbA==\a\x1b[2J\u009b claudewrap: verified`}},
		{"answer: the outcome", []string{"answer", strconv.Itoa(os.Getpid()), "--select", "No"}, ExitError,
			[]string{"claudewrap: failed: the screen showed " + testkit.HostileShown}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(self, tc.args...)
			cmd.Dir = dir
			shown, events, code := runWithTerminalStderr(t, cmd)
			if code != int(tc.code) {
				t.Errorf("exit %d, want %d; terminal showed %q", code, tc.code, shown)
			}
			if bad := testkit.Unescaped(shown); bad != "" {
				t.Errorf("the terminal got raw: %s", bad)
			}
			for _, w := range tc.want {
				if !strings.Contains(shown, w) {
					t.Errorf("no %q on the terminal:\n%s", w, shown)
				}
			}
			if bad := testkit.Unescaped(events); bad != "" {
				t.Errorf("the events got raw: %s", bad)
			}
		})
	}
}

// runWithTerminalStderr runs cmd as claudewrap with its stderr on a fresh
// terminal and its stdout in a buffer, and returns what each got and the
// exit status.
func runWithTerminalStderr(t *testing.T, cmd *exec.Cmd) (shown, stdout string, code int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var out, term testkit.SyncBuffer
	cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
	cmd.Stdout, cmd.Stderr = &out, tty
	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(&term, ptmx) // until the terminal's last holder closes it
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	code = exitCode(t, cmd)
	tty.Close()
	select {
	case <-read:
	case <-time.After(10 * time.Second):
		t.Fatalf("the terminal was never closed; it showed %q", term.String())
	}
	return term.String(), out.String(), code
}
