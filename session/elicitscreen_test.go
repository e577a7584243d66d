package session

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
)

var (
	fullSchema = fakeclaude.FullMCPSchema
	fullFields = fakeclaude.FullMCPFields()
)

const fullRule = `version: 1
elicitations:
  - name: ship
    when: {server: demo}
    answer: {accept: {env: production, confirm: false, note: ship it, count: 3, regions: [asia, eu]}}
`

// answered waits for the form to be answered and sends what Claude's
// ElicitationResult hook reports of it (its content changed by mangle, if
// set).
func (r *elicitRun) answered(t *testing.T, f *fakeclaude.MCPForm, mangle func(map[string]any)) {
	t.Helper()
	select {
	case <-f.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the form was never answered; keys %v\n%s", f.Keys(), r.log)
	}
	action, content := f.Result()
	if mangle != nil {
		mangle(content)
	}
	b, _ := json.Marshal(content)
	r.msgs <- hook.Message{Payload: &hook.Payload{HookEventName: hook.ElicitationResult, SessionID: "s1",
		MCPServerName: "demo", Action: action, Content: b}}
}

// TestElicitOnScreen: by default a rule's answer is given on the screen:
// the hook replies nothing, askflow sets every field and presses Accept,
// the form gets exactly the rule's values, and Claude's ElicitationResult
// is verified against them as claudewrap's own answer.
func TestElicitOnScreen(t *testing.T) {
	t.Parallel()
	c := newElicitChild(t)
	r := serveElicit(t, c, Config{Elicits: permits(t, fullRule), Host: hostHeadless})
	if out := r.elicitSchema(t, "Deploy?", fullSchema); out != nil {
		t.Fatalf("reply %s, want none: the form is drawn", out)
	}
	f := c.showForm(fullFields)
	r.answered(t, f, nil)
	r.log.WaitFor(t, `"event":"verified"`, 10*time.Second)
	r.log.WaitFor(t, `"event":"submitted"`, 10*time.Second)
	c.Signal(os.Interrupt)
	rep := r.result(t, c)
	action, content := f.Result()
	want := map[string]any{"env": "production", "confirm": false, "note": "ship it", "count": 3.0, "regions": []string{"eu", "asia"}}
	if action != "accept" || !reflect.DeepEqual(content, want) {
		t.Errorf("the form got %s %v, want %v", action, content, want)
	}
	log := r.log.String()
	for _, w := range []string{`"via":"screen"`, `"event":"submitted"`, `"by":"claudewrap"`, `"key":"Space"`} {
		if !strings.Contains(log, w) {
			t.Errorf("no %s\n%s", w, log)
		}
	}
	if rep.Blocked != "" || rep.Mismatch || strings.Contains(log, `"by":"person"`) {
		t.Errorf("report %+v\n%s", rep, log)
	}
}

// TestElicitOnScreenMismatch: Claude reports other values than the rule's
// for claudewrap's answer: a mismatch with both, and exit 6.
func TestElicitOnScreenMismatch(t *testing.T) {
	t.Parallel()
	c := newElicitChild(t)
	r := serveElicit(t, c, Config{Elicits: permits(t, fullRule), Host: hostHeadless})
	r.elicitSchema(t, "Deploy?", fullSchema)
	f := c.showForm(fullFields)
	r.answered(t, f, func(m map[string]any) { m["env"] = "staging" })
	r.log.WaitFor(t, `"event":"mismatch"`, 10*time.Second)
	c.Signal(os.Interrupt)
	rep := r.result(t, c)
	if !rep.Mismatch || exitOf(rep) != ExitMismatch || !strings.Contains(r.log.String(), `"want":{"action":"accept"`) {
		t.Errorf("report %+v (exit %d)\n%s", rep, exitOf(rep), r.log)
	}
}

// TestElicitScreenCannot: a value the screen driver cannot set (a date
// field) is known before the hook replies: the answer goes through the
// hook, and the decision says so.
func TestElicitScreenCannot(t *testing.T) {
	t.Parallel()
	c := newElicitChild(t)
	set := permits(t, "version: 1\nelicitations: [{name: when, when: {server: demo}, answer: {accept: {day: \"2026-12-01\"}}}]\n")
	r := serveElicit(t, c, Config{Elicits: set, Host: hostHeadless})
	out := r.elicitSchema(t, "When?", `{"type":"object","properties":{"day":{"type":"string","format":"date"}}}`)
	if !strings.Contains(string(out), `"action":"accept"`) || !strings.Contains(string(out), `"day":"2026-12-01"`) {
		t.Fatalf("reply %s, want the answer", out)
	}
	r.log.WaitFor(t, `"event":"submitted"`, 10*time.Second)
	c.Signal(os.Interrupt)
	r.result(t, c)
	log := r.log.String()
	if !strings.Contains(log, `"via":"hook"`) || !strings.Contains(log, `"note":"answered through the hook: field day: a date field`) {
		t.Errorf("no via hook with its note\n%s", log)
	}
}

// TestElicitOnScreenUnconfirmed: headless, a form the screen does not show
// as the schema asks (a field missing) gets no key; the run reports the
// error and is blocked with the screen (exit 7).
func TestElicitOnScreenUnconfirmed(t *testing.T) {
	t.Parallel()
	c := newElicitChild(t)
	cfg := Config{Elicits: permits(t, fullRule), Host: hostHeadless}
	cfg.Flow.FormTimeout = 500 * time.Millisecond
	r := serveElicit(t, c, cfg)
	r.elicitSchema(t, "Deploy?", fullSchema)
	f := c.showForm(fullFields[:4])
	rep := r.result(t, c)
	log := r.log.String()
	if len(f.Keys()) != 0 || exitOf(rep) != ExitBlocked || !strings.Contains(rep.Blocked, "the screen did not confirm a step") ||
		!strings.Contains(log, `"event":"error"`) || !strings.Contains(log, `"screen":`) {
		t.Errorf("keys %v, report %+v\n%s", f.Keys(), rep, log)
	}
}

// TestElicitOnScreenTakenOver: the person's key while claudewrap answers
// makes the form theirs: no key of claudewrap's after it, and what Claude
// reports is the person's answer.
func TestElicitOnScreenTakenOver(t *testing.T) {
	t.Parallel()
	c := newElicitChild(t)
	r := serveElicit(t, c, Config{Elicits: permits(t, fullRule)})
	r.elicitSchema(t, "Deploy?", fullSchema)
	f := c.showForm(fullFields)
	r.log.WaitFor(t, `"event":"key"`, 10*time.Second)
	r.s.input([]byte("x"))
	r.log.WaitFor(t, `"event":"handed_over"`, 10*time.Second)
	// handed_over comes once askflow has returned: no key can follow.
	n := len(f.Keys())
	r.msgs <- hook.Message{Payload: &hook.Payload{HookEventName: hook.ElicitationResult, SessionID: "s1",
		MCPServerName: "demo", Action: "decline"}}
	r.log.WaitFor(t, `"by":"person"`, 10*time.Second)
	if len(f.Keys()) != n {
		t.Errorf("keys after the hand-over: %v", f.Keys()[n:])
	}
	c.Signal(os.Interrupt)
	rep := r.result(t, c)
	if rep.Mismatch || strings.Contains(r.log.String(), `"event":"verified"`) {
		t.Errorf("report %+v\n%s", rep, r.log)
	}
}

func exitOf(rep Report) ExitCode {
	code, _ := rep.Exit(nil)
	return code
}
