package inbox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/remote"
)

// fakeRun is a session as its handler shows it: the forms that wait, and
// answers applied (each takes its form, and says so). Answers wait while
// hold is set.
type fakeRun struct {
	mu      sync.Mutex
	forms   []remote.Form
	applied []applied
	hold    chan struct{}
	changed func()
}

type applied struct {
	tool, from string
	ds         []answer.Decision
}

func (f *fakeRun) Pending() []remote.Form {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]remote.Form(nil), f.forms...)
}

func (f *fakeRun) ClaudeSession() string { return "" }

func (f *fakeRun) Answer(ctx context.Context, tool, from string, ds []answer.Decision) remote.Outcome {
	f.mu.Lock()
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return remote.Outcome{Result: "failed", Message: "no outcome yet: " + ctx.Err().Error()}
		}
	}
	f.mu.Lock()
	found := -1
	for i, fm := range f.forms {
		if fm.ToolUseID == tool {
			found = i
		}
	}
	if found < 0 {
		f.mu.Unlock()
		return remote.Outcome{Result: "taken", Message: "the form does not wait"}
	}
	f.forms = append(f.forms[:found], f.forms[found+1:]...)
	f.applied = append(f.applied, applied{tool, from, ds})
	f.mu.Unlock()
	f.changed()
	return remote.Outcome{Result: "verified", Recorded: map[string]string{"Which database?": ds[0].Labels[0]}}
}

// set makes forms wait, and tells the reach.
func (f *fakeRun) set(forms ...remote.Form) {
	f.mu.Lock()
	f.forms = forms
	f.mu.Unlock()
	f.changed()
}

func (f *fakeRun) appliedSoFar() []applied {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]applied(nil), f.applied...)
}

// said collects the run's events.
type said struct {
	mu  sync.Mutex
	evs []events.Fields
}

func (s *said) watch(name string, f events.Fields) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := events.Fields{"event": name}
	for k, v := range f {
		g[k] = v
	}
	s.evs = append(s.evs, g)
}

// wait waits for an event named name whose fields hold want, and returns
// it.
func (s *said) wait(t *testing.T, within time.Duration, name string, want events.Fields) events.Fields {
	t.Helper()
	var got events.Fields
	eventually(t, within, fmt.Sprintf("a %s event %v", name, want), func() (string, bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, e := range s.evs {
			match := e["event"] == name
			for k, v := range want {
				match = match && e[k] == v
			}
			if match {
				got = e
				return "", true
			}
		}
		return fmt.Sprint(s.evs), false
	})
	return got
}

// attached is a run on machine laptop with a reach on conn c.
func attached(t *testing.T, c *Conn) (*fakeRun, remote.Handler, *said, func()) {
	t.Helper()
	log := events.New(nil)
	s := &said{}
	log.Watch(s.watch)
	run := &fakeRun{}
	r := NewReach(c, Identity{Machine: "laptop", User: "dev", Session: "4242", PID: 4242, Cwd: "/src/app", ClaudeVersion: "2.1.332"}, log)
	local, changed, stop := r.Attach(run)
	run.changed = changed
	t.Cleanup(stop)
	return run, local, s, stop
}

// formID waits until the reach said it published tool, and returns the
// form's id.
func (s *said) formID(t *testing.T, tool string) FormID {
	t.Helper()
	e := s.wait(t, wait, "inbox_form", events.Fields{"tool_use_id": tool, "state": "published"})
	return FormID(e["form_id"].(string))
}

// The run's waiting forms are published with where they wait; a form
// answered at Claude's screen is withdrawn with that reason, and the
// rest when the run ends.
func TestReachPublishWithdraw(t *testing.T) {
	srv := start(t, 1)
	run, _, s, stop := attached(t, dial(t, Config{URL: srv.URL(), Retry: true}))
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	s.wait(t, wait, "inbox", events.Fields{"state": "connected"})

	run.set(form("toolu_1"), form("toolu_2"))
	a, b := s.formID(t, "toolu_1"), s.formID(t, "toolu_2")
	for _, f := range listed(t, alice, a, b) {
		if f.Machine != "laptop" || f.User != "dev" || f.Cwd != "/src/app" || f.ClaudeVersion != "2.1.332" || f.PID != 4242 {
			t.Errorf("listed %+v: want it where it waits", f)
		}
	}

	// A form gone from the run, told twice: withdrawn once.
	run.set(form("toolu_1"))
	run.changed()
	s.wait(t, wait, "inbox_form", events.Fields{"tool_use_id": "toolu_2", "state": "withdrawn"})
	listed(t, alice, a)
	f, err := alice.Form(context.Background(), b)
	if err != nil || f.State != Closed || !strings.Contains(f.Reason, "no longer waits") {
		t.Fatalf("a form gone from the run: %+v, %v; want it closed with a reason", f, err)
	}

	stop()
	listed(t, alice)
	if f, err := alice.Form(context.Background(), a); err != nil || f.Reason != "the run ended" {
		t.Fatalf("a form of a run that ended: %+v, %v", f, err)
	}
}

// A form answered at Claude's screen is withdrawn saying so.
func TestReachReasonFromEvents(t *testing.T) {
	srv := start(t, 1)
	c := dial(t, Config{URL: srv.URL(), Retry: true})
	log := events.New(nil)
	s := &said{}
	log.Watch(s.watch)
	run := &fakeRun{}
	r := NewReach(c, Identity{Machine: "laptop", Session: "1"}, log)
	_, changed, stop := r.Attach(run)
	run.changed = changed
	t.Cleanup(stop)
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})

	run.set(form("toolu_1"))
	id := s.formID(t, "toolu_1")
	log.Emit("submitted", events.Fields{"tool_use_id": "toolu_1", "by": "person"})
	run.set()
	s.wait(t, wait, "inbox_form", events.Fields{"tool_use_id": "toolu_1", "state": "withdrawn", "reason": "answered at Claude's screen"})
	r2, err := alice.Answer(context.Background(), id, pick("SQLite"), 0)
	if err != nil || r2.Result != "refused" || !strings.Contains(r2.Message, "moved on: answered at Claude's screen") {
		t.Fatalf("an answer to it: %+v, %v; want it refused with the reason", r2, err)
	}
}

// An answer from elsewhere is applied once, through the session's
// handler, naming the inbox user; one the form cannot take is refused
// before it reaches the session, and the form waits again.
func TestReachClaimApplied(t *testing.T) {
	srv := start(t, 1)
	run, _, s, _ := attached(t, dial(t, Config{URL: srv.URL(), Retry: true}))
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	run.set(form("toolu_1"))
	id := s.formID(t, "toolu_1")
	listed(t, alice, id)

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r, err := alice.Answer(ctx, id, pick("Oracle"), 0)
	if err != nil || r.Result != "refused" || !strings.Contains(r.Message, `"Oracle" is not offered`) {
		t.Fatalf("an answer the form cannot take: %+v, %v; want it refused", r, err)
	}
	if a := run.appliedSoFar(); len(a) != 0 {
		t.Fatalf("the session was given %+v", a)
	}
	eventually(t, wait, "the form waiting again", func() (string, bool) {
		f, err := alice.Form(context.Background(), id)
		return fmt.Sprintf("%+v %v", f, err), err == nil && f.State == Open && f.Round == 2
	})

	r, err = alice.Answer(ctx, id, pick("SQLite"), 0)
	if err != nil || r.Result != "verified" || r.Recorded["Which database?"] != "SQLite" {
		t.Fatalf("alice's answer: %+v, %v", r, err)
	}
	a := run.appliedSoFar()
	if len(a) != 1 || a[0].tool != "toolu_1" || a[0].from != "claudewrap answer (inbox user alice)" || a[0].ds[0].Labels[0] != "SQLite" {
		t.Fatalf("the session was given %+v; want alice's answer once, naming her", a)
	}
	s.wait(t, wait, "inbox_form", events.Fields{"tool_use_id": "toolu_1", "state": "withdrawn",
		"reason": "answered by claudewrap answer (inbox user alice)"})
	eventually(t, wait, "the form closed, saying who answered it", func() (string, bool) {
		f, err := alice.Form(ctx, id)
		return fmt.Sprintf("%+v %v", f, err), err == nil && f.State == Closed && f.Reason == "answered by claudewrap answer (inbox user alice)"
	})
	if r, err := alice.Answer(ctx, id, pick("SQLite"), 0); err != nil || r.Result != "refused" {
		t.Fatalf("answering it again: %+v, %v; want refused", r, err)
	}
	if a := run.appliedSoFar(); len(a) != 1 {
		t.Fatalf("applied %d times", len(a))
	}
}

// A local answer takes part in the race: it loses to an answer from
// elsewhere being applied, told who took the form, and one being applied
// makes an answer from elsewhere lose.
func TestReachLocalRace(t *testing.T) {
	srv := start(t, 1)
	run, local, s, _ := attached(t, dial(t, Config{URL: srv.URL(), Retry: true}))
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	hold := make(chan struct{})
	run.hold = hold
	run.set(form("toolu_1"), form("toolu_2"))
	one, two := s.formID(t, "toolu_1"), s.formID(t, "toolu_2")
	listed(t, alice, one, two)

	// alice first: her answer waits in the session; the local one loses.
	got := make(chan Result, 1)
	go func() {
		r, err := alice.Answer(context.Background(), one, pick("SQLite"), 0)
		if err != nil {
			r.Message = err.Error()
		}
		got <- r
	}()
	eventually(t, wait, "alice's answer taking the form", func() (string, bool) {
		f, err := alice.Form(context.Background(), one)
		return fmt.Sprintf("%+v %v", f, err), err == nil && f.State == Answering
	})
	o := local.Answer(context.Background(), "toolu_1", "claudewrap answer, pid 1", []answer.Decision{{Action: answer.Select, Labels: []string{"PostgreSQL"}}})
	if o.Result != "taken" || !strings.Contains(o.Message, "alice (claudewrap answer)") {
		t.Fatalf("the local answer: %+v; want taken by alice", o)
	}
	close(hold)
	if r := <-got; r.Result != "verified" {
		t.Fatalf("alice's answer: %+v", r)
	}

	// The local answer first: alice's loses.
	hold = make(chan struct{})
	run.mu.Lock()
	run.hold = hold
	run.mu.Unlock()
	done := make(chan remote.Outcome, 1)
	go func() {
		done <- local.Answer(context.Background(), "toolu_2", "claudewrap answer, pid 1", []answer.Decision{{Action: answer.Select, Labels: []string{"PostgreSQL"}}})
	}()
	eventually(t, wait, "the local answer taking the form", func() (string, bool) {
		f, err := alice.Form(context.Background(), two)
		return fmt.Sprintf("%+v %v", f, err), err == nil && f.State == Answering
	})
	r, err := alice.Answer(context.Background(), two, pick("SQLite"), 0)
	if err != nil || r.Result != "taken" || !strings.Contains(r.Message, "an answer on laptop") {
		t.Fatalf("alice's answer after the local one: %+v, %v; want taken", r, err)
	}
	close(hold)
	if o := <-done; o.Result != "verified" {
		t.Fatalf("the local answer: %+v", o)
	}
	a := run.appliedSoFar()
	if len(a) != 2 || a[0].from != "claudewrap answer (inbox user alice)" || a[1].from != "claudewrap answer, pid 1" {
		t.Fatalf("applied %+v; want alice's to the first form, the local one to the second", a)
	}
	s.wait(t, wait, "inbox_form", events.Fields{"tool_use_id": "toolu_2", "state": "withdrawn",
		"reason": "answered on laptop (claudewrap answer, pid 1)"})
}

// A run whose inbox is unreachable at its start says so, and answers
// locally; once the inbox is back, it says so and publishes what waits,
// the form answered meanwhile closed with its reason.
func TestReachUnreachableThenBack(t *testing.T) {
	srv := start(t, 1)
	srv.Stop(0)
	run, local, s, _ := attached(t, dial(t, Config{URL: srv.URL(), Retry: true}))
	s.wait(t, wait, "inbox", events.Fields{"state": "unreachable"})

	run.set(form("toolu_1"))
	one := s.formID(t, "toolu_1")
	o := local.Answer(context.Background(), "toolu_1", "claudewrap answer, pid 1", []answer.Decision{{Action: answer.Select, Labels: []string{"SQLite"}}})
	if o.Result != "verified" {
		t.Fatalf("a local answer while the inbox is unreachable: %+v", o)
	}
	s.wait(t, wait, "inbox_form", events.Fields{"tool_use_id": "toolu_1", "state": "answered_here"})
	run.set(form("toolu_2"))
	two := s.formID(t, "toolu_2")

	srv.Start(0)
	srv.WaitReady()
	s.wait(t, electionWait, "inbox", events.Fields{"state": "connected"})
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	listed(t, alice, two)
	eventually(t, wait, "the form answered meanwhile closed", func() (string, bool) {
		f, err := alice.Form(context.Background(), one)
		return fmt.Sprintf("%+v %v", f, err), err == nil && f.State == Closed && strings.Contains(f.Reason, "answered on laptop")
	})
	r, err := alice.Answer(context.Background(), two, pick("SQLite"), 0)
	if err != nil || r.Result != "verified" {
		t.Fatalf("answering the form published once the inbox was back: %+v, %v", r, err)
	}
	if a := run.appliedSoFar(); len(a) != 2 {
		t.Fatalf("applied %+v; want the local answer and alice's", a)
	}
}

// elicitRun is a run whose MCP server's form waits.
type elicitRun struct {
	fakeRun
	got chan remote.ElicitAnswer
}

func (e *elicitRun) AnswerElicitation(_ context.Context, id, from string, a remote.ElicitAnswer) remote.Outcome {
	e.got <- a
	return remote.Outcome{Result: "verified", Elicited: []byte(`{"action":"accept","content":{"env":"staging"}}`)}
}

// An MCP server's form is published and answered with accept, decline or
// cancel; an answer of questions to it is refused before the session
// sees it.
func TestReachElicitation(t *testing.T) {
	srv := start(t, 1)
	c := dial(t, Config{URL: srv.URL(), Retry: true})
	log := events.New(nil)
	s := &said{}
	log.Watch(s.watch)
	run := &elicitRun{got: make(chan remote.ElicitAnswer, 1)}
	_, changed, stop := NewReach(c, Identity{Machine: "laptop", Session: "1"}, log).Attach(run)
	run.changed = changed
	t.Cleanup(stop)
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	run.set(remote.Form{ToolUseID: "elicitation-1", Since: time.Now(), Questions: []answer.Question{},
		Elicitation: &remote.Elicitation{Server: "demo", Message: "Deploy?", Fields: []remote.ElicitField{{Name: "env", Type: "string"}}}})
	id := s.formID(t, "elicitation-1")
	f := listed(t, alice, id)[0]
	if f.Elicitation == nil || f.Elicitation.Server != "demo" {
		t.Fatalf("listed %+v", f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if r, err := alice.Answer(ctx, id, pick("SQLite"), 0); err != nil || r.Result != "refused" || !strings.Contains(r.Message, "MCP server demo") {
		t.Fatalf("questions' answers to an MCP server's form: %+v, %v; want refused", r, err)
	}
	r, err := alice.Answer(ctx, id, Reply{Elicit: &remote.ElicitAnswer{Action: "accept", Values: "{env: staging}"}, From: remote.FromPage}, 0)
	if err != nil || r.Result != "verified" || string(r.Elicited) != `{"action":"accept","content":{"env":"staging"}}` {
		t.Fatalf("accept: %+v, %v", r, err)
	}
	if a := <-run.got; a.Action != "accept" || a.Values != "{env: staging}" {
		t.Errorf("the session got %+v", a)
	}
}
