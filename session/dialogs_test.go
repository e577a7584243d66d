package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// dialogChild is Claude showing one dialog, a permission prompt unless
// made otherwise: arrows move its pointer, Enter picks the option and the
// dialog goes.
type dialogChild struct {
	em     vt.Emulator
	done   chan struct{}
	once   sync.Once
	chosen chan struct{} // closed on Enter

	// head is drawn above the rule, body under it above the options,
	// footer under them; plain options have no numbers.
	head, body, footer string
	plain              bool

	mu      sync.Mutex
	options []string
	focus   int
	picked  string
}

func newDialogChild(options ...string) *dialogChild {
	c := &dialogChild{em: screen.New(screen.Options{Cols: 80, Rows: 20}), done: make(chan struct{}),
		chosen: make(chan struct{}), options: options,
		head:   "● Bash(rm -rf build)\r\n\r\n",
		body:   " Bash command\r\n\r\n   rm -rf build\r\n\r\n Do you want to proceed?\r\n",
		footer: "\r\n Esc to cancel · Tab to amend\r\n"}
	c.draw()
	return c
}

// newBypassChild is Claude asking to confirm --dangerously-skip-permissions
// before its session starts, its options numbered as 2.1.197 draws them or
// plain as 2.1.332 does.
func newBypassChild(numbered bool) *dialogChild {
	c := &dialogChild{em: screen.New(screen.Options{Cols: 80, Rows: 20}), done: make(chan struct{}),
		chosen: make(chan struct{}), options: []string{"No, exit", bypassLabel}, plain: !numbered,
		body: "  WARNING: Claude Code running in Bypass Permissions mode\r\n\r\n" +
			"  In Bypass Permissions mode, Claude Code will not ask for your approval before\r\n" +
			"  running potentially dangerous commands.\r\n\r\n  https://code.claude.com/docs/en/security\r\n\r\n",
		footer: "\r\n  Enter to confirm · Esc to cancel\r\n"}
	c.draw()
	return c
}

func (c *dialogChild) draw() {
	var b strings.Builder
	b.WriteString("\x1b[2J\x1b[H" + c.head + strings.Repeat("─", 80) + "\r\n" + c.body)
	if c.picked == "" {
		for i, o := range c.options {
			mark := "  "
			if i == c.focus {
				mark = "❯ "
			}
			if !c.plain {
				o = string(rune('1'+i)) + ". " + o
			}
			b.WriteString(" " + mark + o + "\r\n")
		}
		b.WriteString(c.footer)
	} else {
		// Claude waits at its prompt.
		b.WriteString("\r\n" + strings.Repeat("─", 80) + "\r\n❯ \r\n" + strings.Repeat("─", 80) + "\r\n")
	}
	_, _ = c.em.Write([]byte(b.String()))
}

func (c *dialogChild) SendKeys(p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch string(p) {
	case "\x1b[B":
		c.focus = min(c.focus+1, len(c.options)-1)
	case "\x1b[A":
		c.focus = max(c.focus-1, 0)
	case "\r":
		c.picked = c.options[c.focus]
		close(c.chosen)
	}
	c.draw()
	return nil
}

// exitWhenChosen has Claude exit once an option is picked (or after a
// deadline, for a test that fails).
func (c *dialogChild) exitWhenChosen() {
	select {
	case <-c.chosen:
	case <-time.After(8 * time.Second):
	}
	_ = c.Signal(os.Interrupt)
}

func (c *dialogChild) Picked() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.picked
}

func (c *dialogChild) Screen() vt.Emulator   { return c.em }
func (c *dialogChild) Redraw() error         { return nil }
func (c *dialogChild) SetRows(int) error     { return nil }
func (c *dialogChild) Done() <-chan struct{} { return c.done }
func (c *dialogChild) Wait() (ptyhost.Status, error) {
	return ptyhost.Status{}, nil
}
func (c *dialogChild) Signal(os.Signal) error {
	c.once.Do(func() { close(c.done) })
	return nil
}

var bashOptions = []string{"Yes", "Yes, and don't ask again for rm commands in this project", "No"}

// serveDialog runs a headless session on a dialog child: the
// PermissionRequest for Bash comes first, as from Claude.
func serveDialog(t *testing.T, c *dialogChild, cfg Config) (Report, *testkit.SyncBuffer) {
	t.Helper()
	cfg.Host = ptyhost.Config{Headless: true, Cols: 80, Rows: 20}
	return serveChild(t, c, cfg, false, hook.Message{Payload: &hook.Payload{HookEventName: hook.PermissionRequest,
		ToolName: "Bash", Input: json.RawMessage(`{"command":"rm -rf build"}`), SessionID: "s1"}})
}

// serveChild runs a session on a dialog child with cfg's host, the hook
// messages given coming first; started has Claude's session started
// before the child's screen is looked at.
func serveChild(t *testing.T, c *dialogChild, cfg Config, started bool, first ...hook.Message) (Report, *testkit.SyncBuffer) {
	t.Helper()
	log := &testkit.SyncBuffer{}
	cfg.Log = events.New(log)
	cfg.DialogGrace = time.Second
	s := newSession(cfg)
	s.hooked.Store(started)
	msgs := make(chan hook.Message, len(first))
	for _, m := range first {
		msgs <- m
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rep, err := s.serve(ctx, c, c, msgs)
	if err != nil {
		t.Fatal(err)
	}
	return rep, log
}

// TestDialogAskPerson: headless with a terminal, a dialog no rule answers
// is put to the person on claudewrap's prompt, and their option is picked
// on the screen; no answer from them ends the run blocked.
func TestDialogAskPerson(t *testing.T) {
	var asked answer.Question
	c := newDialogChild(bashOptions...)
	go c.exitWhenChosen() // Claude goes on, and exits
	rep, log := serveDialog(t, c, Config{Asker: asker(func(ctx context.Context, q answer.Question) (answer.Decision, error) {
		asked = q
		return answer.Decision{Action: answer.Select, Labels: []string{"No"}}, nil
	})})
	if c.Picked() != "No" || rep.Blocked != "" || !strings.Contains(log.String(), `"by":"the person"`) {
		t.Fatalf("want the person's No picked on the screen, got %q, report %+v\n%s", c.Picked(), rep, log)
	}
	if asked.Question == "" || len(asked.Options) != 3 || asked.Options[1].Label != bashOptions[1] {
		t.Errorf("the person was asked %+v", asked)
	}

	c = newDialogChild(bashOptions...)
	rep, log = serveDialog(t, c, Config{Asker: asker(func(ctx context.Context, q answer.Question) (answer.Decision, error) {
		return answer.Decision{Action: answer.Cancel}, nil
	})})
	if c.Picked() != "" || !strings.Contains(rep.Blocked, "no answer") {
		t.Fatalf("cancelled: want nothing picked and the run blocked, got %q, report %+v\n%s", c.Picked(), rep, log)
	}
}

// TestDialogRuleOnScreen: a rule's allow_session is carried out on the
// screen ("Yes, and don't ask again …"), and a rule saying ask, with no
// terminal, leaves the dialog to nobody: blocked, nothing pressed.
func TestDialogRuleOnScreen(t *testing.T) {
	permits := func(decide string) Permitter {
		set, err := rules.Parse("r.yaml", []byte("version: 1\npermissions:\n  - name: rm\n    when: {tool: Bash}\n    decide: "+decide+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		return &rules.Set{Files: []*rules.File{set}}
	}
	c := newDialogChild(bashOptions...)
	go c.exitWhenChosen()
	rep, log := serveDialog(t, c, Config{Permits: permits("allow_session")})
	if c.Picked() != bashOptions[1] || rep.Blocked != "" {
		t.Fatalf("allow_session: want %q picked, got %q, report %+v\n%s", bashOptions[1], c.Picked(), rep, log)
	}

	c = newDialogChild(bashOptions...)
	rep, log = serveDialog(t, c, Config{Permits: permits("ask")})
	if c.Picked() != "" || rep.Blocked == "" || strings.Contains(log.String(), `"event":"key"`) {
		t.Fatalf("ask, no terminal: want blocked and nothing pressed, got %q, report %+v\n%s", c.Picked(), rep, log)
	}
}

// TestDialogTypedBeforeAnswer: a person at Claude's screen who types after
// a dialog shows and before claudewrap presses its first key has the
// dialog: nothing is pressed, and it is handed over. Before, only a key
// typed once the answer had begun stopped it.
func TestDialogTypedBeforeAnswer(t *testing.T) {
	c := newDialogChild(bashOptions...)
	log := &testkit.SyncBuffer{}
	s := newSession(Config{Log: events.New(log), Host: ptyhost.Config{Cols: 80, Rows: 20}})
	s.ctx, s.child, s.out = context.Background(), c, c
	s.keys = keyboard{s: s}
	s.loop.start() // serve's: it hands over and presses the leased keys
	t.Cleanup(s.loop.stop)
	d, ok := screen.ParseDialog(c.em.Snapshot())
	if !ok {
		t.Fatal("no dialog on the screen")
	}
	shown := time.Now()
	s.input([]byte("x"))
	if err := s.answerDialog(context.Background(), d, "No", "", "test", shown); err != nil {
		t.Fatal(err)
	}
	if c.Picked() != "" || strings.Contains(log.String(), `"event":"key"`) ||
		!strings.Contains(log.String(), `"event":"handed_over"`) {
		t.Errorf("picked %q; want nothing pressed and the dialog handed over\n%s", c.Picked(), log)
	}
	// A key typed before the dialog showed is not at it.
	if err := s.answerDialog(context.Background(), d, "No", "", "test", time.Now()); err != nil {
		t.Fatal(err)
	}
	if c.Picked() != "No" {
		t.Errorf("picked %q, want No\n%s", c.Picked(), log)
	}
}

// TestBypassAccepted: a rules file that accepts the bypass confirmation has
// "Yes, I accept" picked on the screen, numbered or not, and the decision
// names that file.
func TestBypassAccepted(t *testing.T) {
	for _, numbered := range []bool{false, true} {
		c := newBypassChild(numbered)
		go c.exitWhenChosen()
		rep, log := serveChild(t, c, Config{Host: ptyhost.Config{Headless: true, Cols: 80, Rows: 20},
			Bypass: "dialogs.bypass_permissions in r.yaml"}, false)
		if c.Picked() != bypassLabel || rep.Blocked != "" ||
			!logged(log, "decision", "dialog", "bypass_permissions", "by", "dialogs.bypass_permissions in r.yaml", "select", bypassLabel) ||
			!logged(log, "key", "dialog", "bypass_permissions", "key", "Enter") {
			t.Errorf("numbered %t: want %q picked by the rules file, got %q, report %+v\n%s", numbered, bypassLabel, c.Picked(), rep, log)
		}
	}
}

// TestBypassNotAccepted: with no rule accepting it, the bypass confirmation
// is nobody's headless (blocked, the reason naming the rule that would
// accept it, nothing pressed) and the person's at a terminal (nothing
// pressed, nothing blocked). Once Claude's session started, a screen like
// it is not Claude's confirmation and gets no key, whatever the rules say.
func TestBypassNotAccepted(t *testing.T) {
	headless := ptyhost.Config{Headless: true, Cols: 80, Rows: 20}
	for _, tc := range []struct {
		name    string
		cfg     Config
		started bool
		blocked string // "" when the run is not blocked
	}{
		{"headless, no rule", Config{Host: headless}, false, "dialogs: {bypass_permissions: accept}"},
		{"at a terminal, no rule", Config{Host: ptyhost.Config{Cols: 80, Rows: 20}}, false, ""},
		{"after the session started", Config{Host: headless, Bypass: "dialogs.bypass_permissions in r.yaml"}, true,
			"dialogs: {bypass_permissions: accept}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newBypassChild(false)
			// Claude, left waiting past the dialog grace, ends by itself
			// at a terminal.
			life := time.AfterFunc(2*time.Second, func() { _ = c.Signal(os.Interrupt) })
			defer life.Stop()
			rep, log := serveChild(t, c, tc.cfg, tc.started)
			if c.Picked() != "" || strings.Contains(log.String(), `"event":"key"`) {
				t.Errorf("picked %q; want nothing pressed\n%s", c.Picked(), log)
			}
			if tc.blocked == "" && rep.Blocked != "" || tc.blocked != "" && !strings.Contains(rep.Blocked, tc.blocked) {
				t.Errorf("blocked %q, want %q\n%s", rep.Blocked, tc.blocked, log)
			}
			if !logged(log, "dialog", "kind", "bypass_permissions", "source", "screen") {
				t.Errorf("no dialog event of kind bypass_permissions\n%s", log)
			}
		})
	}
}

// logged reports whether the log holds an event of that name with every
// field given (name, value, name, value…).
func logged(log *testkit.SyncBuffer, name string, fields ...string) bool {
	for _, l := range strings.Split(log.String(), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(l), &ev) != nil || ev["event"] != name {
			continue
		}
		ok := true
		for i := 0; i+1 < len(fields); i += 2 {
			ok = ok && fmt.Sprint(ev[fields[i]]) == fields[i+1]
		}
		if ok {
			return true
		}
	}
	return false
}

// TestDialogNoEndsTurn: a No picked in Claude's dialog stops Claude's
// turn with no Stop hook after it (plan approval's "Exit plan mode?",
// a permission prompt): with --exit-after-turn Claude is ended once it
// waits at its prompt, not left until the idle limit. Before, a headless
// run waited there for minutes.
func TestDialogNoEndsTurn(t *testing.T) {
	set, err := rules.Parse("r.yaml", []byte("version: 1\npermissions:\n  - name: rm\n    when: {tool: Bash}\n    decide: {select: \"No\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := newDialogChild(bashOptions...)
	start := time.Now()
	rep, log := serveDialog(t, c, Config{Permits: &rules.Set{Files: []*rules.File{set}}, ExitAfterTurn: true})
	if c.Picked() != "No" || rep.Blocked != "" || !rep.Ended {
		t.Fatalf("want No picked and Claude ended at the end of its turn, got %q, report %+v\n%s", c.Picked(), rep, log)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("Claude ended after %v, want as soon as its prompt shows", d)
	}
}

// TestDialogSessionKeepsMode: allow_session never picks an option that
// changes Claude's permission mode (an edit's "Yes, and switch to accept
// edits … (shift+tab)"): after it Claude stops asking, and a later rule
// that says No is never asked (a random dialog ran an edit its rule
// refused so). Plain "Yes" is picked instead.
func TestDialogSessionKeepsMode(t *testing.T) {
	set, err := rules.Parse("r.yaml", []byte("version: 1\npermissions:\n  - name: edits\n    when: {tool: Bash}\n    decide: allow_session\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := newDialogChild("Yes", "Yes, and switch to accept edits (auto-approve file edits) for this session (shift+tab)", "No")
	go c.exitWhenChosen()
	rep, log := serveDialog(t, c, Config{Permits: &rules.Set{Files: []*rules.File{set}}})
	if c.Picked() != "Yes" || rep.Blocked != "" {
		t.Fatalf("want plain Yes picked, got %q, report %+v\n%s", c.Picked(), rep, log)
	}
}
