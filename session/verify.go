package session

import (
	"fmt"
	"slices"
	"time"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
)

// lastKeyGrace bounds the wait for askflow to confirm its last key once
// Claude has recorded the form.
const lastKeyGrace = 10 * time.Second

// verify compares what Claude recorded (PostToolUse) with what was
// intended.
func (s *session) verify(p *hook.Payload) {
	s.mu.Lock()
	f := s.forms[p.ToolUseID]
	var st state
	if f != nil {
		st = f.state
		select {
		case <-f.posted:
		default:
			close(f.posted)
		}
	}
	s.mu.Unlock()
	switch {
	case f == nil:
		s.log.Emit("error", events.Fields{"tool_use_id": p.ToolUseID, "message": "PostToolUse for an unknown tool_use_id"})
		return
	case st == recorded:
		s.log.Emit("error", events.Fields{"tool_use_id": p.ToolUseID, "message": "a second PostToolUse for this tool_use_id ignored"})
		return
	}
	defer s.forget(f)
	// askflow may still be confirming the last key when the hook arrives.
	if st == driving {
		select {
		case <-f.driven:
		case <-time.After(lastKeyGrace):
		}
	}
	s.mu.Lock()
	want := f.want
	ours := f.state == submitted || f.state == driving
	s.moveLocked(f, recorded, deciding, queued, driving, submitted, handedOver)
	s.mu.Unlock()
	got := p.ToolResponse.Answers
	if !ours || want == nil {
		s.log.Emit("submitted", events.Fields{"tool_use_id": p.ToolUseID, "by": "person", "answers": got})
		return
	}
	fields := events.Fields{"tool_use_id": p.ToolUseID, "answers": got}
	if notes := notesOf(p.ToolResponse); len(notes) > 0 {
		fields["notes"] = notes
	}
	why := differs(want, p.ToolResponse)
	if why == "" {
		s.log.Emit("verified", fields)
		return
	}
	fields["reason"] = why
	s.flag(func(r *Report) { r.Mismatch = true })
	wantAnswers := map[string]string{}
	for q, e := range want {
		wantAnswers[q] = e.answers[0]
	}
	fields["want"], fields["got"] = wantAnswers, got
	delete(fields, "answers")
	s.log.Emit("mismatch", fields)
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
		if !slices.Contains(e.answers, a) {
			return fmt.Sprintf("%q recorded for %q, %q intended", a, q, e.answers[0])
		}
		if n := got.Annotations[q].Notes; e.preview && n != e.notes {
			return fmt.Sprintf("notes %q recorded for %q, %q intended", n, q, e.notes)
		}
	}
	return ""
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
