package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

// TestMain lets the test binary stand in for claudewrap itself and for a
// fake claude, so the tests below run real processes in real PTYs.
func TestMain(m *testing.M) {
	switch os.Getenv("CLI_TEST_AS") {
	case "claudewrap":
		os.Args = append([]string{"claudewrap"}, os.Args[1:]...)
		os.Exit(int(Main()))
	case "claude":
		os.Exit(fakeClaude(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeClaude behaves like a TUI: it turns on the modes Claude uses, runs
// one of claudewrap's hooks if asked to, then exits or waits to be killed.
func fakeClaude(args []string) int {
	var settings string
	if len(args) > 1 && args[0] == "--settings" {
		settings, args = args[1], args[2:] // claudewrap's hooks
	}
	term.MakeRaw(0)
	os.Stdout.WriteString("\x1b[?2004h\x1b[?1004h\x1b[>1u\x1b[?25l") // paste, focus, kitty, hidden cursor
	fmt.Printf("pid %d ready\r\n", os.Getpid())
	if args[0] == "orphan" {
		// A process that keeps the terminal open and ignores the hang-up
		// and SIGTERM, as a backgrounded `trap "" HUP` job would.
		o := exec.Command("/bin/sh", "-c", `trap "" HUP TERM; exec sleep 30`)
		o.Stdin, o.Stdout, o.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := o.Start(); err != nil {
			return 2
		}
		fmt.Printf("orphan %d\r\n", o.Process.Pid)
		args = args[1:]
	}
	if args[0] == "hook" {
		// hook EVENT JSON: the hook Claude would run for EVENT, given JSON.
		if err := runHook(settings, args[1], args[2]); err != nil {
			fmt.Printf("hook: %v\r\n", err)
			return 2
		}
		args = args[3:]
	}
	switch args[0] {
	case "exit":
		n, _ := strconv.Atoi(args[1])
		return n
	case "sleep":
		select {}
	}
	return 2
}

// runHook runs the command claudewrap's --settings (a file) give for
// event, with payload on its stdin, as Claude Code runs a hook.
func runHook(settings, event, payload string) error {
	var cfg struct {
		Hooks map[string][]struct{ Hooks []struct{ Command string } }
	}
	b, err := os.ReadFile(settings)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return err
	}
	if len(cfg.Hooks[event]) == 0 || len(cfg.Hooks[event][0].Hooks) == 0 {
		return fmt.Errorf("no %s hook in %s", event, settings)
	}
	cmd := exec.Command("/bin/sh", "-c", cfg.Hooks[event][0].Hooks[0].Command)
	cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
	cmd.Stdin = strings.NewReader(payload)
	return cmd.Run()
}

// waitFor waits until the terminal has shown want, with a deadline.
func waitFor(t *testing.T, b *testkit.SyncBuffer, want string) string {
	t.Helper()
	return b.WaitFor(t, want, 10*time.Second)
}

// fakeClaudeScript writes a claude that is this binary as the fake claude:
// claudewrap passes its environment on, so a script tells the child apart.
func fakeClaudeScript(t *testing.T) string {
	t.Helper()
	exe, _ := os.Executable()
	claude := filepath.Join(t.TempDir(), "claude")
	script := fmt.Sprintf("#!/bin/sh\nCLI_TEST_AS=claude exec %q \"$@\"\n", exe)
	if err := os.WriteFile(claude, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return claude
}

// runInTerminal starts claudewrap (this binary) on a fresh PTY standing for
// the person's terminal, with the fake claude as the child.
func runInTerminal(t *testing.T, childArgs ...string) (cmd *exec.Cmd, tty *os.File, out *testkit.SyncBuffer, before *unix.Termios) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	pty.Setsize(tty, &pty.Winsize{Cols: 100, Rows: 30})
	before, err = testkit.Termios(tty)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	args := append([]string{"run", "--claude", fakeClaudeScript(t), "--"}, childArgs...)
	cmd = exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	out = &testkit.SyncBuffer{}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, tty, out, before
}

func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("claudewrap did not exit")
	}
	return cmd.ProcessState.ExitCode()
}

func TestTerminalRestored(t *testing.T) {
	for _, tc := range []struct {
		name  string
		child []string
		act   func(t *testing.T, cmd *exec.Cmd, shown string)
		want  int
	}{
		{"child exits", []string{"exit", "5"}, nil, 5},
		{"claudewrap gets SIGTERM", []string{"sleep"}, func(t *testing.T, cmd *exec.Cmd, _ string) {
			cmd.Process.Signal(syscall.SIGTERM)
		}, 128 + 15},
		// Claude's terminal stays open after Claude is gone: the run still
		// ends, with Claude's status (it relied on a read deadline that
		// never fired on the PTY, and SIGTERM did not end it).
		{"child exits, a grandchild holds its terminal", []string{"orphan", "exit", "3"}, nil, 3},
		{"claudewrap gets SIGTERM, a grandchild holds the terminal", []string{"orphan", "sleep"}, func(t *testing.T, cmd *exec.Cmd, _ string) {
			cmd.Process.Signal(syscall.SIGTERM)
		}, 128 + 15},
		{"child is killed", []string{"sleep"}, func(t *testing.T, cmd *exec.Cmd, shown string) {
			var pid int
			fmt.Sscanf(shown[strings.Index(shown, "pid "):], "pid %d", &pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}, 128 + 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, tty, out, before := runInTerminal(t, tc.child...)
			shown := waitFor(t, out, "ready")
			if i := strings.Index(shown, "orphan "); i >= 0 {
				var pid int
				fmt.Sscanf(shown[i:], "orphan %d", &pid)
				t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			}
			if tc.act != nil {
				tc.act(t, cmd, shown)
			}
			if code := exitCode(t, cmd); code != tc.want {
				t.Errorf("exit %d, want %d; terminal showed %q", code, tc.want, out.String())
			}
			after, err := testkit.Termios(tty)
			if err != nil {
				t.Fatal(err)
			}
			if *after != *before {
				t.Errorf("termios not restored:\nbefore %+v\nafter  %+v", before, after)
			}
			// Modes the child turned on are turned off again, cursor shown.
			shown = waitFor(t, out, "\x1b[?25h")
			for _, seq := range []string{"\x1b[?2004l", "\x1b[?1004l", "\x1b[<99u"} {
				if !strings.Contains(shown[strings.Index(shown, "ready"):], seq) {
					t.Errorf("terminal never got %q", seq)
				}
			}
		})
	}
}

// TestExitReasonLines: a reason of several lines (a rules file's errors,
// one a line) says on each whose it is.
func TestExitReasonLines(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nrules:\n  - when: {header: \"(\"}\n    answer: {selekt: A}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "run", "--headless", "--claude", filepath.Join(dir, "nowhere"), "--rules", bad)
	cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || len(lines) < 2 {
		t.Fatalf("%v; stderr %q: want exit 2 and a line for each error", err, stderr.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "claudewrap: ") {
			t.Errorf("stderr line %q does not say whose it is", l)
		}
	}
}

// TestExitReasons: a run claudewrap ends with a status of its own says why
// in one line on stderr, and (a run that cannot start too) ends its event
// log with an exit event giving the status and the reason.
func TestExitReasons(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rules := filepath.Join(dir, "r.yaml")
	if err := os.WriteFile(rules, []byte("version: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nrules:\n  - when: {header: x}\n    answer: {selekt: A}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	timed := filepath.Join(dir, "timed.yaml")
	if err := os.WriteFile(timed, []byte("version: 1\ndefaults: {answer_timeout: 1m}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fallbackless := filepath.Join(dir, "fallbackless.yaml")
	if err := os.WriteFile(fallbackless, []byte("version: 1\ndefaults: {on_unmatched: fallback}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		line string
	}{
		{"no claude", []string{"run", "--claude", filepath.Join(dir, "nowhere"), "--rules", rules}, 3, "does not exist"},
		// A rules file that cannot be read is said in a person's words.
		{"no rules file", []string{"run", "--claude", self, "--rules", filepath.Join(dir, "nope.yaml")}, 2,
			"claudewrap: rules file " + filepath.Join(dir, "nope.yaml") + ": no such file"},
		{"a folder as rules file", []string{"run", "--claude", self, "--rules", dir}, 2,
			"claudewrap: rules file " + dir + ": a folder, not a file; name the rules file in it"},
		// The rules are read first: their mistake is told, whatever else
		// is missing.
		{"bad rules and no claude", []string{"run", "--claude", filepath.Join(dir, "nowhere"), "--rules", bad}, 2, "bad.yaml:4:"},
		{"ask timeout without fallback", []string{"run", "--claude", self, "--rules", rules, "--answer-timeout", "1s"}, 2,
			"claudewrap: --answer-timeout 1s needs a fallback answer in the rules' defaults (defaults: {fallback: …}) to answer with when it runs out; add one, or drop the timeout"},
		{"the rules' timeout without fallback", []string{"run", "--claude", self, "--rules", timed}, 2,
			"timed.yaml:2:28: answer_timeout: 1m0s needs a fallback answer"},
		{"fallback policy without fallback", []string{"run", "--claude", self, "--rules", rules, "--on-unmatched", "fallback"}, 2,
			"claudewrap: --on-unmatched fallback needs a fallback answer in the rules' defaults (defaults: {fallback: …}) to answer unmatched questions with; add one, or choose another policy"},
		{"the rules' fallback policy without fallback", []string{"run", "--claude", self, "--rules", fallbackless}, 2,
			"fallbackless.yaml:2:26: on_unmatched: fallback needs a fallback answer"},
		// A mistake in the rules is told first, whatever else is missing.
		{"fallback policy without fallback, and no claude", []string{"run", "--claude", filepath.Join(dir, "nowhere"), "--rules", fallbackless}, 2,
			"needs a fallback answer"},
		{"the rules' timeout without fallback, and no claude", []string{"run", "--claude", filepath.Join(dir, "nowhere"), "--rules", timed}, 2,
			"needs a fallback answer"},
		// --answer-timeout 0 turns the rules' timeout off: the run goes on
		// to look for Claude.
		{"the rules' timeout turned off", []string{"run", "--claude", filepath.Join(dir, "nowhere"), "--rules", timed, "--answer-timeout", "0"}, 3,
			"does not exist"},
		{"claude flag before --", []string{"run", "--model", "opus"}, 2, "claude's own flags go after --"},
		// On a terminal Claude draws on stdout: events there are refused.
		{"events to Claude's screen", []string{"run", "--claude", self, "--rules", rules, "--events", "-"}, 2,
			"--events -: stdout is Claude's screen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := filepath.Join(t.TempDir(), "events.jsonl")
			cmd := exec.Command(self, append(tc.args[:1:1], append([]string{"--events", evs}, tc.args[1:]...)...)...)
			own := tc.name == "claude flag before --" || tc.name == "events to Claude's screen" // no event file
			if own {
				cmd = exec.Command(self, tc.args...)
			}
			cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			// ask and passthrough need a terminal: give the run one.
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer ptmx.Close()
			defer tty.Close()
			cmd.Stdin = tty
			err = cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			// A line given whole, from "claudewrap: ", is the whole line.
			whole := strings.HasPrefix(tc.line, "claudewrap: ") && lines[0] != tc.line
			if code != tc.code || len(lines) != 1 || !strings.HasPrefix(lines[0], "claudewrap: ") || !strings.Contains(lines[0], tc.line) || whole {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line with %q", code, stderr.String(), tc.code, tc.line)
			}
			if own {
				return
			}
			b, _ := os.ReadFile(evs)
			if !strings.Contains(string(b), `"event":"exit"`) || !strings.Contains(string(b), fmt.Sprintf(`"code":%d`, tc.code)) ||
				!strings.Contains(string(b), `"reason"`) {
				t.Errorf("events %s", b)
			}
		})
	}
}

// TestPassthroughNeedsTerminal: --headless=false with stdin not a terminal
// is a usage error said at once, before Claude starts (it was exit 1 with a
// summary of a Claude that never ran).
func TestPassthroughNeedsTerminal(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "run", "--headless=false", "--claude", self, "--", "hello")
	cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr // stdin: /dev/null
	cmd.Run()
	want := "claudewrap: --headless=false needs a terminal on stdin to draw Claude on; without one the run is headless\n"
	if code := cmd.ProcessState.ExitCode(); code != 2 || stderr.String() != want || stdout.String() != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout.String(), stderr.String(), want)
	}
}
