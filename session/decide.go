package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/ask"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// question decides the answers to a form, then has them given.
func (s *session) question(f *form) {
	if s.cfg.Unsupported != "" {
		s.unsupported(f)
		return
	}
	ds, ok := s.decide(f)
	if ok && len(ds) == len(f.questions) && s.answerByHook(f, ds) {
		return
	}
	if f.reply != nil {
		f.reply(nil) // the hook goes: Claude draws the form
	}
	if !ok {
		return
	}
	s.start(f, ds, deciding)
}

// ruledFirst is how many questions, from the first, the rules answer
// before the first they leave open.
func ruledFirst(ds []rules.Decision) int {
	for i, d := range ds {
		if !d.Matched() {
			return i
		}
	}
	return len(ds)
}

// unsupported leaves a form of a Claude Code older than claudewrap
// supports untouched: its screen is not one claudewrap can read. At a
// terminal it is the person's; headless the run ends at once (exit 7)
// rather than fail on each form after its bounds.
func (s *session) unsupported(f *form) {
	if f.reply != nil {
		f.reply(nil)
	}
	reason := s.cfg.Unsupported + ": claudewrap does not answer its forms"
	if !s.move(f, handedOver, deciding) {
		return
	}
	s.say("handed_over", events.Fields{"tool_use_id": f.ID(), "reason": reason})
	if s.cfg.Host.Headless {
		snap := s.child.Screen().Snapshot()
		s.block(reason, &snap)
	}
}

// decide makes one decision per question, applying the unmatched policy.
// It returns false when claudewrap leaves the form to the person.
func (s *session) decide(f *form) ([]rules.Decision, bool) {
	id, qs := f.ID(), f.questions
	ds := make([]rules.Decision, len(qs))
	var unmatched []int
	for i, q := range qs {
		d := s.cfg.Decider.Decide(q)
		if d.Matched() && d.Exec != nil {
			d = s.execDecide(q, d)
		}
		ds[i] = d
		if d.Matched() {
			s.emitDecision(id, i, q, d)
			continue
		}
		unmatched = append(unmatched, i)
		s.say("unmatched", events.Fields{"tool_use_id": id, "question": q.Question, "index": i + 1,
			"reason": d.Unmatched, "policy": string(s.cfg.Policy)})
	}
	if len(unmatched) == 0 {
		return ds, true
	}
	if len(unmatched) < len(qs) {
		ruled := slices.Clone(ds)
		s.loop.do(func() { f.ruled = ruled })
	}
	switch s.cfg.Policy {
	case rules.Ask:
		for _, i := range unmatched {
			d, ok, whole := s.ask(f, i)
			if whole != nil {
				return whole, true // answered from elsewhere first
			}
			if !ok {
				return cancelAll(ds), true
			}
			ds[i] = d
		}
		return ds, true
	case rules.Fallback:
		for _, i := range unmatched {
			d, ok := s.fallback(id, i, qs[i])
			if !ok {
				return cancelAll(ds), true
			}
			ds[i] = d
		}
		return ds, true
	case rules.CancelForm:
		return cancelAll(ds), true
	case rules.Fail:
		why := fmt.Sprintf("no rule answers the question %q, and unmatched questions fail the run", qs[unmatched[0]].Question)
		if r := ds[unmatched[0]].Unmatched; r != rules.NoRuleMatches {
			// A rule matched and could not answer: say which and why, not
			// that no rule answers (the rest is in the unmatched event).
			why = fmt.Sprintf("the question %q is unmatched: %s; unmatched questions fail the run", qs[unmatched[0]].Question, askflow.OneLine(r))
		}
		if n := len(unmatched); n > 1 {
			why += fmt.Sprintf(" (and %d more in that form)", n-1)
		}
		s.because(ExitUnmatched, why)
		return cancelAll(ds), true
	default: // passthrough, wait: the person answers in Claude's own menu, or anyone with claudewrap answer
		if k := ruledFirst(ds); s.cfg.Policy == rules.Passthrough && !s.cfg.Host.Headless && k > 0 && !s.cfg.DryRun {
			// At the terminal the rules answer first: their questions up
			// to the first one they leave open are answered on the screen,
			// and the form is the person's from there (see drive).
			return ds[:k], true
		}
		if !s.move(f, handedOver, deciding) {
			return nil, false // recorded meanwhile
		}
		fields := events.Fields{"tool_use_id": id, "reason": "unmatched question"}
		if s.cfg.Policy == rules.Wait {
			fields["reason"] = "unmatched question: waits for an answer from anywhere (claudewrap answer, the person at the screen)"
			if s.reg != nil {
				fields["session"] = s.reg.ID()
				fields["reason"] = fmt.Sprintf("unmatched question: waits for an answer: claudewrap answer %s "+
					"(claudewrap pending shows the form, claudewrap serve answers it from a browser), or the person at the screen", s.reg.ID())
				if s.cfg.Host.Headless {
					s.goWork(func() { s.remindWaiting(f, s.reg.ID()) })
				}
			}
		}
		s.say("handed_over", fields)
		if s.cfg.DryRun && s.cfg.Host.Headless {
			s.endDryRun(false) // it would wait for an answer a dry run refuses
			return nil, false
		}
		s.notify(f)
		if s.cfg.AnswerTimeout > 0 {
			s.goWork(func() { s.passthroughTimeout(f, ds, unmatched) })
		}
		return nil, false
	}
}

func (s *session) emitDecision(id string, i int, q answer.Question, d rules.Decision) {
	s.say("decision", decisionFields(id, i, q, d))
}

// decisionFields are the decision event's fields for d, question i of form
// id.
func decisionFields(id string, i int, q answer.Question, d rules.Decision) events.Fields {
	fields := events.Fields{"tool_use_id": id, "question": q.Question, "index": i + 1, "rule": d.Rule, "action": d.Action.String()}
	if d.File != "" {
		fields["file"] = fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	if len(d.Labels) > 0 {
		fields["labels"] = d.Labels
	}
	if d.Text != "" {
		fields["text"] = d.Text
	}
	return fields
}

// ask asks the person for question i, with the answer timeout; on timeout
// the fallback answers. An answer to the whole form from elsewhere
// (claudewrap answer, serve's page) that comes first ends the prompt,
// naming its sender, and is returned as whole.
func (s *session) ask(f *form, i int) (d0 rules.Decision, ok bool, whole []rules.Decision) {
	q := f.questions[i]
	ctx, cancel := s.ctx, context.CancelFunc(func() {})
	if s.cfg.AnswerTimeout > 0 {
		ctx, cancel = context.WithTimeout(s.ctx, s.cfg.AnswerTimeout)
	}
	defer cancel()
	pctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	s.loop.do(func() { f.asking = true; s.pendingChangedOnLoop() })
	if i == 0 {
		s.notify(f)
	}
	type result struct {
		d   answer.Decision
		err error
	}
	got := make(chan result, 1)
	go func() {
		d, err := s.cfg.Asker.Ask(pctx, q, i+1, len(f.questions))
		got <- result{d, err}
	}()
	var r result
	select {
	case r = <-got:
	case ra := <-f.remote:
		whole = ra.ds
		s.loop.do(func() { f.asking = false; s.pendingChangedOnLoop() }) // no second answer is sent while the prompt goes
		stop(fmt.Errorf("%w (%s)", ErrAnsweredElsewhere, ra.from))
		<-got // the prompt has said so and is gone
	}
	s.loop.do(func() { f.asking = false; s.pendingChangedOnLoop() })
	// An answer from elsewhere that came as the person answered, or after
	// another answer from elsewhere: the first came first, and its sender
	// is told so. None comes after asking is false (see
	// remoteHandler.Answer).
	select {
	case ra := <-f.remote:
		ra.w.tell(remote.Outcome{Result: "taken", Message: "answered by someone else first"})
	default:
	}
	if whole != nil {
		return rules.Decision{}, false, whole
	}
	d, err := r.d, r.err
	switch {
	case err == nil:
		rd := rules.Decision{Decision: d, Rule: "ask"}
		s.emitDecision(f.ID(), i, q, rd)
		return rd, true, nil
	case errors.Is(err, context.DeadlineExceeded) && s.ctx.Err() == nil:
		s.say("timeout", events.Fields{"tool_use_id": f.ID(), "question": q.Question, "index": i + 1,
			"after": s.cfg.AnswerTimeout.String()})
		d, ok := s.fallback(f.ID(), i, q)
		return d, ok, nil
	case errors.Is(err, ask.ErrNoAnswer):
		// As if the time to answer ran out: the fallback, else the form
		// is cancelled.
		s.say("unmatched", events.Fields{"tool_use_id": f.ID(), "question": q.Question, "index": i + 1,
			"reason": "the person gave no answer (Ctrl-D)", "policy": string(s.cfg.Policy)})
		d, ok := s.fallback(f.ID(), i, q)
		return d, ok, nil
	case errors.Is(err, ask.ErrInterrupted):
		// Ctrl-C: the person ends the run. The form is cancelled (Esc), then
		// Claude is ended, and the run exits 130.
		s.flag(func(r *Report) { r.Interrupted = true })
		return rules.Decision{}, false, nil
	default:
		s.say("error", events.Fields{"tool_use_id": f.ID(), "message": "ask: " + err.Error()})
		return rules.Decision{}, false, nil
	}
}

func (s *session) fallback(id string, i int, q answer.Question) (rules.Decision, bool) {
	d, err := s.cfg.Decider.Fallback(q)
	if err != nil {
		s.say("error", events.Fields{"tool_use_id": id, "question": q.Question, "message": err.Error()})
		return rules.Decision{}, false
	}
	s.emitDecision(id, i, q, d)
	return d, true
}

func cancelAll(ds []rules.Decision) []rules.Decision {
	out := make([]rules.Decision, len(ds))
	for i := range ds {
		out[i] = rules.Decision{Decision: answer.Decision{Action: answer.Cancel}, Rule: "policy"}
	}
	return out
}

// passthroughTimeout answers a form left to the person once they have not
// typed for AnswerTimeout: the rules' decisions where they matched, the
// fallback where they did not — if the form still shows as asked. An
// answer from elsewhere being pressed meanwhile does not stop the clock:
// withdrawn (see remoteHandler.Answer), the form is the person's again.
func (s *session) passthroughTimeout(f *form, ds []rules.Decision, unmatched []int) {
	for {
		var deadline time.Time
		var st state
		var changed <-chan struct{}
		s.loop.do(func() { deadline, st, changed = s.lastInput, f.state, s.changed })
		if st == done || st == recorded || st == submitted {
			return
		}
		if deadline.Before(f.asked) {
			deadline = f.asked
		}
		deadline = deadline.Add(s.cfg.AnswerTimeout)
		if st == handedOver && !time.Now().Before(deadline) {
			break
		}
		// Looked at again when a form moves (an answer from elsewhere
		// pressed, then withdrawn or recorded), and, while the form is the
		// person's, when their last key is AnswerTimeout old.
		t := time.NewTimer(time.Until(deadline))
		timeout := t.C
		if st != handedOver {
			timeout = nil
		}
		select {
		case <-timeout:
		case <-changed:
		case <-s.ctx.Done():
		}
		t.Stop()
		if s.ctx.Err() != nil {
			return
		}
	}
	if !askflow.Untouched(s.child.Screen().Snapshot(), f.questions) {
		return // the person answered, cancelled or moved on meanwhile
	}
	s.say("timeout", events.Fields{"tool_use_id": f.ID(), "after": s.cfg.AnswerTimeout.String()})
	for _, i := range unmatched {
		d, ok := s.fallback(f.ID(), i, f.questions[i])
		if !ok {
			ds = cancelAll(ds)
			break
		}
		ds[i] = d
	}
	s.start(f, ds, handedOver)
}
