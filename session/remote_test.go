package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/fakeclaude"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// hostTerminal is a run on the person's terminal (passthrough).
var hostTerminal = ptyhost.Config{Cols: 100, Rows: 40}

// personRun is a run on the person's terminal that hands every form to
// them: what an answer from elsewhere answers.
func personRun(t *testing.T) (*fakeChild, *run) {
	t.Helper()
	c := newChild(t, fakeclaude.Faults{})
	return c, startRun(t, c, Config{Decider: decider{}, Policy: rules.Passthrough, Host: hostTerminal})
}

// leaves waits until f is no longer in state st.
func (r *run) leaves(f *form, st state) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.s.stateOf(f) == st {
		if time.Now().After(deadline) {
			r.t.Fatalf("form %s still %s after 10s\n%s", f.ID(), st, r)
		}
		time.Sleep(time.Millisecond)
	}
}

func (r *run) form(id string) *form {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.s.forms[id]
}

// TestRemoteTwoAnswers: of two answers from elsewhere to one form, the
// first wins and hears Claude's record; the second is told at once that it
// lost. Before, the second took the first's place as the one waiting, and
// the first waited out its two minutes though Claude had recorded it.
func TestRemoteTwoAnswers(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.ask("t1", database)
	r.wait(`"handed_over"`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := make(chan remote.Outcome, 1)
	go func() { first <- remoteHandler{r.s}.Answer(ctx, "t1", []answer.Decision{sel("PostgreSQL")}) }()
	r.leaves(r.form("t1"), handedOver)
	if o := (remoteHandler{r.s}).Answer(ctx, "t1", []answer.Decision{sel("SQLite")}); o.Result != "taken" {
		t.Errorf("the second answer: %+v, want taken", o)
	}
	if o := <-first; o.Result != "verified" || o.Recorded[database.Question] != "PostgreSQL" {
		t.Errorf("the first answer: %+v, want verified PostgreSQL\n%s", o, r)
	}
	r.end()
}

// TestRemoteDroppedNotOK: an answer from elsewhere queued behind another
// form, dropped when that form's cancel ended Claude's turn, is reported
// failed, never "cancelled" (which a sender reads as done as asked).
func TestRemoteDroppedNotOK(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{features}})
	r.log.WaitForN(t, `"handed_over"`, 2, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	second := make(chan remote.Outcome, 1)
	go func() { second <- remoteHandler{r.s}.Answer(ctx, "t2", []answer.Decision{sel("Auth")}) }()
	r.leaves(r.form("t2"), handedOver)
	if o := (remoteHandler{r.s}).Answer(ctx, "t1", []answer.Decision{{Action: answer.Cancel}}); o.Result != "cancelled" || !o.OK() {
		t.Errorf("t1's cancel: %+v, want cancelled", o)
	}
	o := <-second
	if o.OK() || o.Result != "failed" || !strings.Contains(o.Message, "cancelled before the answer was recorded") {
		t.Errorf("t2's Auth, dropped with the turn: %+v, want failed\n%s", o, r)
	}
	r.end()
}

// TestRemoteClaudeExits: when Claude exits while an answer from elsewhere
// waits its turn, the answer is told at once, and the run ends without
// waiting for it. Before, both waited out the answer's two minutes.
func TestRemoteClaudeExits(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{features}})
	r.log.WaitForN(t, `"handed_over"`, 2, 10*time.Second)
	got := make(chan remote.Outcome, 1)
	go func() { got <- remoteHandler{r.s}.Answer(context.Background(), "t2", []answer.Decision{sel("Auth")}) }()
	r.leaves(r.form("t2"), handedOver)
	r.end()
	select {
	case o := <-got:
		if o.Result != "failed" || o.Message != "Claude exited before it recorded the answer" {
			t.Errorf("outcome %+v", o)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the answer still waits 10s after Claude exited\n%s", r)
	}
}

// TestHandoverToldToEarlierWaiters: a handover is said just after the form
// moved; an answer from elsewhere that began to wait since (the form was
// the person's again) does not hear it as its own outcome, while one
// waiting before it does.
func TestHandoverToldToEarlierWaiters(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.ask("t1", database)
	r.wait(`"handed_over"`)
	f := r.form("t1")
	before := r.s.await("t1", f, false)
	defer r.s.unawait("t1", before)
	f.handed.Store(r.s.order.Add(1))   // handed over again, as a failed drive does
	after := r.s.await("t1", f, false) // in the moment before the handover is said
	defer r.s.unawait("t1", after)
	// Through the log, as it is said: outcomeOf runs inside its lock.
	r.s.log.Emit("handed_over", events.Fields{"tool_use_id": "t1", "reason": "navigation failed"})
	if o := before.last("none"); o.Result != "taken" || !strings.Contains(o.Message, "navigation failed") {
		t.Errorf("the answer waiting before: %+v, want taken: navigation failed", o)
	}
	if o := after.last("none"); o.Message != "none" {
		t.Errorf("the answer waiting since heard %+v", o)
	}
	r.end()
}

// TestRemoteWithdrawnAtDeadline: an answer from elsewhere still waiting its
// turn when its wait runs out is withdrawn (the form is the person's
// again), and its sender told it failed: it is never pressed later.
func TestRemoteWithdrawnAtDeadline(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{features}})
	r.log.WaitForN(t, `"handed_over"`, 2, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	o := remoteHandler{r.s}.Answer(ctx, "t2", []answer.Decision{sel("Auth")})
	if o.Result != "failed" || !strings.Contains(o.Message, "withdrawn") {
		t.Errorf("outcome %+v, want failed: withdrawn", o)
	}
	if st := r.s.stateOf(r.form("t2")); st != handedOver {
		t.Errorf("t2 is %s, want handed over", st)
	}
	// The person answers t1 on the screen; t2 then shows and is theirs.
	r.s.input([]byte("1"))
	if err := c.SendKeys([]byte("1")); err != nil {
		t.Fatal(err)
	}
	r.wait(`"by":"person"`)
	if strings.Contains(r.log.String(), `"event":"key"`) {
		t.Errorf("a key pressed for the withdrawn answer\n%s", r)
	}
	r.end()
}

// TestRemoteSecondWhilePromptGoes: an answer from elsewhere sent while the
// prompt is going away, after another answer from elsewhere stopped it,
// is told it lost, never the first one's outcome as its own.
func TestRemoteSecondWhilePromptGoes(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	stopped := make(chan struct{})
	r := startRun(t, c, Config{Decider: decider{}, Policy: rules.Ask, Host: hostHeadless,
		Asker: asker(func(ctx context.Context, q answer.Question) (answer.Decision, error) {
			<-ctx.Done()
			<-stopped // a prompt slow to go
			return answer.Decision{}, ctx.Err()
		})})
	c.ask("t1", database)
	r.wait(`"question"`)
	asking := func() bool {
		r.s.mu.Lock()
		defer r.s.mu.Unlock()
		f := r.s.forms["t1"]
		return f != nil && f.asking
	}
	deadline := time.Now().Add(10 * time.Second)
	for !asking() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := make(chan remote.Outcome, 1)
	go func() { first <- remoteHandler{r.s}.Answer(ctx, "t1", []answer.Decision{sel("SQLite")}) }()
	r.log.WaitFor(t, `"rule":"remote"`, 10*time.Second)
	second := make(chan remote.Outcome, 1)
	go func() { second <- remoteHandler{r.s}.Answer(ctx, "t1", []answer.Decision{sel("MongoDB")}) }()
	var o2 remote.Outcome
	select {
	case o2 = <-second:
	case <-time.After(5 * time.Second): // it would hear only what the first's answer comes to
	}
	close(stopped)
	if o := <-first; o.Result != "verified" || o.Recorded[database.Question] != "SQLite" {
		t.Errorf("the first answer: %+v\n%s", o, r)
	}
	if o2.Result == "" {
		o2 = <-second
	}
	if o2.Result != "taken" {
		t.Errorf("the second answer: %+v, want taken\n%s", o2, r)
	}
	r.end()
}
