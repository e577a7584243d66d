package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/transcript"
	"github.com/claudewrap/claudewrap/rules"
)

// decideTool decides a tool's PreToolUse by the deny rules (Config.Gate):
// Claude runs that hook in every permission mode, before any dialog and
// whether or not it would ask, so a deny or fail rule holds where a
// PermissionRequest never comes (auto mode, accept edits, bypass, the
// person's allow-lists). The first permission rule that matches decides, as
// for a PermissionRequest; one that allows or asks leaves the call to
// Claude's own permissions. The message is answered before anything else:
// a deny holds in every session of the Claude this run started, and in its
// subagents. A denied call of this session's is checked in Claude's
// transcript (permcheck.go); a subagent's is in a transcript of its own,
// and is not.
func (s *session) decideTool(m hook.Message) {
	p := m.Payload
	var d rules.PermissionDecision
	if s.cfg.Permits != nil {
		d = s.cfg.Permits.Permit(rules.Call{Tool: p.ToolName, Input: p.Input, Cwd: p.Cwd})
	}
	var reason string
	switch d.Action {
	case rules.Deny:
		reason = d.Message
	case rules.FailRun:
		reason = "claudewrap ends this run here (rule " + d.Rule + ")"
	}
	reply := m.Reply
	if reply == nil {
		reply = func([]byte) bool { return false }
	}
	if p.ToolName == exitPlanMode {
		// Plan approval is a dialog Claude shows in every mode: there a
		// deny becomes the person's feedback, or "No" (permission).
		reason = ""
	}
	if reason == "" {
		reply(nil)
		s.passed(p)
	} else {
		reply(hook.DenyOutput(reason))
	}
	// Another session's call (Claude's sessions view) is decided all the
	// same, but neither counted nor reported as this run's.
	if !s.mine(p) || !s.ours(p) {
		return
	}
	s.started()
	s.noteMode(p.PermissionMode)
	if reason == "" {
		return
	}
	fields := events.Fields{"tool": p.ToolName, "input": p.Input, "rule": d.Rule, "file": fmt.Sprintf("%s:%d", d.File, d.Line),
		"decide": d.Verdict.String(), "via": "hook", "hook": hook.PreToolUse, "permission_mode": p.PermissionMode}
	if d.Met != "" {
		fields["met"] = d.Met
	}
	if p.ToolUseID != "" {
		fields["tool_use_id"] = p.ToolUseID
	}
	if p.AgentID != "" {
		fields["agent_id"] = p.AgentID
	}
	s.say("decision", fields)
	if p.AgentID == "" {
		s.expect(permCheck{tool: p.ToolName, input: p.Input, id: p.ToolUseID, rule: d.Rule, want: refused, text: reason})
	}
	if d.Action == rules.FailRun {
		// A command of Claude's could send this PreToolUse: the run ends
		// only for a call Claude's transcript shows it made.
		path := s.stopPath(p)
		s.goWork(func() {
			if !transcript.AwaitUse(s.ctx, path, p.ToolUseID, stopWait) {
				s.say("error", events.Fields{"tool_use_id": p.ToolUseID, "rule": d.Rule,
					"message": "a " + p.ToolName + " call Claude's transcript does not show: not Claude's, its fail rule ignored (the call was denied)"})
				return
			}
			s.block(fmt.Sprintf("permission rule %q (%s:%d) ends the run at %s", d.Rule, d.File, d.Line, p.ToolName), nil)
		})
	}
}

// started notes that a hook message of this Claude's session came.
func (s *session) started() {
	s.hooked.Store(true)
}

// quietModes are Claude's permission modes in which it runs tools without
// asking, and what each means for the rules.
var quietModes = map[string]string{
	"auto":              "auto mode runs what Claude judges safe without asking",
	"acceptEdits":       "accept-edits mode makes file edits and some commands without asking",
	"bypassPermissions": "bypass mode runs every tool without asking",
	"dontAsk":           "don't-ask mode refuses whatever is not allowed beforehand, without asking",
}

// noteMode says, once for each mode Claude reports, when that mode means
// Claude will not ask: the rules' allow, ask and select decisions then act only on
// what it still asks; deny decisions hold all the same (decideTool).
func (s *session) noteMode(mode string) {
	what, quiet := quietModes[mode]
	if !quiet || !s.cfg.AnswersDialogs {
		return
	}
	h := &s.reader
	if h.modes[mode] {
		return
	}
	if h.modes == nil {
		h.modes = map[string]bool{}
	}
	h.modes[mode] = true
	note := "Claude is in " + mode + " permission mode: " + what + ", so the rules' allow, ask and select decisions act only on what it still asks"
	if s.cfg.Gate {
		note += "; their deny decisions hold for every tool call"
	}
	s.say("permission_mode", events.Fields{"permission_mode": mode, "note": note})
}

// maxGated bounds the tool calls the gate let through whose PostToolUse has
// not come: a call that never ends (Claude killed it) must not pile up.
const maxGated = 256

// passed remembers what the gate let a tool call run with, for its
// PostToolUse (toolRan).
func (s *session) passed(p *hook.Payload) {
	if p.ToolUseID == "" {
		return
	}
	h := &s.reader
	if h.gated == nil {
		h.gated = map[string]json.RawMessage{}
	}
	if len(h.gated) >= maxGated {
		clear(h.gated)
	}
	h.gated[p.ToolUseID] = p.Input
}

// toolRan checks a tool call's PostToolUse (under the gate, every tool's)
// against what the gate let through. A call the gate never saw ran
// without it: Claude's hooks are not all running, and the run stops
// Claude. A call that ran with other input than the gate checked had it
// changed by another hook (its updatedInput): it is reported, and Claude
// is stopped when the deny rules refuse what ran.
func (s *session) toolRan(p *hook.Payload) {
	if !s.mine(p) || !s.ours(p) {
		return
	}
	checked, seen := s.reader.gated[p.ToolUseID]
	delete(s.reader.gated, p.ToolUseID)
	fields := events.Fields{"tool": p.ToolName, "tool_use_id": p.ToolUseID, "input": p.Input}
	switch {
	case !seen:
		if s.refusedBy(p) == "" && s.cfg.Permits == nil {
			return
		}
		fields["message"] = fmt.Sprintf("%s ran without passing claudewrap's gate: its PreToolUse hook did not reach claudewrap, so the rules could not refuse it", p.ToolName)
		s.say("error", fields)
		s.block(fmt.Sprintf("a %s call ran that claudewrap's gate never saw: Claude's hooks are not all running, so the deny rules cannot hold", p.ToolName), nil)
	case !sameValue(checked, p.Input):
		fields["checked"] = checked
		fields["message"] = fmt.Sprintf("%s ran with input other than the input claudewrap's gate checked: another PreToolUse hook changed it (updatedInput)", p.ToolName)
		s.say("error", fields)
		if rule := s.refusedBy(p); rule != "" {
			s.block(fmt.Sprintf("a %s call ran with input another hook changed, which permission rule %q refuses", p.ToolName, rule), nil)
		}
	}
}

// refusedBy is the deny or fail rule that refuses p's tool and input, ""
// for none.
func (s *session) refusedBy(p *hook.Payload) string {
	if s.cfg.Permits == nil {
		return ""
	}
	d := s.cfg.Permits.Permit(rules.Call{Tool: p.ToolName, Input: p.Input, Cwd: p.Cwd})
	if d.Action == rules.Deny || d.Action == rules.FailRun {
		return d.Rule
	}
	return ""
}

// sameValue reports whether two tool inputs are the same JSON value.
func sameValue(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
