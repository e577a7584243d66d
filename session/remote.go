package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// Answers from elsewhere (package remote: claudewrap answer, pending,
// wait, serve's page). A form waits for one while it is the person's
// (passthrough, the wait policy) or while they are asked on claudewrap's
// prompt. The first answer wins: the person's keys at Claude's screen, the
// prompt, the fallback when time runs out, or a remote answer; the others
// are told. A remote answer is checked before it takes the form
// (remote.Check: what the form cannot take or the screen cannot show is
// refused, and changes nothing), driven and verified exactly like a
// rule's, its decisions naming its sender ("from"), and its sender learns
// what Claude recorded as the session says it (see say).

// ErrAnsweredElsewhere ends claudewrap's prompt when the form was answered
// from elsewhere first; the cause the prompt shows names the sender.
var ErrAnsweredElsewhere = errors.New("answered from elsewhere")

// remoteHandler is the session as package remote serves it.
type remoteHandler struct{ s *session }

var (
	_ remote.Handler       = remoteHandler{}
	_ remote.ElicitHandler = remoteHandler{}
)

func (h remoteHandler) ClaudeSession() string { return h.s.following().id }

// Pending lists the forms that wait for a person.
func (h remoteHandler) Pending() (out []remote.Form) {
	s := h.s
	s.loop.do(func() {
		for _, f := range s.forms {
			if (f.state == handedOver || f.state == deciding && f.asking) && !isClosed(f.posted) {
				out = append(out, remote.Form{ToolUseID: f.ID(), Since: f.asked.UTC(), Questions: f.questions, Decided: decidedOnLoop(f)})
			}
		}
		out = append(out, s.pendingElicitationOnLoop()...)
	})
	return out
}

// Answer answers the form, if it still waits, and waits for what Claude
// recorded: until ctx ends (its sender hung up, or remote.AnswerWait ran out), or
// Claude has exited. from, the sender, is named in the decisions.
func (h remoteHandler) Answer(ctx context.Context, id, from string, ds []answer.Decision) remote.Outcome {
	s := h.s
	var (
		f       *form
		st      state
		escAt   time.Time
		posted  bool
		decided []remote.Decided
	)
	s.loop.do(func() {
		if f = s.forms[id]; f != nil {
			st, escAt, posted, decided = f.state, f.escAt, isClosed(f.posted), decidedOnLoop(f)
		}
	})
	if f == nil {
		return remote.Outcome{Result: "refused", Message: fmt.Sprintf("no form %s waits in this session", id)}
	}
	if s.cfg.DryRun {
		return remote.Outcome{Result: "refused", Message: "a dry run presses nothing (run without --dry-run to answer from elsewhere)"}
	}
	if posted { // Claude's record is being read (see verify)
		return remote.Outcome{Result: "taken", Message: "Claude has recorded it (its record is being read)"}
	}
	// Checked before the form is taken: a refused answer leaves the form
	// waiting as it was, for a later answer. The rules' answers stand.
	ds, err := remote.Merge(f.questions, decided, ds)
	if err != nil {
		return remote.Outcome{Result: "refused", Message: err.Error()}
	}
	if err := remote.Check(f.questions, ds); err != nil {
		return remote.Outcome{Result: "refused", Message: err.Error()}
	}
	ruled := map[int]rules.Decision{}
	s.loop.do(func() {
		for _, d := range decided {
			ruled[d.Index-1] = f.ruled[d.Index-1]
		}
	})
	rds := make([]rules.Decision, len(ds))
	cancels := false
	for i, d := range ds {
		rds[i] = rules.Decision{Decision: d, Rule: "remote"}
		if r, ok := ruled[i]; ok && d.Action != answer.Cancel && d.Action != answer.Chat {
			rds[i] = r
		}
		cancels = cancels || d.Action == answer.Cancel
	}
	// Registered before the answer can win, so that no outcome of it is
	// missed; an answer that loses never hears the winner's.
	w := s.await(id, f, cancels)
	defer s.unawait(id, w)
	switch {
	case st == handedOver:
		// A form not drawn yet is driven once it shows; one on the screen
		// must be as Claude asked it, nobody's keys in it. One asked just
		// after the person's Esc is theirs until Claude has recorded what
		// the Esc did (see escAsked): it may never show.
		if !escAt.IsZero() && time.Since(escAt) < escWait {
			return remote.Outcome{Result: "taken", Message: EscAskedReason}
		}
		if snap := s.child.Screen().Snapshot(); askflow.Showing(snap, f.questions) && !askflow.Untouched(snap, f.questions) {
			return remote.Outcome{Result: "taken", Message: "the person at Claude's screen has started answering it"}
		}
		// Started from outside the session's goroutines: counted as its
		// work, which Run waits for, unless Claude has exited.
		if !s.enterWork() {
			return w.last("Claude exited before it recorded the answer")
		}
		s.emitRemoteDecisions(id, f.questions, rds, from)
		started := s.start(f, rds, handedOver)
		s.work.Done()
		if !started {
			return remote.Outcome{Result: "taken", Message: "answered by someone else first"}
		}
	case st == deciding:
		// Sent while the prompt still asks, on the loop where it is
		// stopped (see ask): an answer is never left unread in f.remote.
		asking, sent := false, false
		s.loop.do(func() {
			if asking = f.asking; asking {
				select {
				case f.remote <- remoteAnswer{rds, w, from}:
					sent = true
				default:
				}
			}
		})
		if !asking {
			return remote.Outcome{Result: "taken", Message: "the form does not wait for a person (it is being decided)"}
		}
		if !sent {
			return remote.Outcome{Result: "taken", Message: "answered by someone else first"}
		}
		s.emitRemoteDecisions(id, f.questions, rds, from)
	default:
		return remote.Outcome{Result: "taken", Message: fmt.Sprintf("the form does not wait for a person (it is %s)", st)}
	}
	select {
	case o := <-w.ch:
		return o
	case <-s.served:
		return w.last("Claude exited before it recorded the answer")
	case <-ctx.Done():
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The sender hung up: the wait is given up, not the answer.
		return remote.Outcome{Result: "failed", Message: "no outcome yet: " + ctx.Err().Error()}
	}
	if st != handedOver {
		// The prompt's answer now, which nobody else would give: it stands,
		// and its sender waits for what Claude records.
		select {
		case o := <-w.ch:
			return o
		case <-s.served:
			return w.last("Claude exited before it recorded the answer")
		}
	}
	// A form handed to the person whose answer from elsewhere still waits
	// its turn behind another form is theirs again, and its sender told it
	// failed: it must never be pressed later. One being pressed is let be;
	// should it yield its turn again (see drive), it is withdrawn then.
	for {
		var moved bool
		var changed <-chan struct{}
		s.loop.do(func() { moved, changed = s.moveOnLoop(f, handedOver, queued), s.changed })
		if moved {
			why := fmt.Sprintf("the answer from elsewhere waited its turn behind another form for %v, and was withdrawn", remote.AnswerWait)
			s.say("handed_over", events.Fields{"tool_use_id": id, "reason": why})
			return remote.Outcome{Result: "failed", Message: why + "; the form waits for a person again"}
		}
		select {
		case o := <-w.ch:
			return o
		case <-s.served:
			return w.last("Claude exited before it recorded the answer")
		case <-changed: // a form moved: this one may be back in the queue
		}
	}
}

// decidedOnLoop lists the questions of f that rules answered, when others
// wait for a person; nil when none did. It runs on the loop.
func decidedOnLoop(f *form) []remote.Decided {
	var out []remote.Decided
	for i, d := range f.ruled {
		if !d.Matched() {
			continue
		}
		e := remote.Decided{Index: i + 1, Rule: d.Rule, Answer: d.Decision.String(), Decision: d.Decision}
		if d.File != "" {
			e.File = fmt.Sprintf("%s:%d", d.File, d.Line)
		}
		out = append(out, e)
	}
	return out
}

// emitRemoteDecisions logs the decisions of an answer from elsewhere,
// each naming its sender; those of rules were logged when they were made.
func (s *session) emitRemoteDecisions(id string, qs []answer.Question, ds []rules.Decision, from string) {
	for i, d := range ds {
		if d.Rule != "remote" {
			continue
		}
		fields := decisionFields(id, i, qs[i], d)
		fields["from"] = from
		s.say("decision", fields)
	}
}

// remoteAnswer is an answer from elsewhere sent to claudewrap's prompt,
// with its sender's waiter and name.
type remoteAnswer struct {
	ds   []rules.Decision
	w    *waiter
	from string
}

// waiter is one answer from elsewhere waiting for its form's outcome.
type waiter struct {
	ch chan remote.Outcome
	// cancels: the answer declines the form. A form cancelled otherwise
	// (its turn interrupted) did not get that answer.
	cancels bool
	order   uint64 // when it began to wait (conductor.order)
	f       *form  // the form it waits on
}

// tell gives w its outcome, unless it has one.
func (w *waiter) tell(o remote.Outcome) {
	select {
	case w.ch <- o:
	default:
	}
}

// last is w's outcome if it came before Claude exited; failed with why
// otherwise.
func (w *waiter) last(why string) remote.Outcome {
	select {
	case o := <-w.ch:
		return o
	default:
		return remote.Outcome{Result: "failed", Message: why}
	}
}

// await registers a wait for the outcome of form f, asked as id, as the
// session says it (see say). The conductor meets it before any outcome said after it.
func (s *session) await(id string, f *form, cancels bool) *waiter {
	w := &waiter{ch: make(chan remote.Outcome, 1), cancels: cancels, f: f}
	s.loop.send(waitBegun{id, w})
	return w
}

func (s *session) unawait(id string, w *waiter) { s.loop.send(waitEnded{id, w}) }

// say writes the event name to the run's log and, when it says what came
// of a form, tells the conductor, which tells the answers from elsewhere
// waiting on it (see tell). The log is a sink: nothing in the session
// reads it back.
func (s *session) say(name string, f events.Fields) {
	s.log.Emit(name, f)
	if id, o, handover, ok := outcomeOf(name, f); ok {
		s.loop.send(outcomeSaid{id, o, handover})
	}
}

// outcomeOf is what the event name says came of the form it names by
// tool_use_id, as an answer from elsewhere is told it; handover says it is
// a hand-over (see tell). ok is false for an event that says no outcome.
func outcomeOf(name string, f events.Fields) (id string, o remote.Outcome, handover, ok bool) {
	id, _ = f["tool_use_id"].(string)
	if id == "" {
		return "", o, false, false
	}
	str := func(k string) string { v, _ := f[k].(string); return v }
	switch name {
	case "verified":
		o = remote.Outcome{Result: "verified", Recorded: answersOf(f["answers"])}
	case "mismatch":
		o = remote.Outcome{Result: "mismatch", Message: str("reason"), Recorded: answersOf(f["got"])}
	case "cancelled":
		o = remote.Outcome{Result: "cancelled", Message: str("reason")}
	case "submitted":
		switch {
		case str("by") == "person":
			o = remote.Outcome{Result: "taken", Message: "the person at Claude's screen answered first", Recorded: answersOf(f["answers"])}
		case f["chat"] == true:
			o = remote.Outcome{Result: "chatted"}
		default:
			return "", o, false, false // Claude's record is still to come
		}
	case "handed_over":
		o = remote.Outcome{Result: "taken", Message: "handed to the person: " + str("reason")}
		// Said just after the form moved: an answer that began to wait
		// since (the form was the person's again) is not the one let go.
		// (A chat message the person took over moves no form.)
		handover = f["chat_message"] == nil
	case "error":
		if f["step"] == nil {
			return "", o, false, false
		}
		// One line, as the run's own exit says it: the step and why, and
		// the bug report (the screen is in it, not in the message).
		why := str("reason")
		if why == "" {
			why = str("message") // one line where no reason is given apart
		}
		msg := str("step") + ": " + why
		if q, ok := f["question"].(int); ok {
			msg = fmt.Sprintf("question %d: %s", q, msg)
		}
		if b := str("bundle"); b != "" {
			msg += "; bug report: " + b
		}
		o = remote.Outcome{Result: "failed", Message: msg}
	default:
		return "", o, false, false
	}
	return id, o, handover, true
}

// tell gives the outcome e says to the answers waiting on its form; a
// hand-over only to those that began to wait before the form's last one.
func (c *conductor) tell(e outcomeSaid) {
	for _, w := range c.waiters[e.id] {
		switch {
		case e.handover && w.order > w.f.handed:
		case e.o.Result == "cancelled" && !w.cancels:
			// Dropped, not declined as asked (the turn was interrupted):
			// what was answered was never recorded.
			w.tell(remote.Outcome{Result: "failed", Message: "the form was cancelled before the answer was recorded: " + e.o.Message})
		default:
			w.tell(e.o)
		}
	}
}

func answersOf(v any) map[string]string {
	m, _ := v.(map[string]string)
	return m
}

// notifyTimeout bounds a --notify command.
const notifyTimeout = 10 * time.Second

// notify runs the --notify command, the form as JSON on its stdin, when f
// starts to wait for a person. Its failure is reported, never fatal.
func (s *session) notify(f *form) {
	s.notifyForm(remote.Form{Since: f.asked.UTC(), ToolUseID: f.ID(), Questions: f.questions})
}

// notifyForm runs the --notify command with rf, as claudewrap pending
// lists it, on its stdin.
func (s *session) notifyForm(rf remote.Form) {
	if s.cfg.Notify == "" {
		return
	}
	if s.cfg.StillAllowed != nil {
		if err := s.cfg.StillAllowed(); err != nil {
			s.say("error", events.Fields{"tool_use_id": rf.ToolUseID, "message": "--notify is not run: " + err.Error()})
			return
		}
	}
	rf.Session, rf.PID, rf.Cwd = s.cfg.SessionName, os.Getpid(), s.cfg.Cwd
	b, _ := json.Marshal(rf)
	b = safe.JSON(b) // the command may print it: no control of the form's acts on a terminal
	s.goWork(func() {
		ctx, cancel := context.WithTimeout(s.ctx, notifyTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", s.cfg.Notify)
		cmd.Stdin = bytes.NewReader(b)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			s.say("error", events.Fields{"tool_use_id": rf.ToolUseID, "message": fmt.Sprintf("--notify: %v: %s", err, clip(out.String(), 200))})
		}
	})
}

// registerRemote lists the session for claudewrap pending and answer,
// and attaches the other ways answers reach it (Config.Reach).
func (s *session) registerRemote() (stop func()) {
	if !s.cfg.Remote {
		return func() {}
	}
	var local remote.Handler = remoteHandler{s}
	stopReach := func() {}
	if s.cfg.Reach != nil {
		var changed func()
		local, changed, stopReach = s.cfg.Reach.Attach(remoteHandler{s})
		s.loop.do(func() { s.reachChanged = changed })
	}
	o := remote.Options{OtherRuns: s.cfg.AnswersFromRuns, Refused: func(who remote.Peer, why string) {
		s.say("error", events.Fields{"message": why, "sender_pid": who.PID, "sender_program": who.Program})
	}}
	if t, ok := s.child.(interface{ Tree() int }); ok {
		o.Tree = t.Tree()
	}
	reg, err := remote.Register(local, s.cfg.Cwd, o)
	if err != nil {
		s.say("error", events.Fields{"message": "not reachable by claudewrap answer: " + err.Error()})
		return stopReach
	}
	s.reg = reg
	var once sync.Once
	return func() { once.Do(func() { reg.Close(); stopReach() }) }
}

// Reach is a way answers from elsewhere reach a run besides its local
// socket (the inbox: every machine's forms in one place).
type Reach interface {
	// Attach is given the session as the local socket serves it, once
	// Claude has started. It returns the handler the local socket is to
	// serve instead (so that its answers take part in the same race), a
	// function told each time what waits for a person may have changed
	// (on the session's loop: it must not wait), and one that stops it.
	Attach(h remote.Handler) (local remote.Handler, changed func(), stop func())
}

// pendingChangedOnLoop tells Config.Reach that what waits for a person may
// have changed.
func (s *session) pendingChangedOnLoop() {
	if s.reachChanged != nil {
		s.reachChanged()
	}
}

// remindEvery is how often a headless run says again that a form waits for
// an answer from elsewhere, so that a log read later shows it still waits.
const remindEvery = 2 * time.Minute

// remindWaiting emits a waiting event for f every s.remindEvery while it
// waits, handed over, for an answer from elsewhere; session names the
// session for claudewrap answer.
func (s *session) remindWaiting(f *form, session string) {
	s.remind(f.posted, func(waited time.Duration) bool {
		// Said on the loop, so that no reminder comes after the form has
		// left the person's hands.
		still := false
		s.loop.do(func() {
			if still = f.state == handedOver; still {
				s.say("waiting", events.Fields{"tool_use_id": f.ID(), "session": session, "waited": waited.Round(time.Second).String()})
			}
		})
		return still
	})
}

// remind calls say every s.remindEvery, with how long it has been, until
// done is closed, the run ends, or say reports there is nothing to say.
func (s *session) remind(done <-chan struct{}, say func(waited time.Duration) bool) {
	every := s.remindEvery
	if every == 0 {
		every = remindEvery
	}
	start := time.Now()
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-done:
			return
		case <-t.C:
		}
		if !say(time.Since(start)) {
			return
		}
		t.Reset(every)
	}
}
