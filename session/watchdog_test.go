package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// idleChild is Claude at its prompt with nothing to ask: its screen stays
// still, or it streams output (draw), until it exits by itself after life
// or is signalled.
type idleChild struct {
	em   vt.Emulator
	done chan struct{}
	once sync.Once
}

// newIdleChild starts a child that lives for life; draw, if set, is called
// every few milliseconds meanwhile with the line number, as a program
// streaming output writes.
func newIdleChild(life time.Duration, draw func(em vt.Emulator, n int)) *idleChild {
	c := &idleChild{em: screen.New(screen.Options{Cols: 80, Rows: 20}), done: make(chan struct{})}
	_, _ = c.em.Write([]byte("\x1b[2J\x1b[H╭───╮\r\n│ > │\r\n╰───╯\r\n"))
	exit := time.AfterFunc(life, c.exit)
	if draw != nil {
		go func() {
			tick := time.NewTicker(5 * time.Millisecond) // well within the screen's quiet period: it never settles
			defer tick.Stop()
			for n := 0; ; n++ {
				select {
				case <-c.done:
					exit.Stop()
					return
				case <-tick.C:
					draw(c.em, n)
				}
			}
		}()
	}
	return c
}

func (c *idleChild) exit()                         { c.once.Do(func() { close(c.done) }) }
func (c *idleChild) Screen() vt.Emulator           { return c.em }
func (c *idleChild) SendKeys([]byte) error         { return nil }
func (c *idleChild) Redraw() error                 { return nil }
func (c *idleChild) SetRows(int) error             { return nil }
func (c *idleChild) Done() <-chan struct{}         { return c.done }
func (c *idleChild) Wait() (ptyhost.Status, error) { return ptyhost.Status{}, nil }
func (c *idleChild) Signal(os.Signal) error        { c.exit(); return nil }

// TestWatchdogs: the headless watchdogs mean what --idle-timeout says.
// A SessionStart is Claude's session started, so a run with no form is not
// ended by the start watchdog; with no idle limit (--idle-timeout 0) the
// start watchdog is off too; a screen that keeps changing without ever
// settling, or whose changes the emulator skipped, is not idle.
func TestWatchdogs(t *testing.T) {
	const life = 1500 * time.Millisecond // the child's, unless the watchdog ends it first
	stream := func(em vt.Emulator, n int) { fmt.Fprintf(em, "line %d of a long stream\r\n", n) }
	skip := func(em vt.Emulator, n int) { em.Skip(fmt.Appendf(nil, "line %d, behind\r\n", n)) }
	blink := func(em vt.Emulator, n int) { fmt.Fprintf(em, "\x1b[5;1H%s Calling demo…", []string{"●", " "}[n%2]) }
	timer := func(em vt.Emulator, n int) {
		fmt.Fprintf(em, "\x1b[5;1H%s Working… (%ds)", []string{"✢", "✳", "✶", "✻", "✽"}[n%5], n/10)
	}
	for _, tc := range []struct {
		name    string
		idle    time.Duration
		started bool // Claude sends SessionStart
		draw    func(em vt.Emulator, n int)
		blocked string // "" for a run that is not ended
	}{
		{"session started", 0, true, nil, ""},
		{"no session", 0, false, nil, "has not started its session"},
		{"no session, no limit", -1, false, nil, ""},
		{"still", 300 * time.Millisecond, true, nil, "has not changed"},
		{"streaming", 300 * time.Millisecond, true, stream, ""},
		{"skipped", 300 * time.Millisecond, true, skip, ""},
		// A dot that blinks, or a spinner going round, is a screen that
		// waits; a timer that counts is one at work.
		{"blinking", 300 * time.Millisecond, true, blink, "has not changed"},
		{"spinner with a timer", 300 * time.Millisecond, true, timer, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := &testkit.SyncBuffer{}
			s := newSession(Config{Log: events.New(log), Host: ptyhost.Config{Headless: true, Cols: 80, Rows: 20},
				IdleLimit: tc.idle})
			s.startLimit, s.startQuiet = 200*time.Millisecond, 100*time.Millisecond
			begun := time.Now() // the child's life starts after it
			c := newIdleChild(life, tc.draw)
			msgs := make(chan hook.Message, 1)
			if tc.started {
				msgs <- hook.Message{Payload: &hook.Payload{HookEventName: hook.SessionStart, SessionID: "s1", Source: "startup"}}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			rep, err := s.serve(ctx, c, c, msgs)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(begun)
			switch {
			case tc.blocked == "" && (rep.Blocked != "" || took < life):
				t.Errorf("ended after %v (blocked: %q); want the child to live its %v\n%s", took, rep.Blocked, life, log)
			case tc.blocked != "" && !strings.Contains(rep.Blocked, tc.blocked):
				t.Errorf("blocked %q after %v, want %q\n%s", rep.Blocked, took, tc.blocked, log)
			}
		})
	}
}

// TestWatchdogUnreadDialog: Claude asked for permission (a
// PermissionRequest a rule leaves to the screen) and its still screen
// shows neither a dialog claudewrap can read nor its input box: a headless
// run is ended, blocked, not left until the idle limit (a dialog 2.1.197
// drew with "2.Yes" kept a random-dialog run alive for minutes). With its
// input box on the screen (the request went away unseen), it is not.
func TestWatchdogUnreadDialog(t *testing.T) {
	const life = 2 * time.Second
	rule := strings.Repeat("─", 80)
	for _, tc := range []struct {
		name, screen, blocked string
	}{
		{"unread", rule + "\r\n Bash command\r\n\r\n Do you want to proceed?\r\n ❯ 1.Yes\r\n", "no dialog claudewrap can read"},
		{"at the prompt", rule + "\r\n❯ \r\n" + rule + "\r\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &testkit.SyncBuffer{}
			s := newSession(Config{Log: events.New(log), Host: ptyhost.Config{Headless: true, Cols: 80, Rows: 20}})
			s.startLimit, s.startQuiet = 300*time.Millisecond, 100*time.Millisecond
			c := newIdleChild(life, nil)
			_, _ = c.em.Write([]byte("\x1b[2J\x1b[H● Bash(rm -rf build)\r\n\r\n" + tc.screen))
			msgs := make(chan hook.Message, 2)
			msgs <- hook.Message{Payload: &hook.Payload{HookEventName: hook.SessionStart, SessionID: "s1", Source: "startup"}}
			msgs <- hook.Message{Payload: &hook.Payload{HookEventName: hook.PermissionRequest, ToolName: "Bash", SessionID: "s1"}}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			begun := time.Now()
			rep, err := s.serve(ctx, c, c, msgs)
			if err != nil {
				t.Fatal(err)
			}
			switch took := time.Since(begun); {
			case tc.blocked == "" && (rep.Blocked != "" || took < life):
				t.Errorf("ended after %v (blocked: %q); want the child to live its %v\n%s", took, rep.Blocked, life, log)
			case tc.blocked != "" && (!strings.Contains(rep.Blocked, tc.blocked) || took >= life):
				t.Errorf("blocked %q after %v, want %q before %v\n%s", rep.Blocked, took, tc.blocked, life, log)
			}
		})
	}
}
