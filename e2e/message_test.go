//go:build e2e

package e2e

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// TestMessageClearsLeftover: a chat message claudewrap sent before, left in
// Claude's prompt (Claude Code 2.1.197 sometimes keeps a sent message's
// text there: stress seed 9737646259466774155, s035), is cleared with
// Ctrl-U, a line at a time, before the next message; Claude is sent the new
// message alone. The leftover is typed here, wrapped over two lines at 60
// columns, since the real one cannot be brought about on demand.
func TestMessageClearsLeftover(t *testing.T) {
	const (
		leftover = "chat 35-4: we should talk about this first, and about the payments service's latency budget"
		next     = "chat 35-5: and now the build tool"
	)
	forVersions(t, func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
		h, err := ptyhost.Start(ptyhost.Config{Path: sb.Claude, Args: []string{"pick a database"}, Env: sb.Env(),
			Dir: sb.Dir, Headless: true, Cols: 60, Rows: 40, Screen: screen.NewFunc(version)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Signal(syscall.SIGKILL); <-h.Done() })
		waitText(t, h.Screen(), 60*time.Second, "Enter to select")
		h.SendKeys([]byte("\r"))
		waitText(t, h.Screen(), 30*time.Second, "Thanks, noted.")
		h.SendKeys([]byte(leftover))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := h.Screen().Wait(ctx, func(s vt.Snapshot) bool {
			p, ok := screen.Prompt(s)
			return ok && p == leftover
		})
		if err != nil {
			t.Fatalf("the leftover never showed in the prompt: %v\n%s", err, s.Text())
		}
		var kills int
		cfg := askflow.Config{Screen: h.Screen(), Keys: h, OnKey: func(k askflow.KeyEvent) {
			if k.Key == "Ctrl-U" {
				kills++
			}
		}}
		if err := askflow.Message(ctx, cfg, next, leftover); err != nil {
			t.Fatalf("Message: %v", err)
		}
		if kills < 2 {
			t.Errorf("%d Ctrl-U for a leftover on two lines", kills)
		}
		for {
			for _, req := range sb.API.Requests() {
				if !strings.Contains(req.Text, next) {
					continue
				}
				if strings.Contains(req.Text, "latency budget") || strings.Contains(req.Text, "35-4") {
					t.Fatalf("Claude was sent what was left of the leftover: %q", req.Text)
				}
				report("Claude Code %s: a leftover message on two lines cleared by %d Ctrl-U; the next message sent alone", version, kills)
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the message never reached the API\n%s", h.Screen().Snapshot().Text())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}
