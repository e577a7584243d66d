package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/bundle"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
)

// This file holds the session tests' stand-ins: fakeChild puts the fake
// Claude (internal/testsupport/fakeclaude) behind the Child interface and plays Claude
// Code's hooks around its forms; decider and asker stand in for the rules
// and the person.

// fakeChild is Claude with its hooks: a PreToolUse per form asked, a
// PostToolUse with what the fake recorded, Stop when the turn ends.
type fakeChild struct {
	*fakeclaude.Claude
	t    *testing.T
	msgs chan hook.Message
	done chan struct{}

	mu     sync.Mutex
	forms  []pendingForm // asked, in order; the first is on the screen
	sigs   []os.Signal
	ignore bool                      // SIGTERM is ignored (SIGKILL is not)
	noPost bool                      // Claude never reports PostToolUse
	noStop bool                      // a turn interrupted as its last form was recorded: no Stop
	mangle func(a map[string]string) // changes what PostToolUse reports
	// postDelay holds the PostToolUse back, as a hook process started on
	// a loaded machine comes late.
	postDelay time.Duration
	dropped   bool
	// reverse shows the forms asked together last first, as Claude Code
	// 2.1.197 was seen to.
	reverse bool
	// swapAfter, if set, has askTogether show the first form, then the
	// last one swapAfter later, in its place: Claude Code 2.1.197 paints
	// the first form and swaps in the second about 30 ms after its hook.
	swapAfter time.Duration
	// session is the session id Claude's hooks carry ("" for none).
	session string
	// transcript is the transcript Claude's hooks name, which hook writes
	// as Claude Code does (see record); lines counts its lines; lagging
	// writes nothing more, as a Claude Code far behind on a loaded machine.
	transcript string
	lines      int
	lagging    bool
}

type pendingForm struct {
	id string
	qs []fakeclaude.Question
}

// newChild makes a fake Claude that will ask forms; nothing shows until
// ask is called.
func newChild(t *testing.T, f fakeclaude.Faults) *fakeChild {
	c := &fakeChild{t: t, msgs: make(chan hook.Message, 64), done: make(chan struct{}),
		transcript: filepath.Join(t.TempDir(), "transcript.jsonl")}
	// The fake starts thinking; its first form is drawn by ask.
	f.AppearAfter = time.Hour
	c.Claude = fakeclaude.New(t, []fakeclaude.Question{{Header: "-", Question: "-"}}, 100, 40, f)
	c.OnState(c.changed)
	return c
}

// ask has Claude call AskUserQuestion: the PreToolUse hook, then the form
// (after any form before it is done).
func (c *fakeChild) ask(id string, qs ...fakeclaude.Question) {
	c.mu.Lock()
	c.forms = append(c.forms, pendingForm{id, qs})
	first := len(c.forms) == 1
	c.mu.Unlock()
	c.hook(&hook.Payload{HookEventName: hook.PreToolUse, ToolName: hook.ToolName, ToolUseID: id,
		ToolInput: &hook.ToolInput{Questions: fakeclaude.Answers(qs)}})
	if first {
		c.Ask(qs)
	}
}

// askTogether asks several forms at once; the first shown is the first
// asked, or the last with reverse.
func (c *fakeChild) askTogether(forms ...pendingForm) {
	c.mu.Lock()
	shown := slices.Clone(forms)
	if c.reverse {
		slices.Reverse(shown)
	}
	c.forms = append(c.forms, shown...)
	swap := c.swapAfter
	c.mu.Unlock()
	if swap > 0 {
		last := len(forms) - 1
		c.mu.Lock()
		c.forms = append(c.forms[:len(c.forms)-len(shown)], forms[last])
		c.forms = append(c.forms, forms[:last]...)
		c.mu.Unlock()
		for i, f := range forms {
			if i == last {
				c.Ask(forms[0].qs)
			}
			c.hook(&hook.Payload{HookEventName: hook.PreToolUse, ToolName: hook.ToolName, ToolUseID: f.id,
				ToolInput: &hook.ToolInput{Questions: fakeclaude.Answers(f.qs)}})
		}
		time.Sleep(swap)
		c.Ask(forms[last].qs)
		return
	}
	for _, f := range forms {
		c.hook(&hook.Payload{HookEventName: hook.PreToolUse, ToolName: hook.ToolName, ToolUseID: f.id,
			ToolInput: &hook.ToolInput{Questions: fakeclaude.Answers(f.qs)}})
	}
	c.Ask(shown[0].qs)
}

// hook sends one of Claude's hook messages, stamped with its session and
// transcript, once the transcript holds what Claude writes before it.
func (c *fakeChild) hook(p *hook.Payload) {
	c.mu.Lock()
	p.SessionID = c.session
	if p.TranscriptPath == "" {
		p.TranscriptPath = c.transcript
	}
	c.record(p)
	c.mu.Unlock()
	c.forge(p)
}

// record writes to the transcript what Claude Code has written when it
// runs the hook p: the tool_use a question's PreToolUse is for, the
// tool_result of its PostToolUse, the message ending the turn of a Stop.
func (c *fakeChild) record(p *hook.Payload) {
	var entry map[string]any
	switch p.HookEventName {
	case hook.PreToolUse:
		entry = map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "stop_reason": "tool_use",
			"content": []any{map[string]any{"type": "tool_use", "id": p.ToolUseID, "name": p.ToolName, "input": p.ToolInput}}}}
	case hook.PostToolUse:
		entry = map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": p.ToolUseID, "content": "Your questions have been answered."}}}}
	case hook.Stop:
		entry = map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": "Done."}}}}
	default:
		return
	}
	if c.lagging {
		return
	}
	c.lines++
	entry["uuid"], entry["sessionId"] = fmt.Sprintf("line-%d", c.lines), c.session
	b, _ := json.Marshal(entry)
	f, err := os.OpenFile(c.transcript, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err == nil {
		_, err = f.Write(append(b, '\n'))
		f.Close()
	}
	if err != nil {
		c.t.Errorf("fake transcript: %v", err)
	}
}

// forge sends a hook message as it is.
func (c *fakeChild) forge(p *hook.Payload) {
	select {
	case c.msgs <- hook.Message{Payload: p}:
	case <-c.done:
	}
}

// changed plays Claude Code's side of a form's end.
func (c *fakeChild) changed(st fakeclaude.State) {
	switch st {
	case fakeclaude.Submitted:
		c.mu.Lock()
		cur := c.forms[0]
		c.forms = c.forms[1:]
		next := c.forms
		noPost, noStop, mangle, delay := c.noPost, c.noStop, c.mangle, c.postDelay
		c.mu.Unlock()
		got := c.Claude.Submitted()
		if mangle != nil {
			mangle(got)
		}
		if delay > 0 {
			time.Sleep(delay) // Claude's hook process, slow to start
		}
		if !noPost {
			c.hook(&hook.Payload{HookEventName: hook.PostToolUse, ToolName: hook.ToolName, ToolUseID: cur.id,
				ToolInput:    &hook.ToolInput{Questions: fakeclaude.Answers(cur.qs)},
				ToolResponse: &hook.ToolResponse{Answers: got}})
		}
		if len(next) > 0 {
			// Claude shows its next form in the same place at once.
			c.Ask(next[0].qs)
			return
		}
		if !noStop {
			c.hook(&hook.Payload{HookEventName: hook.Stop})
		}
	case fakeclaude.Cancelled:
		// Esc interrupts the turn: no PostToolUse, no Stop, and the
		// forms asked after it never show.
		c.mu.Lock()
		c.forms = nil
		c.mu.Unlock()
	case fakeclaude.Chatted:
		c.mu.Lock()
		c.forms = nil
		c.mu.Unlock()
		c.hook(&hook.Payload{HookEventName: hook.Stop})
	case fakeclaude.Killed:
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.dropped {
			c.dropped = true
			close(c.done)
		}
	}
}

func (c *fakeChild) Signal(sig os.Signal) error {
	c.mu.Lock()
	c.sigs = append(c.sigs, sig)
	ignore := c.ignore && sig == syscall.SIGTERM
	c.mu.Unlock()
	if !ignore {
		c.Kill()
	}
	return nil
}

func (c *fakeChild) signals() []os.Signal {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]os.Signal(nil), c.sigs...)
}

func (c *fakeChild) Done() <-chan struct{} { return c.done }

func (c *fakeChild) Wait() (ptyhost.Status, error) {
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sigs) > 0 {
		sig := c.sigs[len(c.sigs)-1].(syscall.Signal)
		return ptyhost.Status{Code: 128 + int(sig), Signal: sig}, nil
	}
	return ptyhost.Status{}, nil
}

var _ Child = (*fakeChild)(nil)

// decider answers by question text; questions it does not know are
// unmatched, and their fallback is fallback (or an error when unset).
type decider struct {
	answers  map[string]answer.Decision
	fallback *answer.Decision
}

func (d decider) Decide(q answer.Question) rules.Decision {
	a, ok := d.answers[q.Question]
	if !ok {
		return rules.Decision{Unmatched: "no rule"}
	}
	return rules.Decision{Decision: a, Rule: "test"}
}

func (d decider) Fallback(q answer.Question) (rules.Decision, error) {
	if d.fallback == nil {
		return rules.Decision{}, errors.New("no fallback answer")
	}
	return rules.Decision{Decision: *d.fallback, Rule: "fallback"}, nil
}

// asker is the person at the ask prompt.
type asker func(ctx context.Context, q answer.Question) (answer.Decision, error)

func (a asker) Ask(ctx context.Context, q answer.Question, n, total int) (answer.Decision, error) {
	return a(ctx, q)
}

// run is one session under test.
type run struct {
	t     *testing.T
	c     *fakeChild
	s     *session
	log   *testkit.SyncBuffer
	res   chan runResult
	stop  context.CancelFunc
	start time.Time
}

type runResult struct {
	rep Report
	err error
}

// startRun serves the fake child with cfg (its log and flow timeouts
// filled in).
func startRun(t *testing.T, c *fakeChild, cfg Config) *run {
	t.Helper()
	return startTuned(t, c, cfg, nil)
}

// startTuned is startRun with tune, if set, given the session before it
// serves (the tests' shorter constants).
func startTuned(t *testing.T, c *fakeChild, cfg Config, tune func(*session)) *run {
	t.Helper()
	r := &run{t: t, c: c, log: &testkit.SyncBuffer{}, res: make(chan runResult, 1), start: time.Now()}
	cfg.Log = events.New(r.log)
	if cfg.Flow.FormTimeout == 0 {
		cfg.Flow.FormTimeout = 2 * time.Second
	}
	if cfg.Flow.StepTimeout == 0 {
		cfg.Flow.StepTimeout = 300 * time.Millisecond
	}
	r.s = newSession(cfg)
	if tune != nil {
		tune(r.s)
	}
	r.s.loop.start() // serve's, started here so that the test's steps run on it too
	if cfg.Bundles != "" {
		r.s.rec = bundle.NewRecorder(100, 40, recordLimit, "") // Run's, which serve leaves out
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go func() {
		rep, err := r.s.serve(ctx, c, c, c.msgs)
		r.res <- runResult{rep, err}
	}()
	t.Cleanup(func() {
		cancel()
		c.Kill()
		select {
		case <-r.res:
		case <-time.After(10 * time.Second):
			t.Errorf("the session did not end\nevents:\n%s", r.log)
		}
	})
	return r
}

// wait waits for the event line holding want, and returns it decoded.
func (r *run) wait(want string) map[string]any {
	r.t.Helper()
	r.log.WaitFor(r.t, want, 10*time.Second)
	for _, l := range strings.Split(r.log.String(), "\n") {
		if strings.Contains(l, want) {
			var ev map[string]any
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				r.t.Fatalf("event %q: %v", l, err)
			}
			return ev
		}
	}
	panic("unreachable")
}

// waitPosted waits until the session has the PostToolUse of form id.
func (r *run) waitPosted(id string) {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		posted := false
		r.s.loop.do(func() { posted = r.s.forms[id] != nil && isClosed(r.s.forms[id].posted) })
		if posted {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the PostToolUse of %s never reached the session within 10s\n%s", id, r)
		}
		time.Sleep(5 * time.Millisecond) // polling the session's state under a deadline
	}
}

// end ends Claude (if it still runs) and returns the report.
func (r *run) end() Report {
	r.t.Helper()
	r.c.Kill()
	select {
	case res := <-r.res:
		if res.err != nil {
			r.t.Errorf("serve: %v", res.err)
		}
		r.res <- res // for the cleanup
		return res.rep
	case <-time.After(10 * time.Second):
		r.t.Fatalf("the session did not end after Claude did\nevents:\n%s", r.log)
	}
	return Report{}
}

// result waits for the session to end by itself.
func (r *run) result() Report {
	r.t.Helper()
	select {
	case res := <-r.res:
		if res.err != nil {
			r.t.Errorf("serve: %v", res.err)
		}
		r.res <- res
		return res.rep
	case <-time.After(15 * time.Second):
		r.t.Fatalf("the session did not end\nevents:\n%s", r.log)
	}
	return Report{}
}

// events lists the event names logged, in order.
func (r *run) events() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(r.log.String()), "\n") {
		var ev struct{ Event string }
		if err := json.Unmarshal([]byte(l), &ev); err == nil {
			out = append(out, ev.Event)
		}
	}
	return out
}

func (r *run) has(name string) bool {
	for _, e := range r.events() {
		if e == name {
			return true
		}
	}
	return false
}

func (r *run) String() string { return fmt.Sprintf("events:\n%s", r.log) }

// Questions the tests ask.
var (
	database = fakeclaude.Question{Header: "Database", Question: "Which database should we use?", Options: []fakeclaude.Option{
		{Label: "PostgreSQL", Desc: "Relational, robust"}, {Label: "SQLite", Desc: "Embedded, simple"}, {Label: "MongoDB", Desc: "Document store"},
	}}
	features = fakeclaude.Question{Header: "Features", Question: "Which features should we build?", Multi: true, Options: []fakeclaude.Option{
		{Label: "Auth", Desc: "Sign-in and sessions"}, {Label: "Export", Desc: "CSV and JSON downloads"},
		{Label: "Search", Desc: "Full-text search"}, {Label: "API", Desc: "Public REST API"},
	}}
	deploy = fakeclaude.Question{Header: "Deploy", Question: "Where should we deploy?", Options: []fakeclaude.Option{
		{Label: "Fly.io", Desc: "Containers near users"}, {Label: "A VPS", Desc: "One machine of our own"},
	}}
)

func sel(labels ...string) answer.Decision {
	return answer.Decision{Action: answer.Select, Labels: labels}
}

// keys is the fake child as askflow's key sender.
var _ askflow.Keys = (*fakeChild)(nil)

// hostHeadless is a headless run's terminal.
var hostHeadless = ptyhost.Config{Headless: true, Cols: 100, Rows: 40}

// register records the form p asks, as the loop does when its PreToolUse
// comes (asked), without deciding it; nil for a duplicate.
func (s *session) register(p *hook.Payload, reply func([]byte) bool) *form {
	f := newForm(p, reply)
	ok := false
	s.loop.do(func() { ok = s.registerOnLoop(f) })
	if !ok {
		return nil
	}
	return f
}

// arrive marks the form's PostToolUse come, as posted does, and returns
// what verify is given.
func (s *session) arrive(p *hook.Payload) (a arrival) {
	s.loop.do(func() { a = s.arriveOnLoop(p) })
	return a
}
