package session

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// elicitChild is Claude calling an MCP tool whose server asks for input:
// its "Calling demo…" line blinks, and the server's form is drawn once
// show is called (a picture that takes no keys) or showForm (a model of
// the form that takes them).
type elicitChild struct {
	em   vt.Emulator
	done chan struct{}
	once sync.Once
	quit chan struct{}

	mu   sync.Mutex
	form *fakeclaude.MCPForm
}

const elicitForm = "\x1b[2J\x1b[H● I will deploy.\r\n\r\n%s Calling demo…\r\n\r\n" +
	"────────────────────────────────────────────────────────────────────────────────\r\n" +
	"  MCP server “demo” requests your input\r\n\r\n  Which environment should I deploy to?\r\n\r\n" +
	"  ❯ * Environment: ▸ not set\r\n\r\n      Really deploy?: not set\r\n\r\n    Accept    Decline\r\n\r\n" +
	"  Esc to cancel · ↑/↓ to navigate · Backspace to unset · → to expand\r\n"

func newElicitChild(t *testing.T) *elicitChild {
	c := &elicitChild{em: screen.New(screen.Options{Cols: 80, Rows: 24}), done: make(chan struct{}), quit: make(chan struct{})}
	_, _ = c.em.Write([]byte("\x1b[2J\x1b[H● I will deploy.\r\n"))
	t.Cleanup(func() { c.Signal(os.Kill) })
	return c
}

// show draws the server's form, its "Calling…" dot blinking every 100 ms
// until Claude ends, so that the screen never stands still.
func (c *elicitChild) show() {
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			dot := "●"
			if i%2 == 1 {
				dot = " "
			}
			_, _ = c.em.Write([]byte(strings.Replace(elicitForm, "%s", dot, 1)))
			select {
			case <-tick.C:
			case <-c.done:
				return
			}
		}
	}()
}

// showForm draws a form that takes keys, drawn again every 100 ms until
// it is answered, so that the screen never stands still.
func (c *elicitChild) showForm(fields []fakeclaude.MCPField) *fakeclaude.MCPForm {
	f := fakeclaude.NewMCPForm(c.em, "demo", fields)
	c.mu.Lock()
	c.form = f
	c.mu.Unlock()
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				f.Redraw()
			case <-f.Done():
				return
			case <-c.done:
				return
			}
		}
	}()
	return f
}

func (c *elicitChild) SendKeys(p []byte) error {
	c.mu.Lock()
	f := c.form
	c.mu.Unlock()
	if f != nil {
		return f.SendKeys(p)
	}
	return nil
}
func (c *elicitChild) Screen() vt.Emulator   { return c.em }
func (c *elicitChild) Redraw() error         { return nil }
func (c *elicitChild) SetRows(int) error     { return nil }
func (c *elicitChild) Done() <-chan struct{} { return c.done }
func (c *elicitChild) Wait() (ptyhost.Status, error) {
	return ptyhost.Status{}, nil
}
func (c *elicitChild) Signal(os.Signal) error {
	c.once.Do(func() { close(c.done) })
	return nil
}

const deploySchema = `{"type":"object","properties":{` +
	`"env":{"type":"string","title":"Environment","enum":["staging","production"]},` +
	`"confirm":{"type":"boolean","title":"Really deploy?"}},"required":["env"]}`

// elicitRun serves a session on c; msgs are what Claude's hooks send.
type elicitRun struct {
	s    *session
	log  *testkit.SyncBuffer
	msgs chan hook.Message
	rep  chan Report
}

func serveElicit(t *testing.T, c *elicitChild, cfg Config) *elicitRun {
	t.Helper()
	return serveElicitTuned(t, c, cfg, nil)
}

// serveElicitTuned is serveElicit with tune applied to the session before
// it serves.
func serveElicitTuned(t *testing.T, c *elicitChild, cfg Config, tune func(*session)) *elicitRun {
	t.Helper()
	r := &elicitRun{log: &testkit.SyncBuffer{}, msgs: make(chan hook.Message, 4), rep: make(chan Report, 1)}
	cfg.Log = events.New(r.log)
	cfg.Host.Cols, cfg.Host.Rows = 80, 24
	cfg.DialogGrace = 500 * time.Millisecond
	s := newSession(cfg)
	if tune != nil {
		tune(s)
	}
	r.s = s
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	go func() {
		rep, err := s.serve(ctx, c, c, r.msgs)
		if err != nil {
			t.Error(err)
		}
		r.rep <- rep
	}()
	return r
}

// elicit sends Claude's Elicitation hook and returns the session's reply
// (nil: none, the form is drawn).
func (r *elicitRun) elicit(t *testing.T, message string) []byte {
	t.Helper()
	return r.elicitSchema(t, message, deploySchema)
}

// elicitSchema is elicit with the server's schema.
func (r *elicitRun) elicitSchema(t *testing.T, message, schema string) []byte {
	t.Helper()
	got := make(chan []byte, 1)
	r.msgs <- hook.Message{Payload: &hook.Payload{HookEventName: hook.Elicitation, SessionID: "s1",
		MCPServerName: "demo", Message: message, Mode: "form", RequestedSchema: json.RawMessage(schema)},
		Reply: func(b []byte) bool { got <- b; return true }}
	select {
	case b := <-got:
		return b
	case <-time.After(10 * time.Second):
		t.Fatalf("no reply\n%s", r.log)
		return nil
	}
}

func (r *elicitRun) result(t *testing.T, c *elicitChild) Report {
	t.Helper()
	select {
	case rep := <-r.rep:
		return rep
	case <-time.After(15 * time.Second):
		c.Signal(os.Kill)
		t.Fatalf("the session did not end\n%s", r.log)
		return Report{}
	}
}

// TestElicitByRule: under --answer-via hook a rule's answer goes back
// through the Elicitation hook with the values its schema types, said with
// the rule and its file; the form is never drawn, and nothing blocks.
func TestElicitByRule(t *testing.T) {
	t.Parallel()
	c := newElicitChild(t)
	set := permits(t, `version: 1
elicitations:
  - name: staging
    when: {server: demo, message: "(?i)environment"}
    answer: {accept: {Environment: staging, confirm: true}}
`)
	r := serveElicit(t, c, Config{Elicits: set, Host: hostHeadless, AnswerVia: AnswerViaHook})
	out := r.elicit(t, "Which environment should I deploy to?")
	var got struct {
		Out struct {
			Event   string         `json:"hookEventName"`
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Out.Event != "Elicitation" || got.Out.Action != "accept" ||
		got.Out.Content["env"] != "staging" || got.Out.Content["confirm"] != true || len(got.Out.Content) != 2 {
		t.Errorf("reply %s (%v)", out, err)
	}
	r.log.WaitFor(t, `"event":"submitted"`, 10*time.Second)
	c.Signal(os.Interrupt)
	rep := r.result(t, c)
	log := r.log.String()
	for _, want := range []string{`"event":"elicitation"`, `"server":"demo"`, `"rule":"staging"`, `"file":"rules.yaml:3"`, `"via":"hook"`} {
		if !strings.Contains(log, want) {
			t.Errorf("no %s\n%s", want, log)
		}
	}
	if rep.Blocked != "" || strings.Contains(log, `"blocked"`) {
		t.Errorf("blocked: %+v\n%s", rep, log)
	}
}

// TestElicitUnmatchedHeadless: headless, a form no rule answers (none
// matches, or the matching rule's value is not one the server offers) is
// left undecided and the run is blocked at once with the reason, not left
// on a form whose "Calling…" line blinks for ever.
func TestElicitUnmatchedHeadless(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ rules, why string }{
		"no rule":      {"version: 1\n", "no elicitation rule matches"},
		"a bad option": {"version: 1\nelicitations: [{name: qa, when: {server: demo}, answer: {accept: {env: qa}}}]\n", `\"qa\" is not one of its options`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newElicitChild(t)
			r := serveElicit(t, c, Config{Elicits: permits(t, tc.rules), Host: hostHeadless})
			if out := r.elicit(t, "Which environment should I deploy to?"); out != nil {
				t.Errorf("reply %s, want none", out)
			}
			c.show()
			rep := r.result(t, c)
			log := r.log.String()
			if !strings.Contains(rep.Blocked, `MCP server "demo" asks for input`) || !strings.Contains(log, tc.why) ||
				!strings.Contains(log, `"unmatched"`) {
				t.Errorf("report %+v\n%s", rep, log)
			}
		})
	}
}

// TestElicitOnScreenNoHook: a server's form on the screen with no
// Elicitation hook (hooks that do not run, a version without it) blocks a
// headless run after the dialog grace, however its line blinks; on the
// person's screen it is theirs, and their answer is reported.
func TestElicitOnScreenNoHook(t *testing.T) {
	t.Parallel()
	c := newElicitChild(t)
	r := serveElicit(t, c, Config{Host: hostHeadless})
	c.show()
	rep := r.result(t, c)
	if !strings.Contains(rep.Blocked, `MCP server "demo" shows an input form nobody answers`) ||
		!strings.Contains(r.log.String(), "requests your input") {
		t.Errorf("report %+v\n%s", rep, r.log)
	}

	c = newElicitChild(t)
	r = serveElicit(t, c, Config{})
	if out := r.elicit(t, "Which environment should I deploy to?"); out != nil {
		t.Errorf("reply %s, want none", out)
	}
	c.show()
	r.msgs <- hook.Message{Payload: &hook.Payload{HookEventName: hook.ElicitationResult, SessionID: "s1",
		MCPServerName: "demo", Action: "accept", Content: json.RawMessage(`{"env":"production"}`)}}
	r.log.WaitFor(t, `"by":"person"`, 10*time.Second)
	c.Signal(os.Interrupt)
	rep = r.result(t, c)
	log := r.log.String()
	if rep.Blocked != "" || !strings.Contains(log, `"handed_over"`) || !strings.Contains(log, `"content":{"env":"production"}`) {
		t.Errorf("report %+v\n%s", rep, log)
	}
}

// TestElicitDryRun: a dry run decides an MCP server's form and says so, but
// gives nothing through the hook; headless, the rules having answered it,
// the run ends there (exit 0).
func TestElicitDryRun(t *testing.T) {
	t.Parallel()
	c := newElicitChild(t)
	set := permits(t, "version: 1\nelicitations: [{name: no, when: {server: demo}, answer: decline}]\n")
	r := serveElicit(t, c, Config{Elicits: set, Host: hostHeadless, DryRun: true})
	if out := r.elicit(t, "Which environment should I deploy to?"); out != nil {
		t.Errorf("a dry run replied %s", out)
	}
	rep := r.result(t, c)
	log := r.log.String()
	if !strings.Contains(log, `"dry_run":true`) || !strings.Contains(log, `"action":"decline"`) || rep.Blocked != "" || rep.EndedWhy != DryRunDone ||
		strings.Contains(log, `"submitted"`) {
		t.Errorf("report %+v\n%s", rep, log)
	}
}
