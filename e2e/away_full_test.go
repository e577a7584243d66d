//go:build e2e && full

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// TestAwayInSessionsView: the person presses ← at Claude's prompt while it
// works between two forms. Every pinned version then shows its sessions
// view, the conversation moved to the background (random forms run 59,
// seed 1764200000 s008). 2.1.227 and later go on with it in a fork in the
// same process (2.1.227 now and then) and ask the second form there, in
// the view's list, off the screen: claudewrap hands it to the person as it
// is asked, with nothing pressed on the view and nothing counted as
// failed. Before, it refused the fork's hooks when the view's own new
// session started after the fork (2.1.332), or waited 40 s for the form
// and exited 5 as for a screen that never confirmed a step. 2.1.197 (and
// 2.1.227 now and then) go on with it in Claude's background daemon, out
// of claudewrap's sight: nothing is asked, nothing pressed. The daemon
// ends with the run (ptyhost's supervisor ends all Claude started); the
// sandbox kills what would be left (claudetest.KillStrays).
func TestAwayInSessionsView(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		rules := writeRulesFile(t, `version: 1
rules:
  - {when: {header: Database}, answer: {select: SQLite}}
  - {when: {header: Cache}, answer: {select: Redis}}
permissions:
  - {when: {tool: Bash, command: "^sleep "}, decide: allow}
`)
		notified := filepath.Join(t.TempDir(), "notified.json")
		tr := startInTerminal(t, version, "testdata/scenarios/away.yaml", "ask, pause, ask", "--rules", rules, "--exit-after-turn",
			"--notify", "cat >> "+notified)
		waitFile(t, tr.events, `"event":"verified","tool_use_id":"toolu_01away1"`, 60*time.Second)
		// Claude runs the pause (sleep 4) now: its prompt is empty.
		waitText(t, tr.screen, 30*time.Second, "sleep 4")
		before, _ := os.ReadFile(tr.events)
		keys := strings.Count(string(before), `"event":"key"`)
		tr.ptmx.Write([]byte("\x1b[D"))
		waitView(t, tr.screen, 30*time.Second)
		// 2.1.266 and later always went on in a fork in Claude's own
		// process; 2.1.227 did once in two runs, 2.1.197 never in four.
		asked := minor(version) >= 266
		if asked {
			waitFile(t, tr.events, `"reason":"Claude's conversation is in the background`, 30*time.Second)
		} else if waitFileOr(tr.events, `"tool_use_id":"toolu_01away2"`, 15*time.Second) {
			asked = true
			waitFile(t, tr.events, `"reason":"Claude's conversation is in the background`, 30*time.Second)
		}
		if asked {
			// --notify runs as the form is handed over: its output is
			// waited for before claudewrap is ended.
			waitFile(t, notified, `"tool_use_id":"toolu_01away2"`, 30*time.Second)
		}
		tr.cmd.Process.Signal(syscall.SIGTERM)
		r := tr.wait(t)
		if n := len(r.find("key")); n != keys {
			t.Errorf("%d keys pressed after the person's ←, want none\n%s", n-keys, r)
		}
		for _, e := range r.events {
			if e["tool_use_id"] == "toolu_01away2" && e.name() == "error" {
				t.Errorf("the form in the sessions view got an error %v", e)
			}
		}
		for _, res := range r.sb.API.ToolResults() {
			if res.ToolUseID == "toolu_01away2" {
				t.Errorf("Claude recorded %q for the form in the background", res.Content)
			}
		}
		handed := false
		for _, e := range r.find("handed_over") {
			handed = handed || e["tool_use_id"] == "toolu_01away2" && strings.HasPrefix(fmt.Sprint(e["reason"]), "Claude's conversation is in the background")
		}
		if handed != asked {
			t.Errorf("the second form handed over for the sessions view: %t, want %t\n%s", handed, asked, r)
		}
		// The form waits for the person: --notify tells them, once, and only
		// of it (the first form is the rules').
		if b, err := os.ReadFile(notified); asked != (err == nil) || asked && (strings.Count(string(b), `"tool_use_id"`) != 1 ||
			!strings.Contains(string(b), `"tool_use_id":"toolu_01away2"`)) {
			t.Errorf("--notify got %q (%v), want the second form's JSON alone: %t", b, err, asked)
		}
		if r.code != 128+int(syscall.SIGTERM) {
			t.Errorf("exit %d, want %d (SIGTERM; no navigation failure)\n%s", r.code, 128+int(syscall.SIGTERM), r)
		}
		if asked {
			report("Claude Code %s: ← at the prompt while Claude works: the sessions view; the next form, asked there, handed to the person with nothing pressed", version)
		} else {
			report("Claude Code %s: ← at the prompt while Claude works: the sessions view; the conversation goes on out of sight, nothing asked, nothing pressed", version)
		}
	})
}

// waitView waits until em shows Claude's sessions view.
func waitView(t *testing.T, em vt.Emulator, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if _, err := em.Wait(ctx, screen.SessionsView); err != nil {
		t.Fatalf("Claude's sessions view never showed: %v", err)
	}
}
