package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/vt"
)

// TestRunEndsWhenItsContextEnds: when the caller's context ends, Claude is
// asked to go and killed if it will not; Run returns, with how Claude
// ended. (Before, Run waited for good for a Claude that ignored SIGTERM.)
func TestRunEndsWhenItsContextEnds(t *testing.T) {
	claude := filepath.Join(t.TempDir(), "claude")
	// A stand-in that ignores SIGTERM and waits on its terminal.
	script := "#!/bin/sh\ntrap '' TERM\necho ready\nread line\n"
	if err := os.WriteFile(claude, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan *ptyhost.Host, 1)
	type result struct {
		rep Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := Run(ctx, Config{
			Host:    ptyhost.Config{Path: claude, Headless: true, Cols: 80, Rows: 24},
			Exe:     "/bin/true",
			Decider: &rules.Set{},
			Policy:  rules.Fail,
			Started: func(h *ptyhost.Host, _ string) { started <- h },
		})
		done <- result{rep, err}
	}()
	select {
	case h := <-started:
		wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer wcancel()
		if _, err := h.Screen().Wait(wctx, func(s vt.Snapshot) bool { return strings.Contains(s.Text(), "ready") }); err != nil {
			t.Fatalf("the stand-in never started: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Claude never started")
	}
	cancel()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("Run: %v", r.err)
		}
		if r.rep.Claude.Signal != syscall.SIGKILL {
			t.Errorf("Claude ended %+v, want killed after ignoring SIGTERM", r.rep.Claude)
		}
	case <-time.After(killGrace + 10*time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}
