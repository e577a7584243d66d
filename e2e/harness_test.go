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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// forVersions runs f once per pinned Claude Code version, in parallel.
func forVersions(t *testing.T, f func(t *testing.T, version string)) {
	forEach(t, claudetest.Versions(), f)
}

// forEach runs f on each version, in parallel.
func forEach(t *testing.T, versions []string, f func(t *testing.T, version string)) {
	for _, v := range versions {
		t.Run("claude-"+v, func(t *testing.T) {
			t.Parallel()
			f(t, v)
		})
	}
}

// minor is the last number of a Claude Code version "2.1.N".
func minor(version string) int {
	n, _ := strconv.Atoi(version[strings.LastIndexByte(version, '.')+1:])
	return n
}

// waitText waits until the emulated screen contains every string in want.
func waitText(t *testing.T, em vt.Emulator, d time.Duration, want ...string) vt.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	snap, err := em.Wait(ctx, func(s vt.Snapshot) bool {
		text := s.Text()
		for _, w := range want {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("waiting for %q: %v", want, err)
	}
	return snap
}

// TestHarnessAnswerByKeys proves the harness: the scenario's form appears on
// claudewrap's emulated screen, and keys sent by the test reach Claude, whose
// tool_result reaches the fake API.
func TestHarnessAnswerByKeys(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
		h, err := ptyhost.Start(ptyhost.Config{
			Path:     sb.Claude,
			Args:     []string{"pick a database"},
			Env:      sb.Env(),
			Dir:      sb.Dir,
			Headless: true,
			Cols:     100,
			Rows:     40,
			Screen:   screen.NewFunc(version),
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Signal(syscall.SIGKILL); <-h.Done() })

		snap := waitText(t, h.Screen(), 60*time.Second,
			"Which database should we use?", "1. PostgreSQL", "2. SQLite", "3. MongoDB", "Enter to select")
		t.Logf("form on the emulated screen:\n%s", snap.Text())

		// Down once onto SQLite, confirmed on the screen before Enter.
		h.SendKeys([]byte("\x1b[B"))
		waitText(t, h.Screen(), 10*time.Second, "❯ 2. SQLite")
		h.SendKeys([]byte("\r"))

		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := sb.API.WaitToolResult(ctx, "toolu_01database")
		if err != nil {
			t.Fatalf("%v\nscreen:\n%s", err, h.Screen().Snapshot().Text())
		}
		want := `"Which database should we use?"="SQLite"`
		if res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("tool_result %+v, want it to contain %s", res, want)
		}
		waitText(t, h.Screen(), 30*time.Second, "Thanks, noted.")
		report("Claude Code %s: harness form answered by keys, tool_result %q", version, res.Content)
	})
}

// TestRunHeadlessRecord runs the claudewrap binary headless with --record and
// --events on the real Claude Code, ends it with SIGTERM, and replays the
// recording.
func TestRunHeadlessRecord(t *testing.T) {
	bin := claudetest.Claudewrap(t)
	forVersions(t, func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/hello.yaml")
		rec := filepath.Join(t.TempDir(), "x.cast")
		evs := filepath.Join(t.TempDir(), "events.jsonl")
		cmd := exec.Command(bin, "run", "--claude", sb.Claude, "--headless", "--size", "100x30",
			"--record", rec, "--events", evs, "--", "say hello")
		cmd.Env, cmd.Dir = sb.Env(), sb.Dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

		// Claude drew its reply once the API has answered and the recording
		// shows it; the recording is read back while claudewrap runs. Its
		// turn is over once claudewrap has told so (turn_end, from the Stop
		// hook, which can come after the reply is drawn).
		deadline := time.Now().Add(60 * time.Second)
		for {
			f, _ := os.ReadFile(rec)
			e, _ := os.ReadFile(evs)
			snap, err := replayBytes(f)
			if err == nil && strings.Contains(snap.Text(), "Hello from the fake API") && bytes.Contains(e, []byte(`"event":"turn_end"`)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the recording never showed the reply, or no turn_end; last screen:\n%s\nevents: %s\nstderr: %s", snap.Text(), e, stderr.String())
			}
			time.Sleep(100 * time.Millisecond) // polling a file under a deadline
		}
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("claudewrap did not exit after SIGTERM")
		}
		if stdout.Len() != 0 {
			t.Errorf("headless run wrote to stdout: %q", stdout.String())
		}

		// The header names the version the install says (replay measures
		// by it, cast.Header.ClaudeVersion).
		f, _ := os.ReadFile(rec)
		if h, _, err := cast.Read(bytes.NewReader(f)); err != nil || h.ClaudeVersion() != version {
			t.Errorf("recording's header %+v (%v): want Claude Code %s", h, err, version)
		}
		// `claudewrap replay` prints Claude's screen.
		out, err := exec.Command(bin, "replay", rec).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Hello from the fake API") || !strings.Contains(string(out), "say hello") {
			t.Errorf("replay: %v\n%s", err, out)
		}
		var names []string
		b, _ := os.ReadFile(evs)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("event line %q: %v", line, err)
			}
			names = append(names, fmt.Sprint(ev["event"]))
		}
		if strings.Join(names, ",") != "start,session,turn_end,exit" {
			t.Errorf("events %v, want start,session,turn_end,exit:\n%s", names, b)
		}
		report("Claude Code %s: headless run recorded and replayed", version)
	})
}

func replayBytes(b []byte) (vt.Snapshot, error) {
	h, evs, err := cast.Read(bytes.NewReader(b))
	if err != nil {
		return vt.Snapshot{}, err
	}
	em := screen.New(screen.Options{Cols: h.Width, Rows: h.Height, Version: h.ClaudeVersion()})
	if err := cast.Play(evs, -1, em); err != nil {
		return vt.Snapshot{}, err
	}
	return em.Snapshot(), nil
}

// waitFileOr reports whether path came to contain want within d.
func waitFileOr(path, want string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(path); strings.Contains(string(b), want) {
			return true
		}
		time.Sleep(10 * time.Millisecond) // polling a file under a deadline
	}
	return false
}
