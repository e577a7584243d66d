//go:build e2e && full

package e2e

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/screen"
)

// TestFullscreen: Claude Code drawing with its fullscreen renderer (the
// setting `/tui fullscreen` writes: the alternate screen, mouse
// reporting), on a person's terminal. Its form is answered by the rules and
// verified as with the classic renderer; and when Claude is killed while
// the form waits for the person, claudewrap takes the terminal back to its
// main screen before its own last lines (it left it on the alternate one,
// its lines written there). The pointer moving over the form (the
// renderer asks for every motion) is not the person taking it over where it
// draws nothing on the form, 2.1.299 and later; before, where a second "❯"
// marks the row under the pointer, it hands the form over and claudewrap
// presses nothing.
func TestFullscreen(t *testing.T) {
	fullscreen := func(_ *os.File, sb *claudetest.Sandbox) {
		if err := claudetest.Fullscreen(sb.Home); err != nil {
			t.Fatal(err)
		}
	}
	// onMain waits until the person's terminal shows want on its main
	// screen: claudewrap has exited, but the test may not have read all it
	// wrote yet.
	onMain := func(t *testing.T, tr *terminalRun, want string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; {
			s := tr.screen.Snapshot()
			if !s.AltScreen && strings.Contains(s.Text(), want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the person's terminal (alternate screen: %v) does not show %q on its main screen:\n%s", s.AltScreen, want, s.Text())
			}
			time.Sleep(10 * time.Millisecond) // polling a buffer under a deadline
		}
	}
	t.Run("answered", func(t *testing.T) {
		forVersions(t, func(t *testing.T, version string) {
			tr, tty := startOnTTY(t, version, "testdata/scenarios/three.yaml", "plan the project", fullscreen,
				"--rules", abs(t, "testdata/rules/three.yaml"), "--exit-after-turn")
			tty.Close()
			r := tr.wait(t)
			res := r.toolResult(t, "toolu_01three")
			want := `"Which database should we use?"="SQLite", "Which features should we build?"="Auth, API", "How should we name things?"="snake_case, like the rest of the repo"`
			if !strings.Contains(res.Content, want) || r.code != 0 || len(r.find("verified")) != 1 {
				t.Fatalf("tool_result %q, want %s\n%s", res.Content, want, r)
			}
			if !strings.Contains(tr.text(), "\x1b[?1049h") {
				t.Fatalf("Claude never drew on the alternate screen: not its fullscreen renderer")
			}
			onMain(t, tr, "1 form asked, 1 answered by rules, 1 verified")
			report("Claude Code %s: fullscreen renderer: three questions answered, verified; the terminal back on its main screen", version)
		})
	})
	t.Run("pointer", func(t *testing.T) {
		forVersions(t, func(t *testing.T, version string) {
			tr, tty := startOnTTY(t, version, "testdata/scenarios/three.yaml", "plan the project", fullscreen,
				"--rules", abs(t, "testdata/rules/three.yaml"), "--exit-after-turn")
			tty.Close()
			tr.waitShown(t, "\x1b[?1003h")
			// The person's pointer sweeps the window, a report a row, until
			// claudewrap exits.
			stop := make(chan struct{})
			swept := make(chan int, 1)
			go func() {
				n := 0
				defer func() { swept <- n }()
				tick := time.NewTicker(3 * time.Millisecond)
				defer tick.Stop()
				for ; ; n++ {
					select {
					case <-stop:
						return
					case <-tr.done:
						return
					case <-tick.C:
						fmt.Fprintf(tr.ptmx, "\x1b[<35;%d;%dM", 5+n%7, 1+n%40)
					}
				}
			}()
			if !screen.PointerInert(version) {
				waitFile(t, tr.events, `"event":"handed_over"`, 60*time.Second)
				close(stop)
				if sent := <-swept; sent == 0 {
					t.Fatal("no pointer report was sent")
				}
				if res := tr.sb.API.ToolResults(); len(res) != 0 {
					t.Fatalf("the form handed over was answered: %+v", res)
				}
				report("Claude Code %s: fullscreen renderer, the pointer moving over the form (a second ❯ under it): the form handed over, nothing pressed", version)
				return
			}
			r := tr.wait(t)
			sent := <-swept
			res := r.toolResult(t, "toolu_01three")
			want := `"Which database should we use?"="SQLite", "Which features should we build?"="Auth, API", "How should we name things?"="snake_case, like the rest of the repo"`
			if !strings.Contains(res.Content, want) || r.code != 0 || len(r.find("verified")) != 1 || len(r.find("handed_over")) != 0 || sent == 0 {
				t.Fatalf("tool_result %q, want %s; %d pointer reports\n%s", res.Content, want, sent, r)
			}
			report("Claude Code %s: fullscreen renderer, the pointer moving over the form throughout (%d reports): three questions answered, verified, nothing handed over", version, sent)
		})
	})
	t.Run("killed", func(t *testing.T) {
		forVersions(t, func(t *testing.T, version string) {
			tr, tty := startOnTTY(t, version, "testdata/scenarios/database.yaml", "pick a database", fullscreen,
				"--rules", writeRules(t, "  - {when: {header: Nope}, answer: {select: MongoDB}}\n"), "--on-unmatched", "passthrough")
			tty.Close()
			waitText(t, tr.screen, 60*time.Second, "Which database should we use?", "Enter to select")
			waitFile(t, tr.events, `"event":"handed_over"`, 30*time.Second)
			if !tr.screen.Snapshot().AltScreen {
				t.Fatalf("the form is not on the alternate screen: not Claude's fullscreen renderer")
			}
			syscall.Kill(claudeOf(t, tr.cmd.Process.Pid), syscall.SIGKILL)
			r := tr.wait(t)
			if r.code != 137 {
				t.Fatalf("exit status %d, want 137 (Claude killed)\n%s", r.code, r)
			}
			onMain(t, tr, "Claude killed by SIGKILL")
			report("Claude Code %s: fullscreen renderer, Claude killed on the alternate screen: the terminal back on its main screen, claudewrap's last lines there", version)
		})
	})
}
