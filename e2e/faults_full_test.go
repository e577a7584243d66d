//go:build e2e && full

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/session"
)

// noWrongAnswer fails when Claude recorded an answer other than want ("" =
// no answer at all may be recorded).
func noWrongAnswer(t *testing.T, r *faultRun, want string) {
	t.Helper()
	for _, res := range r.sb.API.ToolResults() {
		if res.IsError {
			continue
		}
		if want == "" || !strings.Contains(res.Content, want) {
			t.Errorf("Claude recorded %q\n%s", res.Content, r)
		}
	}
}

// walk has askflow answer by arrows, Enter and Tab alone: the tests of
// the walk's faults (an option's number would commit it in one key).
func walk(c *session.Config) { c.Flow.Walk = true }

// TestFaultSwallowedNumber: the option's number vanishes, as a key Claude
// refuses as typed ahead does. askflow sees no effect, does not send the
// number again, and walks to the option instead: each move confirmed,
// then Enter.
func TestFaultSwallowedNumber(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		var keys []string
		var mu sync.Mutex
		r := runSession(t, version, "testdata/scenarios/database.yaml", "pick a database", sqliteRule,
			func(n int, key []byte, h *ptyhost.Host) bool {
				mu.Lock()
				keys = append(keys, string(key))
				mu.Unlock()
				return n != 1
			}, nil)
		if len(r.find(t, "verified")) != 1 || r.report.Navigation {
			t.Fatalf("want the answer verified after the walk\n%s", r)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []string{"2", "\x1b[B", "\r"}; !slices.Equal(keys, want) {
			t.Errorf("keys %q, want %q (the number, then the walk)\n%s", keys, want, r)
		}
		noWrongAnswer(t, r, sqliteAnswer)
		report("Claude Code %s: swallowed number, walked instead, answer verified", version)
	})
}

func TestFaultSwallowedKey(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		// The first Down vanishes: askflow must see no effect and send it again.
		r := runSession(t, version, "testdata/scenarios/database.yaml", "pick a database", sqliteRule,
			func(n int, key []byte, h *ptyhost.Host) bool { return n != 1 }, nil, walk)
		if len(r.find(t, "verified")) != 1 || r.report.Navigation {
			t.Fatalf("want the answer verified after a retry\n%s", r)
		}
		noWrongAnswer(t, r, sqliteAnswer)
		report("Claude Code %s: swallowed key retried, answer verified", version)
	})
}

func TestFaultKeysNeverWork(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		// Every arrow key vanishes; Enter would work. askflow must give up
		// without pressing Enter on the wrong row.
		var enters int
		r := runSession(t, version, "testdata/scenarios/database.yaml", "pick a database", sqliteRule,
			func(n int, key []byte, h *ptyhost.Host) bool {
				if string(key) == "\r" {
					enters++
				}
				return string(key) != "\x1b[B" && string(key) != "\x1b[A"
			}, nil, walk)
		if !r.report.Navigation || enters != 0 {
			t.Fatalf("want a navigation failure and no Enter (got %d)\n%s", enters, r)
		}
		if len(r.find(t, "verified")) != 0 || len(r.find(t, "cancelled")) != 1 {
			t.Errorf("want the form cancelled, nothing verified\n%s", r)
		}
		noWrongAnswer(t, r, "")
		report("Claude Code %s: dead keys: nothing submitted, form cancelled, navigation failure reported", version)
	})
}

func TestFaultClaudeKilledMidForm(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runSession(t, version, "testdata/scenarios/database.yaml", "pick a database", sqliteRule,
			func(n int, key []byte, h *ptyhost.Host) bool {
				if n == 1 {
					h.Signal(syscall.SIGKILL)
					return false
				}
				return true
			}, nil)
		if r.report.Claude.Code != 137 || r.report.Mismatch {
			t.Fatalf("want Claude's death (137) reported\n%s", r)
		}
		noWrongAnswer(t, r, "")
		report("Claude Code %s: killed mid-form: session ended with 137", version)
	})
}

func TestFaultResizeMidForm(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runSession(t, version, "testdata/scenarios/long.yaml", "pick a strategy",
			"  - answer: {select: Canary releases}\n",
			func(n int, key []byte, h *ptyhost.Host) bool {
				if n == 1 {
					h.Resize(60, 40) // the form rewraps under the wrapper
				}
				return true
			}, nil, walk)
		if len(r.find(t, "verified")) != 1 {
			t.Fatalf("want the answer verified after the resize\n%s", r)
		}
		noWrongAnswer(t, r, `="Canary releases"`)
		report("Claude Code %s: resize mid-form: answer verified", version)
	})
}

func TestFaultHookDisagreesWithScreen(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		// A PreToolUse arrives for a form that is not on the screen: nothing
		// may be pressed for it.
		// It carries the real session's id: a message of another session
		// is refused before it could press anything (TestForgedHooks).
		forged := `{"session_id":"%s","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_forged",
"tool_input":{"questions":[{"question":"Deploy to production?","header":"Deploy","multiSelect":false,
"options":[{"label":"Yes","description":""},{"label":"No","description":""}]}]}}`
		var keys int
		r := runSession(t, version, "testdata/scenarios/hello.yaml", "say hello", "  - answer: {select: \"Yes\"}\n",
			func(n int, key []byte, h *ptyhost.Host) bool { keys++; return true },
			func(r *faultRun) {
				go func() {
					waitText(t, r.host.Screen(), 60*time.Second, "Hello from the fake API")
					c, err := net.Dial("unix", r.socket)
					if err != nil {
						return
					}
					fmt.Fprintf(c, forged, sessionOf(r.log.String()))
					c.Close()
					// Claude stays up until askflow has given up.
					deadline := time.Now().Add(60 * time.Second)
					for !strings.Contains(r.log.String(), "cancelled when it shows") && time.Now().Before(deadline) {
						time.Sleep(50 * time.Millisecond) // polling the log under a deadline
					}
					r.host.Signal(syscall.SIGTERM)
				}()
			},
			func(c *session.Config) {
				c.ExitAfterTurn = false
				c.Flow.FormTimeout = 3 * time.Second
			})
		errs := r.find(t, "error")
		if keys != 0 || len(errs) == 0 || !strings.Contains(fmt.Sprint(errs[0]["step"]), "agree") || !r.report.Navigation ||
			len(r.find(t, "cancelled")) != 0 {
			t.Fatalf("want an agree failure with no key pressed, not even Esc (keys %d)\n%s", keys, r)
		}
		report("Claude Code %s: hook payload not on screen: nothing pressed (no Esc either), reported", version)
	})
}

func TestFaultGarbageOnSocket(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runSession(t, version, "testdata/scenarios/database.yaml", "pick a database", sqliteRule, nil,
			func(r *faultRun) {
				for _, msg := range [][]byte{[]byte("garbage\x00\xff"), bytes.Repeat([]byte("{"), 5<<20),
					[]byte(`{"hook_event_name":"PostToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_unknown",` +
						`"tool_input":{"questions":[{"question":"Q?","header":"H","options":[{"label":"a"},{"label":"b"}]}]},` +
						`"tool_response":{"answers":{"Q?":"a"}}}`)} {
					if c, err := net.Dial("unix", r.socket); err == nil {
						c.Write(msg)
						c.Close()
					}
				}
			})
		if len(r.find(t, "verified")) != 1 || len(r.find(t, "error")) < 3 {
			t.Fatalf("want three refusals reported and the form still verified\n%s", r)
		}
		noWrongAnswer(t, r, sqliteAnswer)
		report("Claude Code %s: garbage, oversized and unknown hook messages refused; form verified", version)
	})
}

// TestTakeover: Claude is on the person's screen and claudewrap is answering
// by rule; the person presses a key. The form is theirs at once: askflow
// sends nothing more, and what the person then answers is not checked
// against the rule.
func TestTakeover(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer ptmx.Close()
		defer tty.Close()
		pty.Setsize(tty, &pty.Winsize{Cols: 100, Rows: 40})
		person := screen.New(screen.Options{Cols: 100, Rows: 40})
		go io.Copy(person, ptmx)

		var afterTakeover int
		var tookOver bool
		var mu sync.Mutex
		r := runSession(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"  - answer: {select: MongoDB}\n",
			func(n int, key []byte, h *ptyhost.Host) bool {
				mu.Lock()
				defer mu.Unlock()
				if tookOver {
					afterTakeover++
				}
				if n == 1 {
					// The person presses Up while claudewrap is on its way down.
					ptmx.Write([]byte("\x1b[A"))
					tookOver = true
				}
				return true
			},
			func(r *faultRun) {
				go func() {
					// Once the form is theirs, the person picks what is focused.
					deadline := time.Now().Add(60 * time.Second)
					for len(r.find(t, "handed_over")) == 0 && time.Now().Before(deadline) {
						time.Sleep(20 * time.Millisecond) // polling the log under a deadline
					}
					waitText(t, r.host.Screen(), 10*time.Second, "Chat about this")
					// A person sees the keys in flight land before the next:
					// Enter pressed within milliseconds of Up was seen to
					// reach Claude 2.1.330 as a cancel (issue 14's race).
					waitQuiet(r.host.Screen(), 300*time.Millisecond, 5*time.Second)
					ptmx.Write([]byte("\r"))
				}()
			},
			func(c *session.Config) {
				c.Host.Headless = false
				c.Host.Stdin, c.Host.Stdout = tty, tty
				c.Policy = rules.Passthrough
			})
		if len(r.find(t, "handed_over")) != 1 || len(r.find(t, "verified")) != 0 || len(r.find(t, "mismatch")) != 0 {
			t.Fatalf("want one handed_over and nothing verified\n%s", r)
		}
		mu.Lock()
		defer mu.Unlock()
		// At most the key already on its way when the person typed.
		if afterTakeover > 1 {
			t.Errorf("askflow sent %d keys after the person took over\n%s", afterTakeover, r)
		}
		var byPerson bool
		for _, e := range r.find(t, "submitted") {
			byPerson = byPerson || e["by"] == "person"
		}
		// The person's Up racing claudewrap's Down in flight sometimes
		// reaches Claude 2.1.330 as a cancel (about 1 run in 6 to 12, before
		// this session's changes too): issue 14's takeover race, open.
		// Either the person's answer is recorded, or nothing is.
		declined := !byPerson
		for _, res := range r.sb.API.ToolResults() {
			declined = declined && !strings.Contains(res.Content, `"Which database should we use?"="`)
		}
		if !(byPerson && len(r.sb.API.ToolResults()) == 1) && !declined {
			t.Errorf("want the person's answer recorded, or the form declined\n%s", r)
		}
		outcome := "the person's answer recorded"
		if !byPerson {
			outcome = "the form declined (issue 14's race)"
		}
		report("Claude Code %s: the person took over mid-answer; claudewrap stopped (%d keys after); %s", version, afterTakeover, outcome)
	})
}

// sessionOf is the session id the run's `session` event names ("" before
// it comes).
func sessionOf(log string) string {
	for _, l := range strings.Split(log, "\n") {
		var ev struct {
			Event     string `json:"event"`
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Event == "session" {
			return ev.SessionID
		}
	}
	return ""
}
