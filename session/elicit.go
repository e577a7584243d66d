package session

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// Eliciter decides MCP servers' input forms (elicitations). rules.Set is
// one.
type Eliciter interface {
	Elicit(server, message string, schema json.RawMessage) rules.ElicitDecision
}

// elicitation handles an Elicitation hook: an MCP server asks the person
// for input. A rule's answer is given on the screen (elicitscreen.go): the
// hook replies nothing, Claude draws the form, and askflow fills it in.
// With --answer-via hook, or a value askflow cannot set, the answer goes
// back through the hook, which Claude Code takes instead of drawing the
// form. With no rule the form is drawn: under the wait policy it waits for
// an answer from anywhere (elicitwait.go); otherwise it is the person's on
// their screen, and headless, where nobody can answer it, the run is
// blocked at once rather than left waiting on a form that blinks for ever.
func (s *session) elicitation(m hook.Message) {
	p := m.Payload
	reply := func(out []byte) bool { return m.Reply != nil && m.Reply(out) }
	fields := events.Fields{"server": p.MCPServerName, "message": p.Message, "fields": schemaFields(p.RequestedSchema)}
	if json.Valid(p.RequestedSchema) {
		fields["requested_schema"] = p.RequestedSchema // for rules test --elicitation
	}
	if p.Mode != "" {
		fields["mode"] = p.Mode
	}
	s.say("elicitation", fields)
	n := 0
	s.loop.do(func() {
		s.elicitations++
		n = s.elicitations
	})

	var d rules.ElicitDecision
	switch {
	case p.Mode != "" && p.Mode != "form":
		d.Err = fmt.Errorf("a %s elicitation is not a form rules can answer", p.Mode)
	case s.cfg.Elicits != nil:
		d = s.cfg.Elicits.Elicit(p.MCPServerName, p.Message, p.RequestedSchema)
	}
	dec := events.Fields{"elicitation": p.MCPServerName}
	if d.Rule != "" {
		dec["rule"], dec["file"] = d.Rule, fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	if d.Matched() && s.cfg.DryRun {
		// Decided and said, as a dry run does, but not given: the form is
		// drawn for the person, and headless nobody can answer it.
		dec["action"], dec["dry_run"] = string(d.Action), true
		if d.Action == rules.Accept {
			dec["content"] = d.Content
		}
		s.say("decision", dec)
		reply(nil)
		if s.cfg.Host.Headless {
			s.endDryRun(true)
			return
		}
		s.say("handed_over", events.Fields{"elicitation": p.MCPServerName, "reason": "dry run: it is yours on Claude's screen"})
		return
	}
	if d.Matched() {
		dec["action"], dec["via"] = string(d.Action), "hook"
		if d.Action == rules.Accept {
			dec["content"] = d.Content
		}
		if s.cfg.AnswerVia != AnswerViaHook {
			// The screen's way, when askflow can set every value: decided
			// now, before the hook's reply, so that it can still take the
			// answer otherwise.
			titles, values, defaults, why := screenPlan(p.RequestedSchema, d, s.child.Screen().Snapshot().Cols)
			if why == "" {
				dec["via"] = "screen"
				s.say("decision", dec)
				dr := newElicitDrive(p.MCPServerName, d, titles, values, defaults)
				s.loop.do(func() { s.elicitDrive = dr })
				reply(nil) // Claude draws the form
				s.goWork(func() { s.driveElicitation(dr) })
				return
			}
			dec["note"] = "answered through the hook: " + why
		}
		s.say("decision", dec)
		out := map[string]any{"hookEventName": hook.Elicitation, "action": string(d.Action)}
		if d.Action == rules.Accept {
			out["content"] = d.Content
		}
		b, _ := json.Marshal(map[string]any{"hookSpecificOutput": out})
		if reply(b) {
			s.loop.send(elicitHooked{time.Now()})
			s.say("submitted", events.Fields{"elicitation": p.MCPServerName, "action": string(d.Action), "via": "hook"})
			return
		}
		s.say("error", events.Fields{"elicitation": p.MCPServerName,
			"message": "the rule's answer came too late for Claude's Elicitation hook: the form is drawn"})
	} else {
		why := "no elicitation rule matches"
		if d.Err != nil {
			why = d.Err.Error()
		}
		dec["unmatched"] = why
		s.say("decision", dec)
		reply(nil)
		waits := s.cfg.Policy == rules.Wait || s.cfg.Policy == rules.Ask && s.cfg.Asker != nil
		if waits && !s.cfg.DryRun && d.Err == nil && s.waitElicitation(p, n) {
			return
		}
	}
	if s.cfg.Host.Headless {
		snap := s.child.Screen().Snapshot()
		s.block(fmt.Sprintf("MCP server %q asks for input (%q) and no rule answers it (headless): "+
			"add an elicitations: rule for it", p.MCPServerName, p.Message), &snap)
		return
	}
	s.say("handed_over", events.Fields{"elicitation": p.MCPServerName, "reason": "no rule answers it: it is yours on Claude's screen"})
	asked, _ := elicitFields(p.RequestedSchema)
	s.notifyForm(remote.Form{Since: time.Now().UTC(), Questions: []answer.Question{},
		Elicitation: &remote.Elicitation{Server: p.MCPServerName, Message: p.Message, Fields: asked, Schema: p.RequestedSchema}})
}

// elicitHooked: a rule answered an MCP server's form through its
// Elicitation hook, at (see elicitWatch).
type elicitHooked struct{ at time.Time }

// elicitRecorded: Claude's ElicitationResult came, at (see elicitWatch).
type elicitRecorded struct{ at time.Time }

// elicitationResult reports what an MCP server's form was answered on the
// screen: claudewrap's answer is verified against its rule's, any other
// is the person's.
func (s *session) elicitationResult(p *hook.Payload) {
	s.loop.send(elicitRecorded{time.Now()})
	s.elicitAnswered(p.MCPServerName)
	if s.elicitVerify(p.MCPServerName, p.Action, p.Content) {
		return
	}
	fields := events.Fields{"elicitation": p.MCPServerName, "action": p.Action, "by": "person"}
	if len(p.Content) > 0 && string(p.Content) != "null" {
		fields["content"] = p.Content
	}
	s.say("submitted", fields)
}

// schemaFields lists an elicitation's fields for its event: name, title,
// type, options and whether it is required, in the schema's order of
// names.
func schemaFields(b json.RawMessage) []map[string]any {
	var sc struct {
		Properties map[string]struct {
			Type  string   `json:"type"`
			Title string   `json:"title"`
			Enum  []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(b, &sc) != nil {
		return nil
	}
	required := map[string]bool{}
	for _, r := range sc.Required {
		required[r] = true
	}
	names := make([]string, 0, len(sc.Properties))
	for n := range sc.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []map[string]any{}
	for _, n := range names {
		f := sc.Properties[n]
		e := map[string]any{"name": n, "type": f.Type}
		if f.Title != "" {
			e["title"] = f.Title
		}
		if len(f.Enum) > 0 {
			e["options"] = f.Enum
		}
		if required[n] {
			e["required"] = true
		}
		out = append(out, e)
	}
	return out
}

// elicitWatch is the watchdog for MCP servers' input forms on the screen
// (see watchScreen): headless, a form nobody answers (no hook came, or its
// answer was not taken) blocks the run after the dialog grace, however its
// "Calling…" line blinks. With Claude on the person's screen it is theirs.
type elicitWatch struct {
	grace time.Duration
	seen  time.Time // when the form on the screen showed, or was last let wait; zero: none shows
}

func newElicitWatch(s *session) *elicitWatch {
	w := &elicitWatch{grace: s.cfg.DialogGrace}
	if w.grace <= 0 {
		w.grace = dialogGrace
	}
	return w
}

// step looks at l, the screen at now; done says the run is blocked.
func (w *elicitWatch) step(s *session, l *look, now time.Time) (done bool) {
	if !s.cfg.Host.Headless {
		return false
	}
	e, shown := l.elicit, l.elicitOK
	switch {
	case !shown:
		w.seen = time.Time{} // gone: answered, or cancelled with its tool
		return false
	case w.seen.IsZero():
		w.seen = now
		return false
	case now.Sub(w.seen) < w.grace:
		return false
	}
	var driving, answered, waiting, hooked bool
	seen := w.seen
	s.loop.do(func() {
		driving = s.elicitDrive != nil && s.elicitDrive.running
		answered = s.elicitResult.After(seen)
		waiting = s.elicitWait != nil
		hooked = !s.elicitHook.IsZero() && now.Sub(s.elicitHook) < w.grace+time.Second
	})
	if driving || answered || waiting {
		// askflow is answering it, and says when it cannot; or Claude
		// reported it answered and has not redrawn yet; or it waits for
		// an answer from anywhere, within its own bound (elicitwait.go).
		w.seen = now
		return false
	}
	why := fmt.Sprintf("MCP server %q shows an input form nobody answers (headless)", e.Server)
	if hooked {
		why = fmt.Sprintf("MCP server %q shows its input form although Claude's Elicitation hook answered it", e.Server)
	}
	s.block(why, &l.snap)
	return true
}
