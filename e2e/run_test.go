//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
)

// event is one line of claudewrap's event log.
type event map[string]any

func (e event) name() string { return fmt.Sprint(e["event"]) }

// run is one finished `claudewrap run`.
type run struct {
	code   int
	events []event
	stderr string
	sb     *claudetest.Sandbox
	cast   string
}

// find returns the events with the given name.
func (r *run) find(name string) []event {
	var out []event
	for _, e := range r.events {
		if e.name() == name {
			out = append(out, e)
		}
	}
	return out
}

func (r *run) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit %d\nstderr: %s\nevents:\n", r.code, r.stderr)
	for _, e := range r.events {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	if r.cast != "" {
		if data, err := os.ReadFile(r.cast); err == nil {
			if snap, err := replayBytes(data); err == nil {
				b.WriteString("last screen:\n" + snap.Text() + "\n")
			}
		}
	}
	return b.String()
}

// runClaudewrap runs the claudewrap binary headless on the real Claude Code
// with the scenario, until it exits (with a deadline).
func runClaudewrap(t *testing.T, version, scenario, prompt string, args ...string) *run {
	t.Helper()
	return runUntil(t, version, scenario, prompt, "", args...)
}

// runUntil is runClaudewrap that, when until is not empty, ends claudewrap
// with SIGTERM once an event of that name was logged.
func runUntil(t *testing.T, version, scenario, prompt, until string, args ...string) *run {
	t.Helper()
	return runIn(t, claudetest.New(t, version, scenario), prompt, until, args...)
}

// runIn is runUntil in a sandbox the test prepared.
func runIn(t *testing.T, sb *claudetest.Sandbox, prompt, until string, args ...string) *run {
	t.Helper()
	return runInEnv(t, sb, nil, prompt, until, args...)
}

// runEnv is runClaudewrap in a sandbox the test prepared, with env added
// to claudewrap's environment (and so Claude's).
func runEnv(t *testing.T, sb *claudetest.Sandbox, env []string, prompt string, args ...string) *run {
	t.Helper()
	return runInEnv(t, sb, env, prompt, "", args...)
}

// runInEnv is runIn with env added to the environment.
func runInEnv(t *testing.T, sb *claudetest.Sandbox, env []string, prompt, until string, args ...string) *run {
	t.Helper()
	bin := claudetest.Claudewrap(t)
	dir := t.TempDir()
	r := &run{sb: sb, cast: filepath.Join(dir, "run.cast")}
	evPath := filepath.Join(dir, "events.jsonl")
	full := append([]string{"run", "--claude", sb.Claude, "--headless", "--events", evPath, "--record", r.cast}, args...)
	if !slices.Contains(args, "--") {
		full = append(full, "--")
	}
	full = append(full, prompt)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env, cmd.Dir = append(sb.Env(), env...), sb.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if until != "" {
		go func() {
			for ctx.Err() == nil {
				if b, _ := os.ReadFile(evPath); bytes.Contains(b, []byte(`"event":"`+until+`"`)) {
					cmd.Process.Signal(syscall.SIGTERM)
					return
				}
				time.Sleep(50 * time.Millisecond) // polling a file under the run's deadline
			}
		}()
	}
	err := cmd.Wait()
	r.stderr = stderr.String()
	r.readEvents(t, evPath)
	if ctx.Err() != nil {
		t.Fatalf("claudewrap did not exit in time: %v\n%s", ctx.Err(), r)
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else {
			t.Fatal(err)
		}
	}
	return r
}

func (r *run) readEvents(t *testing.T, evPath string) {
	t.Helper()
	b, _ := os.ReadFile(evPath)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event line %q: %v", line, err)
		}
		r.events = append(r.events, e)
	}
}

// toolResult returns what the fake API received for the form.
func (r *run) toolResult(t *testing.T, id string) fakeapi.ToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := r.sb.API.WaitToolResult(ctx, id)
	if err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	return res
}

func TestAnswerSingle(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", abs(t, "testdata/rules/database.yaml"), "--exit-after-turn")
		res := r.toolResult(t, "toolu_01database")
		if want := `"Which database should we use?"="SQLite"`; res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("tool_result %q, want %s\n%s", res.Content, want, r)
		}
		if len(r.find("verified")) != 1 || r.code != 0 {
			t.Errorf("want one verified event and exit 0\n%s", r)
		}
		report("Claude Code %s: single question answered and verified (%d keys)", version, len(r.find("key")))
	})
}

func TestAnswerThree(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/three.yaml", "plan the project",
			"--rules", abs(t, "testdata/rules/three.yaml"), "--exit-after-turn")
		res := r.toolResult(t, "toolu_01three")
		want := `"Which database should we use?"="SQLite", "Which features should we build?"="Auth, API", ` +
			`"How should we name things?"="snake_case, like the rest of the repo"`
		if res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("tool_result %q, want %s\n%s", res.Content, want, r)
		}
		if len(r.find("verified")) != 1 || r.code != 0 {
			t.Errorf("want one verified event and exit 0\n%s", r)
		}
		report("Claude Code %s: three questions answered and verified (%d keys)", version, len(r.find("key")))
	})
}

// abs makes a path under e2e/ absolute: claudewrap runs in the sandbox.
func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestTwoIdenticalForms: two identical forms asked at once (both PreToolUse
// hooks arrive together) are driven one at a time, each on its own form;
// both answers recorded and verified. (Two drivers used to push each
// other's cursor on the one visible form, and Esc cancelled it.)
func TestTwoIdenticalForms(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/twins.yaml", "pick twice",
			"--rules", abs(t, "testdata/rules/database.yaml"), "--exit-after-turn")
		for _, id := range []string{"toolu_01twin1", "toolu_01twin2"} {
			res := r.toolResult(t, id)
			if want := `"Which database should we use?"="SQLite"`; res.IsError || !strings.Contains(res.Content, want) {
				t.Errorf("%s: tool_result %q, want %s\n%s", id, res.Content, want, r)
			}
		}
		if len(r.find("verified")) != 2 || len(r.find("cancelled")) != 0 || r.code != 0 {
			t.Errorf("want two verified events, none cancelled, exit 0 (exit %d)\n%s", r.code, r)
		}
		report("Claude Code %s: two identical forms at once: both answered in turn and verified", version)
	})
}

// TestTwoDifferentForms: two different forms asked at once are driven one
// at a time, the one on the screen first (2.1.197 and 2.1.266 show the last
// asked first); both answers recorded and verified.
func TestTwoDifferentForms(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/pair.yaml", "pick a pair",
			"--rules", abs(t, "testdata/rules/pair.yaml"), "--exit-after-turn")
		for id, want := range map[string]string{
			"toolu_01pair1": `"Which database should we use?"="SQLite"`,
			"toolu_01pair2": `"Which cache should we use?"="Memcached"`,
		} {
			if res := r.toolResult(t, id); res.IsError || !strings.Contains(res.Content, want) {
				t.Errorf("%s: tool_result %q, want %s\n%s", id, res.Content, want, r)
			}
		}
		if len(r.find("verified")) != 2 || len(r.find("error")) != 0 || r.code != 0 {
			t.Errorf("want two verified events, no error, exit 0 (exit %d)\n%s", r.code, r)
		}
		report("Claude Code %s: two different forms at once: both answered, the one on the screen first, and verified", version)
	})
}

// lastLine is the last line of a run's stderr: the exit's reason, after the
// human lines.
func lastLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	return lines[len(lines)-1]
}
