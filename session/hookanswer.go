package session

import (
	"encoding/json"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/rules"
)

// The hook answer strategy (--answer-via hook): the question's PreToolUse
// hook waits while the answers are decided, and returns them to Claude in
// its updatedInput (AskUserQuestion's input plus "answers", and notes as
// "annotations", which 2.1.197 and 2.1.330 both record); Claude records
// them without drawing the form, and PostToolUse is verified as ever. What
// the hook cannot say (chat, cancel), or a decision that comes after the
// hook stopped waiting, goes on the screen instead.

// Answer strategies (Config.AnswerVia).
const (
	AnswerViaScreen = "screen"
	AnswerViaHook   = "hook"
)

// hookWait is how long a question's PreToolUse hook waits for the answers
// (the rules decide at once; a person at the prompt may take longer, and
// then answers on the screen).
const hookWait = hook.QuestionWait

// answerByHook answers f through its waiting PreToolUse hook, when every
// decision can be said there and the hook still waits; false otherwise (the
// caller then releases the hook, and the form is drawn).
func (s *session) answerByHook(f *form, ds []rules.Decision) bool {
	if s.cfg.AnswerVia != AnswerViaHook || f.reply == nil || s.cfg.DryRun {
		return false
	}
	answers := map[string]string{}
	notes := map[string]any{}
	for i, d := range ds {
		q := f.questions[i]
		switch d.Action {
		case answer.Select:
			answers[q.Question] = d.Labels[0]
			if q.MultiSelect {
				// Quoted as Claude 2.1.266 and later record a pick on
				// the screen: a label holding ", " reads as one.
				answers[q.Question] = answer.JoinLabels(d.Labels)
			}
			if d.Notes != "" {
				notes[q.Question] = map[string]string{"notes": d.Notes}
			}
		case answer.Type:
			answers[q.Question] = d.Text
		default:
			s.say("decision", events.Fields{"tool_use_id": f.ID(), "via": "screen",
				"reason": "the hook cannot say " + d.Action.String() + ": answered on the screen"})
			return false
		}
	}
	var input map[string]any
	if err := json.Unmarshal(f.input, &input); err != nil || input == nil {
		return false
	}
	input["answers"] = answers
	if len(notes) > 0 {
		input["annotations"] = notes
	}
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": hook.PreToolUse, "permissionDecision": "allow", "updatedInput": input}})
	// The reply and the form's state change together: Claude's PostToolUse
	// may come at once, and must find the form submitted.
	given := false
	s.loop.do(func() {
		if f.state != deciding || !f.reply(out) {
			return
		}
		// Nothing is pressed: Claude records what it is given, which no
		// other pick was.
		f.want = expectations(f, ds)
		for q, a := range answers {
			f.want[q] = givenAs(f.want[q], a)
		}
		s.moveOnLoop(f, submitted, deciding)
		f.viaHook = true
		close(f.driven) // never driven on the screen
		given = true
		// Said in this step: Claude's record is verified only after.
		s.say("submitted", events.Fields{"tool_use_id": f.ID(), "via": "hook", "answers": answers})
		flow := make([]answer.Decision, len(ds))
		for i, d := range ds {
			flow[i] = d.Decision
		}
		s.awaitRecord(f, flow)
	})
	return given
}

// givenAs is e for an answer a given through the hook: Claude records it
// as given, and nothing else verifies it.
func givenAs(e expect, a string) expect {
	e.answers, e.intended, e.loose = []string{a}, a, false
	return e
}

// expectations is what Claude must record for each question answered.
func expectations(f *form, ds []rules.Decision) map[string]expect {
	want := map[string]expect{}
	for i, d := range ds {
		q := f.questions[i]
		if d.Action == answer.Select || d.Action == answer.Type {
			want[q.Question] = expect{answers: d.Recordings(q), intended: d.Recorded(), notes: d.Notes, preview: q.PreviewLayout(),
				loose: d.Action == answer.Select}
		}
	}
	return want
}
