//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// TestExampleUsageLines runs the usage line every example file documents
// ("#   claudewrap …"), as written, from the repository's root, at a
// terminal (a PTY) as a person would, with the real Claude Code (the
// newest pinned) against the fake API. A line that runs to its end must
// exit 0; one that starts Claude for a person must get Claude's prompt on
// the screen and not exit by itself (then it is ended with Ctrl-C).
func TestExampleUsageLines(t *testing.T) {
	root := claudetest.Root(t)
	files, err := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("examples: %v %v", files, err)
	}
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(l, "#")), "claudewrap "); ok && strings.HasPrefix(l, "#") {
				lines = append(lines, rest)
			}
		}
	}
	if len(lines) < len(files) {
		t.Fatalf("want a usage line in every example, found %d in %d files", len(lines), len(files))
	}
	version := claudetest.Versions()[0]
	bin := claudetest.Claudewrap(t)
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			args, err := shellWords(line)
			if err != nil {
				t.Fatal(err)
			}
			sb := claudetest.New(t, version, "testdata/scenarios/hello.yaml")
			// The lines run from the repository's root: Claude trusts it.
			if err := claudetest.Seed(sb.Home, root); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = root, append(sb.Env(), "CLAUDEWRAP_CLAUDE="+sb.Claude)
			ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
			if err != nil {
				t.Fatal(err)
			}
			defer ptmx.Close()
			var mu sync.Mutex
			var out bytes.Buffer
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := ptmx.Read(buf)
					mu.Lock()
					out.Write(buf[:n])
					mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
			shown := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			interactive := !strings.Contains(line, "--exit-after-turn") && strings.HasPrefix(line, "run ")
			if !interactive {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("%s: %v\n%s", line, err, shown())
					}
				case <-time.After(90 * time.Second):
					cmd.Process.Kill()
					t.Fatalf("%s: did not end in 90s\n%s", line, shown())
				}
				report("usage line works: claudewrap %s (exit 0)", line)
				return
			}
			// Claude for a person: it starts, sends the line's prompt to
			// the API, and the run goes on until the person ends it.
			prompt := args[len(args)-1]
			sent := func() bool {
				for _, req := range sb.API.Requests() {
					if strings.Contains(req.Text, prompt) {
						return true
					}
				}
				return false
			}
			deadline := time.Now().Add(60 * time.Second)
			for !sent() {
				select {
				case err := <-done:
					t.Fatalf("%s: exited by itself (%v) before Claude sent the prompt\n%s", line, err, shown())
				case <-time.After(100 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("%s: Claude never sent the prompt\n%s", line, shown())
				}
			}
			select {
			case err := <-done:
				t.Fatalf("%s: exited by itself (%v) after Claude's answer; it should wait for the person\n%s", line, err, shown())
			case <-time.After(2 * time.Second):
			}
			// Ctrl-C twice is how a person leaves Claude Code.
			ptmx.Write([]byte{3})
			deadline = time.Now().Add(10 * time.Second)
			for !strings.Contains(shown(), "again to exit") && time.Now().Before(deadline) {
				select {
				case <-done:
					t.Fatalf("%s: one Ctrl-C ended it\n%s", line, shown())
				case <-time.After(50 * time.Millisecond):
				}
			}
			ptmx.Write([]byte{3})
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s: ended with Ctrl-C: %v\n%s", line, err, shown())
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("%s: Ctrl-C twice did not end it\n%s", line, shown())
			}
			// What claudewrap says when Claude has gone, on the terminal: the
			// terminal's last bytes may still be on their way to the test.
			deadline = time.Now().Add(5 * time.Second)
			for !strings.Contains(shown(), "claudewrap: no questions") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond) // reading the terminal, under a deadline
			}
			if !strings.Contains(shown(), "claudewrap: no questions") {
				t.Errorf("%s: no summary after Claude exited\n%s", line, shown())
			}
			report("usage line works: claudewrap %s (Claude on the terminal, left with Ctrl-C twice, exit 0)", line)
		})
	}
}

// shellWords splits a usage line as a POSIX shell would: words, with
// double and single quotes.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote, inWord := false, byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == quote:
			in = false
		case in:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			in, quote, inWord = true, c, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if in {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// TestReadmeMakeTry runs README.md's make try lines as written, from the
// repository's root, without a terminal (headless), on the newest Claude
// Code under test: each builds claudewrap and the fake API, has the real
// Claude Code ask the form offline, and exits 0 once Claude recorded the
// rules' answers.
func TestReadmeMakeTry(t *testing.T) {
	root := claudetest.Root(t)
	version := claudetest.Versions()[0]
	claudetest.Binary(t, version) // installed: make try installs nothing
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	inSh := false
	for _, l := range strings.Split(string(b), "\n") {
		switch s := strings.TrimSpace(l); {
		case s == "```sh":
			inSh = true
		case strings.HasPrefix(s, "```"):
			inSh = false
		case inSh && strings.HasPrefix(s, "make try "):
			lines = append(lines, s)
		}
	}
	if len(lines) == 0 {
		t.Fatal("README.md shows no make try line")
	}
	for _, line := range lines {
		args, err := shellWords(line)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, args[0], append(args[1:], "CLAUDE_VERSIONS="+version)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil || !strings.Contains(string(out), "1 form asked, 1 answered by rules, 1 verified") ||
			!strings.Contains(string(out), "== try done: claudewrap exited 0") {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		report("Claude Code %s: README's %s: the form answered by the rules and verified, offline (exit 0)", version, line)
	}
}
