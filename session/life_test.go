package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
)

// The form's life as scripts. A script gives the session its inputs one at
// a time (Claude's hook messages and screen, the person's keys, what a
// drive came to) and after each waits for the moves it must make, which the
// session tells as it makes them (session.onMove). The drives are the
// script's: askflow is replaced by a stand-in that says it was called and
// returns what the script tells it to, so no step depends on how fast a
// key is handled. Every wait wakes on the move or event itself, under a
// deadline that only reports a script gone wrong. Together the scripts
// make every move in the life table; TestFormLife checks that too.

// lifeRun is one session under a script.
type lifeRun struct {
	*run
	drives chan *scriptDrive

	mu    sync.Mutex
	moves map[string][]state // each form's path so far, deciding first
	grew  chan struct{}      // closed and replaced at each move
	// said is the last path each form was seen to take: at the end, no
	// move may have come after it.
	said map[string][]state
}

// scriptDrive is one drive of a form, waiting for the script to say what
// askflow came to.
type scriptDrive struct {
	id  string
	ds  []answer.Decision
	ctx context.Context
	res chan flowResult
}

type flowResult struct {
	r   askflow.Result
	err error
}

func (d *scriptDrive) submit() {
	d.res <- flowResult{r: askflow.Result{Outcome: askflow.Submitted, Keys: 1}}
}
func (d *scriptDrive) cancel() {
	d.res <- flowResult{r: askflow.Result{Outcome: askflow.Cancelled, Keys: 1}}
}
func (d *scriptDrive) fail(err error) { d.res <- flowResult{err: err} }

// lifeEdges are the moves the scripts made, all scripts together.
var lifeEdges = struct {
	sync.Mutex
	seen map[[2]state]bool
}{seen: map[[2]state]bool{}}

// newLife starts a session on the fake Claude with cfg, its drives the
// script's.
func newLife(t *testing.T, cfg Config) *lifeRun {
	t.Helper()
	l := &lifeRun{drives: make(chan *scriptDrive, 8), moves: map[string][]state{}, grew: make(chan struct{}),
		said: map[string][]state{}}
	c := newChild(t, fakeclaude.Faults{})
	l.run = startTuned(t, c, cfg, func(s *session) {
		s.recordGrace = 300 * time.Millisecond
		s.onMove = l.moved
		s.flow = func(ctx context.Context, cfg askflow.Config) (askflow.Result, error) {
			d := &scriptDrive{id: drivenNow(s), ds: cfg.Decisions, ctx: ctx, res: make(chan flowResult, 1)}
			l.drives <- d
			select {
			case r := <-d.res:
				return r.r, r.err
			case <-ctx.Done():
				return askflow.Result{}, fmt.Errorf("%w: %w", askflow.ErrInterrupted, ctx.Err())
			}
		}
	})
	return l
}

// drivenNow is the id of the form being driven: one at a time (turnOnLoop).
func drivenNow(s *session) (id string) {
	s.loop.do(func() {
		for k, f := range s.forms {
			if f.state == driving {
				id = k
			}
		}
	})
	return id
}

func (l *lifeRun) moved(id string, from, to state) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.moves[id]
	if len(p) == 0 {
		p = []state{from}
	}
	l.moves[id] = append(p, to)
	close(l.grew)
	l.grew = make(chan struct{})
	lifeEdges.Lock()
	lifeEdges.seen[[2]state{from, to}] = true
	lifeEdges.Unlock()
}

// lifeDeadline bounds each wait of a script: reached, the script has gone
// wrong.
const lifeDeadline = 10 * time.Second

// path waits until form id has made the moves of want (its states in
// order, from deciding), and fails at once on a move want does not make.
func (l *lifeRun) path(id string, want ...state) {
	l.t.Helper()
	deadline := time.NewTimer(lifeDeadline)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		got, grew := slices.Clone(l.moves[id]), l.grew
		l.mu.Unlock()
		n := min(len(got), len(want))
		if !slices.Equal(got[:n], want[:n]) || len(got) > len(want) {
			l.t.Fatalf("form %s went %v, want %v\n%s", id, got, want, l)
		}
		if len(got) == len(want) {
			l.said[id] = want
			return
		}
		select {
		case <-grew:
		case <-deadline.C:
			l.t.Fatalf("form %s went %v within %v, want %v\n%s", id, got, lifeDeadline, want, l)
		}
	}
}

// drive waits for the drive of form id to begin; its decisions must be want.
func (l *lifeRun) drive(id string, want ...answer.Decision) *scriptDrive {
	l.t.Helper()
	select {
	case d := <-l.drives:
		if d.id != id {
			l.t.Fatalf("form %s driven, want %s\n%s", d.id, id, l)
		}
		if want != nil && fmt.Sprint(d.ds) != fmt.Sprint(want) {
			l.t.Fatalf("form %s driven with %v, want %v", id, d.ds, want)
		}
		return d
	case <-time.After(lifeDeadline):
		l.t.Fatalf("form %s not driven within %v\n%s", id, lifeDeadline, l)
	}
	return nil
}

// event waits for an event of that name about form id, and returns it.
func (l *lifeRun) event(name, id string) map[string]any {
	l.t.Helper()
	key := fmt.Sprintf(`"event":%q`, name)
	for n := 1; ; n++ {
		text := l.log.WaitForN(l.t, key, n, lifeDeadline)
		for _, line := range strings.Split(text, "\n") {
			var ev map[string]any
			if strings.Contains(line, key) && json.Unmarshal([]byte(line), &ev) == nil && ev["tool_use_id"] == id {
				return ev
			}
		}
	}
}

// finish ends the run and checks that no form moved after the path last
// seen.
func (l *lifeRun) finish() Report {
	l.t.Helper()
	rep := l.end()
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, want := range l.said {
		if got := l.moves[id]; !slices.Equal(got, want) {
			l.t.Errorf("form %s went on to %v after %v\n%s", id, got, want, l)
		}
	}
	return rep
}

// post is Claude recording form id with answers: its PostToolUse.
func (c *fakeChild) post(id string, qs []fakeclaude.Question, answers map[string]string) {
	c.hook(&hook.Payload{HookEventName: hook.PostToolUse, ToolName: hook.ToolName, ToolUseID: id,
		ToolInput: &hook.ToolInput{Questions: fakeclaude.Answers(qs)}, ToolResponse: &hook.ToolResponse{Answers: answers}})
}

// heldDecider is decider whose decision of one question waits until the
// script lets it go.
type heldDecider struct {
	decider
	q       string
	hold    chan struct{} // closed by release
	entered chan struct{} // closed as the held question's decision begins
	once    *sync.Once
}

func (d heldDecider) Decide(q answer.Question) rules.Decision {
	if q.Question == d.q {
		close(d.entered)
		<-d.hold
	}
	return d.decider.Decide(q)
}

// holding is d holding its decision of q until release; the script defers
// release, so that the session can end however the script ends.
func holding(d decider, q fakeclaude.Question) heldDecider {
	return heldDecider{d, q.Question, make(chan struct{}), make(chan struct{}), &sync.Once{}}
}

func (d heldDecider) release() { d.once.Do(func() { close(d.hold) }) }

// deciding waits until the held question's decision has begun: its form is
// in the session, being decided.
func (d heldDecider) deciding(t *testing.T) {
	t.Helper()
	select {
	case <-d.entered:
	case <-time.After(lifeDeadline):
		t.Fatalf("the question %q was never decided", d.q)
	}
}

func rulesFor(pairs ...any) decider {
	d := decider{answers: map[string]answer.Decision{}}
	for i := 0; i < len(pairs); i += 2 {
		d.answers[pairs[i].(fakeclaude.Question).Question] = pairs[i+1].(answer.Decision)
	}
	return d
}

// onTerminal is a person's terminal: what they type takes a form over.
var onTerminal = ptyhost.Config{Cols: 100, Rows: 40}

var (
	dbSQLite = map[string]string{database.Question: "SQLite"}
	dbPerson = map[string]string{database.Question: "PostgreSQL"}
	deployed = map[string]string{deploy.Question: "Fly.io"}
)

// lifeScripts are the form's lives, each named by what happens in it.
var lifeScripts = []struct {
	name string
	run  func(t *testing.T)
}{
	{"a rule's answer driven, submitted, recorded and verified", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite")), Policy: rules.Fail, Host: hostHeadless})
		l.c.ask("t1", database)
		d := l.drive("t1", sel("SQLite"))
		l.path("t1", deciding, queued, driving)
		d.submit()
		l.path("t1", deciding, queued, driving, submitted)
		l.c.post("t1", []fakeclaude.Question{database}, dbSQLite)
		l.path("t1", deciding, queued, driving, submitted, recorded)
		l.event("verified", "t1")
		l.finish()
	}},
	{"answered through the waiting PreToolUse hook, never drawn", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite")), Policy: rules.Fail, Host: hostHeadless,
			AnswerVia: AnswerViaHook})
		replied := make(chan []byte, 1)
		l.c.askWaiting("t1", true, replied, database)
		l.path("t1", deciding, submitted)
		if b := <-replied; !strings.Contains(string(b), `"SQLite"`) {
			t.Errorf("the hook was told %s", b)
		}
		l.c.post("t1", []fakeclaude.Question{database}, dbSQLite)
		l.path("t1", deciding, submitted, recorded)
		l.event("verified", "t1")
		l.finish()
	}},
	{"no rule: the person answers in Claude's menu", func(t *testing.T) {
		l := newLife(t, Config{Decider: decider{}, Policy: rules.Passthrough, Host: onTerminal})
		l.c.ask("t1", database)
		l.path("t1", deciding, handedOver)
		l.c.post("t1", []fakeclaude.Question{database}, dbPerson)
		l.path("t1", deciding, handedOver, recorded)
		if ev := l.event("submitted", "t1"); ev["by"] != "person" {
			t.Errorf("submitted: %v", ev)
		}
		l.finish()
	}},
	{"the person types while the form is driven", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite")), Policy: rules.Fail, Host: onTerminal})
		l.c.ask("t1", database)
		d := l.drive("t1")
		l.s.input([]byte("x"))
		l.path("t1", deciding, queued, driving, handedOver)
		if d.ctx.Err() == nil {
			t.Error("the drive goes on after the hand-over")
		}
		l.c.post("t1", []fakeclaude.Question{database}, dbPerson)
		l.path("t1", deciding, queued, driving, handedOver, recorded)
		if ev := l.event("submitted", "t1"); ev["by"] != "person" {
			t.Errorf("submitted: %v", ev)
		}
		l.finish()
	}},
	{"the person types while a form waits its turn", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite"), deploy, sel("Fly.io")), Policy: rules.Fail, Host: onTerminal})
		l.c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{deploy}})
		l.drive("t1")
		l.path("t2", deciding, queued)
		l.s.input([]byte("x"))
		l.path("t1", deciding, queued, driving, handedOver)
		l.path("t2", deciding, queued, handedOver)
		l.finish()
	}},
	{"the drive cancels: the forms waiting their turn are dropped", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite"), deploy, sel("Fly.io")), Policy: rules.Fail, Host: hostHeadless})
		l.c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{deploy}})
		d := l.drive("t1")
		l.path("t2", deciding, queued)
		d.cancel()
		l.path("t1", deciding, queued, driving, done)
		l.path("t2", deciding, queued, done)
		if ev := l.event("cancelled", "t2"); ev["reason"] != "the turn was interrupted" {
			t.Errorf("cancelled: %v", ev)
		}
		l.finish()
	}},
	{"the drive cancels while a form asked with it is still decided", func(t *testing.T) {
		dec := holding(rulesFor(database, sel("SQLite"), deploy, sel("Fly.io")), deploy)
		defer dec.release()
		l := newLife(t, Config{Decider: dec, Policy: rules.Fail, Host: hostHeadless})
		l.c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{deploy}})
		d := l.drive("t1")
		dec.deciding(t)
		d.cancel()
		l.path("t1", deciding, queued, driving, done)
		l.path("t2", deciding, done)
		dec.release() // decided too late: the form is gone
		l.event("cancelled", "t2")
		l.finish()
	}},
	{"Claude records a form still being decided", func(t *testing.T) {
		dec := holding(rulesFor(database, sel("SQLite")), database)
		defer dec.release()
		l := newLife(t, Config{Decider: dec, Policy: rules.Fail, Host: hostHeadless})
		l.c.ask("t1", database)
		dec.deciding(t)
		l.c.post("t1", []fakeclaude.Question{database}, dbPerson)
		l.path("t1", deciding, recorded)
		l.event("submitted", "t1")
		dec.release()
		l.finish()
	}},
	{"Claude records a form waiting its turn", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite"), deploy, sel("Fly.io")), Policy: rules.Fail, Host: hostHeadless})
		l.c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{deploy}})
		d := l.drive("t1")
		l.path("t2", deciding, queued)
		l.c.post("t2", []fakeclaude.Question{deploy}, deployed)
		l.path("t2", deciding, queued, recorded)
		d.submit()
		l.c.post("t1", []fakeclaude.Question{database}, dbSQLite)
		l.path("t1", deciding, queued, driving, submitted, recorded)
		l.event("verified", "t1")
		l.finish()
	}},
	{"Claude records the form before its drive has ended", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite")), Policy: rules.Fail, Host: hostHeadless})
		l.c.ask("t1", database)
		d := l.drive("t1")
		l.c.post("t1", []fakeclaude.Question{database}, dbSQLite)
		d.fail(askflow.ErrInterrupted)
		l.path("t1", deciding, queued, driving, recorded)
		l.event("verified", "t1")
		l.finish()
	}},
	{"another form asked with it shows: the form waits its turn again", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite"), deploy, sel("Fly.io")), Policy: rules.Fail, Host: hostHeadless})
		l.c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{deploy}})
		l.drive("t1").fail(askflow.ErrElsewhere)
		d := l.drive("t1")
		l.path("t1", deciding, queued, driving, queued, driving)
		d.submit()
		l.path("t1", deciding, queued, driving, queued, driving, submitted)
		l.finish()
	}},
	{"the screen does not confirm a step, headless: the form is cancelled", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite")), Policy: rules.Fail, Host: hostHeadless})
		l.c.ask("t1", database)
		l.drive("t1").fail(&askflow.Error{Step: "select", Reason: "the focus did not move"})
		l.path("t1", deciding, queued, driving, done)
		if ev := l.event("cancelled", "t1"); ev["reason"] != "navigation failed" {
			t.Errorf("cancelled: %v", ev)
		}
		if rep := l.finish(); !rep.Navigation {
			t.Errorf("report %+v, want the navigation failure", rep)
		}
	}},
	{"the screen does not confirm a step, a person at it: the form is theirs", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite")), Policy: rules.Fail, Host: onTerminal})
		l.c.ask("t1", database)
		l.drive("t1").fail(&askflow.Error{Step: "select", Reason: "the focus did not move"})
		l.path("t1", deciding, queued, driving, handedOver)
		if ev := l.event("handed_over", "t1"); ev["reason"] != "navigation failed" {
			t.Errorf("handed over: %v", ev)
		}
		l.finish()
	}},
	{"submitted, and Claude records nothing in time", func(t *testing.T) {
		l := newLife(t, Config{Decider: rulesFor(database, sel("SQLite")), Policy: rules.Fail, Host: onTerminal})
		l.c.ask("t1", database)
		l.drive("t1").submit()
		l.path("t1", deciding, queued, driving, submitted, done)
		if ev := l.event("error", "t1"); ev["step"] != "record" {
			t.Errorf("error: %v", ev)
		}
		l.finish()
	}},
	{"left to the person, who does not answer in time: the fallback is driven", func(t *testing.T) {
		fallback := sel("PostgreSQL")
		l := newLife(t, Config{Decider: decider{fallback: &fallback}, Policy: rules.Passthrough, Host: hostHeadless,
			AnswerTimeout: 50 * time.Millisecond})
		l.c.ask("t1", database)
		d := l.drive("t1", fallback)
		l.path("t1", deciding, handedOver, queued, driving)
		d.submit()
		l.c.post("t1", []fakeclaude.Question{database}, dbPerson)
		l.path("t1", deciding, handedOver, queued, driving, submitted, recorded)
		l.event("verified", "t1")
		l.finish()
	}},
	{"left to the person, who cancels it with Esc", func(t *testing.T) {
		l := newLife(t, Config{Decider: decider{}, Policy: rules.Passthrough, Host: onTerminal})
		l.c.ask("t1", database)
		l.path("t1", deciding, handedOver)
		l.s.input([]byte("\x1b"))
		if err := l.c.SendKeys([]byte("\x1b")); err != nil {
			t.Fatal(err)
		}
		l.path("t1", deciding, handedOver, done)
		if ev := l.event("cancelled", "t1"); ev["by"] != "person" {
			t.Errorf("cancelled: %v", ev)
		}
		l.finish()
	}},
}

// TestFormLife runs the form-life scripts, and checks that together they
// make every move in the life table.
func TestFormLife(t *testing.T) {
	var ran atomic.Int32
	t.Run("scripts", func(t *testing.T) {
		for _, sc := range lifeScripts {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				ran.Add(1)
				sc.run(t)
			})
		}
	})
	if int(ran.Load()) < len(lifeScripts) || t.Failed() {
		return // some scripts did not run (-run): the table is not theirs to cover
	}
	lifeEdges.Lock()
	defer lifeEdges.Unlock()
	for _, e := range life {
		if !lifeEdges.seen[[2]state{e.from, e.to}] {
			t.Errorf("no script moves a form from %s to %s (%s)", e.from, e.to, e.on)
		}
	}
}
