package session

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// An MCP server's form no rule answers, under the wait policy, waits for
// an answer from anywhere: claudewrap answer (package remote), serve's
// page or the person at Claude's screen, whoever comes first; under the
// ask policy claudewrap's prompt asks it meanwhile (elicitask.go). An answer from
// elsewhere is checked against the server's schema as a rule's values are
// (rules.ElicitReply), then given on the screen and verified exactly like
// a rule's (elicitscreen.go). Headless, the form waits at most the answer
// timeout (else the idle timeout), then the run is blocked.

// elicitWait is an MCP server's form waiting for an answer from anywhere.
type elicitWait struct {
	id              string // "elicitation-N": its name for claudewrap answer
	server, message string
	schema          json.RawMessage
	fields          []remote.ElicitField
	asked           time.Time
	gone            chan struct{} // closed once it waits no more
}

// waitElicitation lists the form for claudewrap pending and answer; it
// reports false when the form cannot be answered from elsewhere (a schema
// that cannot be read), which is then handled as if nobody could.
func (s *session) waitElicitation(p *hook.Payload, n int) bool {
	fields, err := elicitFields(p.RequestedSchema)
	if err != nil {
		return false
	}
	w := &elicitWait{id: fmt.Sprintf("elicitation-%d", n), server: p.MCPServerName, message: p.Message,
		schema: p.RequestedSchema, fields: fields, asked: time.Now(), gone: make(chan struct{})}
	s.loop.do(func() {
		if old := s.elicitWait; old != nil {
			s.unwaitOnLoop(old) // Claude asks one form at a time: the last is gone
		}
		s.elicitWait = w
		s.pendingChangedOnLoop()
	})
	how := "waits for an answer from anywhere (claudewrap answer, the person at the screen)"
	ev := events.Fields{"elicitation": w.server, "form": w.id}
	if s.reg != nil {
		ev["session"] = s.reg.ID()
		how = fmt.Sprintf("waits for an answer: claudewrap answer %s --form %s "+
			"--accept '{FIELD: VALUE, …}' (or --decline, --cancel; claudewrap pending shows its fields), or the person at the screen",
			s.reg.ID(), w.id)
	}
	if s.cfg.Policy == rules.Ask {
		how = "asked on claudewrap's prompt; it also " + how
		s.goWork(func() { s.askElicitation(w) })
	}
	ev["reason"] = "no rule answers it: " + how
	s.say("handed_over", ev)
	s.notifyForm(w.form())
	if !s.cfg.Host.Headless {
		return true
	}
	if s.reg != nil {
		session := s.reg.ID()
		s.goWork(func() { s.remindElicitation(w, session) })
	}
	limit, flag := s.cfg.AnswerTimeout, "--answer-timeout"
	if limit <= 0 {
		limit, flag = s.cfg.IdleLimit, "--idle-timeout"
	}
	if limit > 0 {
		s.goWork(func() { s.elicitDeadline(w, limit, flag) })
	}
	return true
}

// elicitFields are the fields of a requested schema as claudewrap pending
// lists them.
func elicitFields(schema json.RawMessage) ([]remote.ElicitField, error) {
	fields, err := rules.FormFields(schema)
	if err != nil {
		return nil, err
	}
	var out []remote.ElicitField
	for _, f := range fields {
		out = append(out, remote.ElicitField{Name: f.Name, Title: f.Title, Type: f.Type, Options: f.Values, Required: f.Required})
	}
	return out, nil
}

// remindElicitation emits a waiting event for w every s.remindEvery while
// it waits for an answer from elsewhere.
func (s *session) remindElicitation(w *elicitWait, session string) {
	s.remind(w.gone, func(waited time.Duration) bool {
		still := false
		s.loop.do(func() {
			if still = s.elicitWait == w; still {
				s.say("waiting", events.Fields{"tool_use_id": w.id, "elicitation": w.server, "session": session,
					"waited": waited.Round(time.Second).String()})
			}
		})
		return still
	})
}

// elicitDeadline blocks a headless run whose MCP form still waits after
// limit, which flag sets.
func (s *session) elicitDeadline(w *elicitWait, limit time.Duration, flag string) {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w.gone:
		return
	case <-s.ctx.Done():
		return
	}
	waiting := false
	s.loop.do(func() {
		if waiting = s.elicitWait == w; waiting {
			s.unwaitOnLoop(w)
		}
	})
	if !waiting {
		return
	}
	snap := s.child.Screen().Snapshot()
	s.block(fmt.Sprintf("MCP server %q asks for input (%q), no rule answers it, and no answer came from anywhere within %v (%s) (headless)",
		w.server, w.message, limit, flag), &snap)
}

// unwaitOnLoop ends w's wait.
func (s *session) unwaitOnLoop(w *elicitWait) {
	if s.elicitWait == w {
		s.elicitWait = nil
		s.pendingChangedOnLoop()
	}
	select {
	case <-w.gone:
	default:
		close(w.gone)
	}
}

// elicitAnswered ends the wait of server's form: Claude reports it
// answered (by the person, when no drive of claudewrap's was at it).
func (s *session) elicitAnswered(server string) {
	s.loop.do(func() {
		if w := s.elicitWait; w != nil && w.server == server {
			s.unwaitOnLoop(w)
		}
	})
}

// pendingElicitationOnLoop is the MCP form that waits, as claudewrap
// pending lists it.
func (s *session) pendingElicitationOnLoop() []remote.Form {
	w := s.elicitWait
	if w == nil {
		return nil
	}
	return []remote.Form{w.form()}
}

// form is w as claudewrap pending lists it.
func (w *elicitWait) form() remote.Form {
	return remote.Form{ToolUseID: w.id, Since: w.asked.UTC(), Questions: []answer.Question{},
		Elicitation: &remote.Elicitation{Server: w.server, Message: w.message, Fields: w.fields, Schema: w.schema}}
}

// AnswerElicitation answers the MCP form id, if it still waits: values the
// server's schema refuses, or that the screen cannot show, are refused
// before anything is pressed; the person's keys at Claude's screen since
// the form was asked make it theirs. It waits for what Claude reports
// (until ctx ends, or Claude has exited).
func (h remoteHandler) AnswerElicitation(ctx context.Context, id, from string, a remote.ElicitAnswer) remote.Outcome {
	return h.s.answerElicitation(ctx, id, "remote", from, a)
}

// answerElicitation is AnswerElicitation for an answer of rule ("remote",
// or "ask" for claudewrap's prompt) from sender from ("" for the prompt).
func (s *session) answerElicitation(ctx context.Context, id, rule, from string, a remote.ElicitAnswer) remote.Outcome {
	var w *elicitWait
	s.loop.do(func() { w = s.elicitWait })
	if w == nil || w.id != id {
		return remote.Outcome{Result: "refused", Message: fmt.Sprintf("no MCP server's form %s waits in this session", id)}
	}
	content, err := rules.ElicitReply(w.schema, a.Action, a.Values, "the answer")
	if err != nil {
		return remote.Outcome{Result: "refused", Message: err.Error()}
	}
	d := rules.ElicitDecision{Action: rules.ElicitAction(a.Action), Content: content, Rule: rule}
	titles, values, defaults, why := screenPlan(w.schema, d, s.child.Screen().Snapshot().Cols)
	if why != "" {
		return remote.Outcome{Result: "refused", Message: "the screen cannot take it: " + why}
	}
	dr := newElicitDrive(w.server, d, titles, values, defaults)
	dr.asked, dr.from, dr.outcome = w.asked, from, make(chan remote.Outcome, 1)
	var typed, mine bool
	s.loop.do(func() {
		typed = s.lastInput.After(w.asked)
		if mine = s.elicitWait == w && !typed && s.elicitDrive == nil; mine {
			s.unwaitOnLoop(w)
			s.elicitDrive = dr
		}
	})
	switch {
	case typed:
		return remote.Outcome{Result: "taken", Message: "the person at Claude's screen has started answering it"}
	case !mine:
		return remote.Outcome{Result: "taken", Message: "answered by someone else first"}
	}
	dec := events.Fields{"elicitation": w.server, "form": id, "rule": rule, "action": a.Action, "via": "screen"}
	if from != "" {
		dec["from"] = from
	}
	if d.Action == rules.Accept {
		dec["content"] = content
	}
	s.say("decision", dec)
	// Started from outside the session's goroutines: counted as its work,
	// which Run waits for, unless Claude has exited.
	if !s.enterWork() {
		return remote.Outcome{Result: "failed", Message: "Claude exited before the form was answered"}
	}
	go func() {
		defer s.work.Done()
		s.driveElicitation(dr)
	}()
	select {
	case o := <-dr.outcome:
		return o
	case <-s.served:
		select {
		case o := <-dr.outcome:
			return o
		default:
			return remote.Outcome{Result: "failed", Message: "Claude exited before it reported the answer"}
		}
	case <-ctx.Done():
		return remote.Outcome{Result: "failed", Message: "no outcome yet: " + ctx.Err().Error()}
	}
}

// newElicitDrive is the drive of answer d on the screen (see screenPlan
// for titles, values and defaults).
func newElicitDrive(server string, d rules.ElicitDecision, titles []string, values []askflow.ElicitValue, defaults map[string]json.RawMessage) *elicitDrive {
	return &elicitDrive{server: server, rule: d.Rule, action: d.Action, content: d.Content, defaults: defaults,
		asked: time.Now(), answered: make(chan struct{}),
		cfg: askflow.ElicitConfig{Server: server, Titles: titles, Action: string(d.Action), Values: values}}
}
