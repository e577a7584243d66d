package session

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/transcript"
	"github.com/claudewrap/claudewrap/rules"
)

// lastKeyGrace bounds the wait for askflow to confirm its last key once
// Claude has recorded the form.
const lastKeyGrace = 10 * time.Second

// arrival is a PostToolUse matched to its form.
type arrival struct {
	p        *hook.Payload
	f        *form         // nil: no form of that id
	st       state         // f's state when the PostToolUse came
	drivenAs string        // the id f was driven as, when Claude recorded its twin (see twinOnLoop)
	driven   chan struct{} // f.driven then: the drive under way's (see session.start)
	esc      bool          // the person's last key, Esc, came within escRace before it
	at       time.Time     // when it came
}

// formPosted: a form's PostToolUse came (see posted).
type formPosted struct{ p *hook.Payload }

// posted marks the form's PostToolUse as come, before the loop meets any
// later hook message: from then on the form is not open (see stopped),
// whatever verify is still waiting for. A worker readies it for
// checkRecord (verify).
func (s *session) posted(e formPosted) {
	a := s.arriveOnLoop(e.p)
	s.goWorkOnLoop(func() { s.verify(a) })
}

func (s *session) arriveOnLoop(p *hook.Payload) arrival {
	a := arrival{p: p, f: s.forms[p.ToolUseID], at: time.Now()}
	if a.f == nil {
		return a
	}
	if g, old := s.twinOnLoop(a.f); g != nil {
		a.drivenAs, a.f = old, g
	}
	a.st, a.driven = a.f.state, a.f.driven
	a.esc = s.lastEsc && time.Since(s.lastInput) < escRace
	select {
	case <-a.f.posted:
	default:
		close(a.f.posted)
		s.changedOnLoop()
	}
	if s.stopDeferred && a.st != recorded {
		// Claude cannot have ended the turn before it recorded this form.
		s.stopDeferred = false
		s.say("error", events.Fields{"tool_use_id": p.ToolUseID,
			"message": "a Stop came before Claude recorded this form: it was not Claude's, ignored"})
	}
	return a
}

// verify readies a form's PostToolUse for checkRecord: it waits for
// askflow's last key, and reads Claude's transcript where the person's key
// may have made the record the cancel.
func (s *session) verify(a arrival) {
	p, f, st := a.p, a.f, a.st
	switch {
	case f == nil:
		s.say("error", events.Fields{"tool_use_id": p.ToolUseID, "message": "PostToolUse for an unknown tool_use_id"})
		return
	case st == recorded:
		s.say("error", events.Fields{"tool_use_id": p.ToolUseID, "message": "a second PostToolUse for this tool_use_id ignored"})
		return
	}
	// askflow may still be confirming the last key when the hook arrives.
	if st == driving {
		select {
		case <-a.driven:
		case <-time.After(lastKeyGrace):
		}
	}
	// On a person's terminal the record is the tool_result Claude writes
	// to its transcript, a moment after the PostToolUse (0.3 s on 2.1.299):
	// the person's key read before or meanwhile (Esc, Ctrl-C) can make it
	// the cancel, whatever the hook said.
	var watch, wrong bool
	s.loop.do(func() {
		watch = a.esc || !s.cfg.Host.Headless && s.following().transcript != ""
		// A record that differs from claudewrap's answer stays a mismatch,
		// whatever the person's key did after (a wrong answer is never
		// reported as anything else).
		wrong = (f.state == submitted || f.state == driving) && f.want != nil && differs(f.want, p.ToolResponse) != ""
	})
	s.loop.send(recordRead{a, watch && !wrong && s.recordedCancel(f, p.ToolUseID)})
}

// recordRead: a form's PostToolUse, arrival a, is ready to be checked;
// cancel says Claude's transcript records it as the cancel (see
// session.recordedCancel).
type recordRead struct {
	a      arrival
	cancel bool
}

// checkRecord compares what Claude recorded for a form with what was
// intended, and says the outcome, in one step on the loop: the form is
// recorded (or done, as the person's cancel) and forgotten.
func (s *session) checkRecord(e recordRead) {
	p, f, drivenAs := e.a.p, e.a.f, e.a.drivenAs
	defer s.forgetOnLoop(f)
	cancelRecorded := false
	if e.cancel {
		if e.a.esc || s.lastInput.After(e.a.at.Add(-escRace)) {
			s.personCancelled(f, p.ToolUseID)
			return
		}
		cancelRecorded = true // and nobody typed: never taken for verified
	}
	want, ruled := f.want, f.ruled
	ours := f.state == submitted || f.state == driving
	typed := s.lastInput.After(f.asked)
	s.moveOnLoop(f, recorded, deciding, queued, driving, submitted, handedOver)
	got := p.ToolResponse.Answers
	if (!ours || want == nil) && (typed || want == nil) {
		fields := events.Fields{"tool_use_id": p.ToolUseID, "by": "person", "answers": got}
		if r := replacedRules(f, ruled, p.ToolResponse); len(r) > 0 {
			fields["replaced_rules"] = r
		}
		if k := keptRules(f, ruled, p.ToolResponse); len(k) > 0 {
			fields["kept_rules"] = k
		}
		s.say("submitted", fields)
		return
	}
	// claudewrap answered it, or it was recorded with nobody's key since
	// it was asked but claudewrap's, none of them for it: then a key meant
	// for another form landed on it (one Claude swapped in as the key
	// went). Its answers are checked as claudewrap's, never the person's.
	fields := events.Fields{"tool_use_id": p.ToolUseID, "answers": got}
	if !ours {
		fields["undriven"] = true
	}
	if drivenAs != "" {
		fields["driven_as"] = drivenAs
	}
	if notes := notesOf(p.ToolResponse); len(notes) > 0 {
		fields["notes"] = notes
	}
	why := differs(want, p.ToolResponse)
	if cancelRecorded {
		why = "Claude's transcript records the cancel, where its PostToolUse carried the answers, and nobody typed"
	}
	if why == "" {
		s.say("verified", fields)
		return
	}
	if !ours {
		why += "; claudewrap had pressed nothing on this form and nobody typed: a key of claudewrap's meant for another form landed on it"
	}
	fields["reason"] = why
	s.because(ExitMismatch, fmt.Sprintf("Claude recorded something other than intended for form %s: %s", p.ToolUseID, why))
	wantAnswers := map[string]string{}
	for q, e := range want {
		wantAnswers[q] = e.intended
	}
	fields["want"], fields["got"] = wantAnswers, got
	delete(fields, "answers")
	s.say("mismatch", fields)
}

// twinOnLoop handles Claude recording a form that was not the one driven:
// with two forms alike asked at once, the one on the screen may be either
// (Claude Code does not always show them in the order their hooks come).
// When f is still waiting and a form asking the very same questions is
// being driven or was submitted, what was pressed went to f's form: the
// two swap ids, and the driven one, now f's, is returned with the id it
// was driven as (nil otherwise).
// Its decisions suit f's questions, which are the same; the other form
// takes the id left over and is driven on the next form.
func (s *session) twinOnLoop(f *form) (*form, string) {
	if f.state != deciding && f.state != queued {
		return nil, ""
	}
	for _, g := range s.forms {
		// A form answered through the hook was never on the screen, and
		// Claude records it under its own id.
		if (g.state == driving || g.state == submitted && !g.viaHook) && !isClosed(g.posted) && reflect.DeepEqual(g.questions, f.questions) {
			fid, gid := f.ID(), g.ID()
			s.forms[fid], s.forms[gid] = g, f
			f.id.Store(&gid)
			g.id.Store(&fid)
			return g, gid
		}
	}
	return nil, ""
}

// differs says how what Claude recorded differs from the intent, or "".
func differs(want map[string]expect, got *hook.ToolResponse) string {
	if len(want) != len(got.Answers) {
		return fmt.Sprintf("%d answers recorded, %d intended", len(got.Answers), len(want))
	}
	for q, e := range want {
		a, ok := got.Answers[q]
		if !ok {
			return fmt.Sprintf("no answer recorded for %q", q)
		}
		if !slices.Contains(e.answers, a) && !(e.loose && slices.ContainsFunc(e.answers, func(w string) bool {
			return answer.Loose(w) == answer.Loose(a)
		})) {
			return fmt.Sprintf("%q recorded for %q, %q intended", a, q, e.intended)
		}
		if n := got.Annotations[q].Notes; e.preview && n != e.notes {
			return fmt.Sprintf("notes %q recorded for %q, %q intended", n, q, e.notes)
		}
	}
	return ""
}

// replacedRules lists the questions of a form the person answered at
// Claude's screen whose record differs from the answer a rule had given
// them: said, never silent.
func replacedRules(f *form, ruled []rules.Decision, got *hook.ToolResponse) []map[string]any {
	var out []map[string]any
	for i, d := range ruled {
		if !d.Matched() || d.Action != answer.Select && d.Action != answer.Type {
			continue
		}
		q := f.questions[i]
		if _, ok := got.Answers[q.Question]; !ok {
			continue
		}
		one := map[string]expect{q.Question: expectations(f, ruled)[q.Question]}
		rec := &hook.ToolResponse{Answers: map[string]string{q.Question: got.Answers[q.Question]}, Annotations: got.Annotations}
		if differs(one, rec) != "" {
			out = append(out, map[string]any{"question": q.Question, "rule": d.Rule, "rule_answer": d.Recorded(), "recorded": got.Answers[q.Question]})
		}
	}
	return out
}

// keptRules lists the rules' answers of a form the person finished that
// Claude recorded as the rules meant them (see replacedRules).
func keptRules(f *form, ruled []rules.Decision, got *hook.ToolResponse) []map[string]any {
	var out []map[string]any
	for i, d := range ruled {
		if !d.Matched() || d.Action != answer.Select && d.Action != answer.Type {
			continue
		}
		q := f.questions[i]
		a, ok := got.Answers[q.Question]
		if !ok {
			continue
		}
		one := map[string]expect{q.Question: expectations(f, ruled)[q.Question]}
		if differs(one, &hook.ToolResponse{Answers: map[string]string{q.Question: a}, Annotations: got.Annotations}) == "" {
			out = append(out, map[string]any{"question": q.Question, "rule": d.Rule, "recorded": a})
		}
	}
	return out
}

func notesOf(r *hook.ToolResponse) map[string]string {
	out := map[string]string{}
	for q, a := range r.Annotations {
		if a.Notes != "" {
			out[q] = a.Notes
		}
	}
	return out
}

// EscRecordedReason is the reason a form is reported cancelled when the
// person's Esc (or another key of theirs, such as Ctrl-C) came as Claude
// recorded it.
const EscRecordedReason = "the person pressed Esc as Claude recorded it"

// recordedCancel reports whether Claude's record of form f (its tool use
// id) is the cancel after all. Claude runs PostToolUse as a form is
// submitted, and a key of the person's read just before or after
// interrupts the turn: the tool_result Claude then writes is the cancel,
// whatever the hook said (the person's Esc may overtake claudewrap's Enter,
// or come after the PostToolUse and before the tool_result is written).
// The record is read from the transcript for up to escWait,
// and once more if Claude ends meanwhile; none by then, or another,
// leaves the PostToolUse as the record.
func (s *session) recordedCancel(f *form, id string) bool {
	r, ok := s.awaitTranscript(id, func() bool { return true })
	return ok && transcript.Cancelled(r)
}

// personCancelled reports form f (its tool use id), which Claude recorded
// as the cancel, as the person's, and ends the interrupted turn. It runs on
// the loop.
func (s *session) personCancelled(f *form, id string) {
	if s.moveOnLoop(f, done, deciding, queued, driving, submitted, handedOver) { // else reported already, as the Esc's on the screen (escaped)
		s.say("cancelled", events.Fields{"tool_use_id": id, "by": "person", "reason": EscRecordedReason})
		if s.ctx.Err() == nil { // Claude ended by itself: nothing is left to end
			s.turnInterruptedOnLoop()
		}
	}
}

// isClosed reports whether ch is closed (a form's posted: its PostToolUse
// has come).
func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
