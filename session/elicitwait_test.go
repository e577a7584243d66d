package session

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// waitRun is a headless session under the wait policy, no rules, an MCP
// form asked (and drawn) in it.
func waitRun(t *testing.T, cfg Config) (*elicitChild, *elicitRun) {
	t.Helper()
	return waitRunTuned(t, cfg, nil)
}

// waitRunTuned is waitRun with tune applied to the session before it
// serves.
func waitRunTuned(t *testing.T, cfg Config, tune func(*session)) (*elicitChild, *elicitRun) {
	t.Helper()
	c := newElicitChild(t)
	cfg.Host, cfg.Policy = hostHeadless, rules.Wait
	r := serveElicitTuned(t, c, cfg, tune)
	if out := r.elicitSchema(t, "Deploy?", fullSchema); out != nil {
		t.Fatalf("reply %s, want none: the form is drawn", out)
	}
	r.log.WaitFor(t, `"event":"handed_over"`, 10*time.Second)
	return c, r
}

// answerMCP answers form id from elsewhere, as claudewrap answer does.
func (r *elicitRun) answerMCP(id, action, values string) remote.Outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return remoteHandler{r.s}.AnswerElicitation(ctx, id, remote.FromAnswer, remote.ElicitAnswer{Action: action, Values: values})
}

// TestElicitWaitAccept: an MCP form no rule answers waits, listed with
// its server, message and fields; an answer from elsewhere is given on
// the screen, and its sender told what Claude reports, verified.
func TestElicitWaitAccept(t *testing.T) {
	t.Parallel()
	c, r := waitRun(t, Config{})
	forms := remoteHandler{r.s}.Pending()
	if len(forms) != 1 || forms[0].Elicitation == nil {
		t.Fatalf("pending %+v", forms)
	}
	e := forms[0].Elicitation
	want := remote.ElicitField{Name: "env", Title: "Environment", Type: "string", Options: []string{"staging", "production"}, Required: true}
	if forms[0].ToolUseID != "elicitation-1" || e.Server != "demo" || e.Message != "Deploy?" || len(e.Fields) != 5 || !reflect.DeepEqual(e.Fields[0], want) {
		t.Errorf("pending %+v %+v", forms[0], e)
	}
	f := c.showForm(fullFields)
	got := make(chan remote.Outcome, 1)
	go func() {
		got <- r.answerMCP("elicitation-1", "accept", "{Environment: production, confirm: true, count: 2, regions: [eu]}")
	}()
	r.answered(t, f, nil)
	o := <-got
	if o.Result != "verified" || !strings.Contains(string(o.Elicited), `"env":"production"`) {
		t.Errorf("outcome %+v", o)
	}
	action, content := f.Result()
	wantC := map[string]any{"env": "production", "confirm": true, "count": 2.0, "regions": []string{"eu"}}
	if action != "accept" || !reflect.DeepEqual(content, wantC) {
		t.Errorf("the form got %s %v, want %v", action, content, wantC)
	}
	if len(remoteHandler{r.s}.Pending()) != 0 {
		t.Error("the answered form is still pending")
	}
	c.Signal(os.Interrupt)
	rep := r.result(t, c)
	log := r.log.String()
	for _, w := range []string{`"form":"elicitation-1"`, `"from":"claudewrap answer"`, `"event":"verified"`} {
		if !strings.Contains(log, w) {
			t.Errorf("no %s\n%s", w, log)
		}
	}
	if rep.Blocked != "" || rep.Mismatch {
		t.Errorf("report %+v\n%s", rep, log)
	}
}

// TestElicitWaitDecline: decline is pressed on the screen and verified.
func TestElicitWaitDecline(t *testing.T) {
	t.Parallel()
	c, r := waitRun(t, Config{})
	f := c.showForm(fullFields)
	got := make(chan remote.Outcome, 1)
	go func() { got <- r.answerMCP("elicitation-1", "decline", "") }()
	r.answered(t, f, nil)
	if o := <-got; o.Result != "verified" {
		t.Errorf("outcome %+v\n%s", o, r.log)
	}
	if action, _ := f.Result(); action != "decline" {
		t.Errorf("the form got %s", action)
	}
	c.Signal(os.Interrupt)
	r.result(t, c)
}

// TestElicitWaitRefused: values the schema refuses, an unknown form, and
// a value the screen cannot take are refused before anything is pressed;
// the form still waits.
func TestElicitWaitRefused(t *testing.T) {
	t.Parallel()
	c, r := waitRun(t, Config{})
	f := c.showForm(fullFields)
	for _, tc := range []struct{ id, action, values, msg string }{
		{"elicitation-1", "accept", "{env: dev}", `field env: "dev" is not one of its options`},
		{"elicitation-1", "accept", "{confirm: true}", "field env is required"},
		{"elicitation-1", "accept", "{env: staging, count: many}", "a number field takes a number"},
		{"elicitation-1", "accept", "{env: staging, note: '  padded'}", "the screen cannot take it"},
		{"elicitation-1", "maybe", "", `unknown action "maybe"`},
		{"elicitation-2", "decline", "", "no MCP server's form elicitation-2 waits"},
	} {
		o := r.answerMCP(tc.id, tc.action, tc.values)
		if o.Result != "refused" || !strings.Contains(o.Message, tc.msg) {
			t.Errorf("%s %s: %+v, want refused %q", tc.action, tc.values, o, tc.msg)
		}
	}
	if len(f.Keys()) != 0 {
		t.Errorf("keys pressed: %v", f.Keys())
	}
	if len(remoteHandler{r.s}.Pending()) != 1 {
		t.Error("the form no longer waits")
	}
	c.Signal(os.Interrupt)
	r.result(t, c)
}

// TestElicitWaitPersonFirst: the person's keys at Claude's screen make the
// form theirs (taken); once Claude reports their answer, it waits no more.
func TestElicitWaitPersonFirst(t *testing.T) {
	t.Parallel()
	c, r := waitRun(t, Config{})
	f := c.showForm(fullFields)
	r.s.input([]byte("x"))
	if o := r.answerMCP("elicitation-1", "decline", ""); o.Result != "taken" {
		t.Errorf("outcome %+v", o)
	}
	r.msgs <- hook.Message{Payload: &hook.Payload{HookEventName: hook.ElicitationResult, SessionID: "s1",
		MCPServerName: "demo", Action: "cancel"}}
	r.log.WaitFor(t, `"by":"person"`, 10*time.Second)
	if o := r.answerMCP("elicitation-1", "decline", ""); o.Result != "refused" {
		t.Errorf("outcome after the person's answer %+v", o)
	}
	if len(remoteHandler{r.s}.Pending()) != 0 || strings.Contains(r.log.String(), `"event":"key"`) {
		t.Errorf("pending %+v, keys %v\n%s", remoteHandler{r.s}.Pending(), f.Keys(), r.log)
	}
	c.Signal(os.Interrupt)
	rep := r.result(t, c)
	if rep.Mismatch || rep.Blocked != "" {
		t.Errorf("report %+v", rep)
	}
}

// TestElicitWaitBound: headless, a form nobody answers waits the answer
// timeout, then blocks the run (exit 7) saying so.
func TestElicitWaitBound(t *testing.T) {
	t.Parallel()
	c, r := waitRun(t, Config{AnswerTimeout: 1500 * time.Millisecond})
	c.show()
	r.log.WaitFor(t, `"event":"blocked"`, 10*time.Second)
	rep := r.result(t, c)
	if exitOf(rep) != ExitBlocked || !strings.Contains(rep.Blocked, "within 1.5s (--answer-timeout)") {
		t.Errorf("report %+v (exit %d)\n%s", rep, exitOf(rep), r.log)
	}
	if len(remoteHandler{r.s}.Pending()) != 0 {
		t.Error("still pending after the bound")
	}
}

// TestElicitWaitNotify: --notify gets an MCP form that waits, as claudewrap
// pending lists it: its name, server, message and fields.
func TestElicitWaitNotify(t *testing.T) {
	t.Parallel()
	out := t.TempDir() + "/notified.json"
	c, r := waitRun(t, Config{Notify: "cat > " + out, SessionName: "4242"})
	deadline := time.Now().Add(10 * time.Second)
	var b []byte
	for time.Now().Before(deadline) && !strings.Contains(string(b), `"elicitation"`) {
		time.Sleep(20 * time.Millisecond) // another process's file, under a deadline
		b, _ = os.ReadFile(out)
	}
	for _, want := range []string{`"session":"4242"`, `"tool_use_id":"elicitation-1"`, `"server":"demo"`, `"message":"Deploy?"`, `"title":"Environment"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("--notify got %s; no %s", b, want)
		}
	}
	c.Signal(os.Interrupt)
	r.result(t, c)
}

// TestElicitWaitReminds: headless, an MCP form that waits is said again
// while it waits, with the session and its name, and no more once it is
// answered.
func TestElicitWaitReminds(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	c, r := waitRunTuned(t, Config{Remote: true}, func(s *session) { s.remindEvery = 50 * time.Millisecond })
	r.log.WaitForN(t, `"event":"waiting"`, 2, 10*time.Second)
	log := r.log.String()
	for _, want := range []string{`"tool_use_id":"elicitation-1"`, `"elicitation":"demo"`, `"session":"` + r.s.reg.ID() + `"`} {
		if !strings.Contains(log, want) {
			t.Errorf("no %s in the reminders\n%s", want, log)
		}
	}
	f := c.showForm(fullFields)
	go r.answerMCP("elicitation-1", "decline", "")
	r.answered(t, f, nil)
	c.Signal(os.Interrupt)
	r.result(t, c)
	log = r.log.String()
	if after := log[strings.Index(log, `"event":"verified"`):]; strings.Contains(after, `"event":"waiting"`) {
		t.Errorf("a reminder after the form was answered\n%s", log)
	}
}
