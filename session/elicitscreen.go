package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// elicitDrive is an MCP server's form claudewrap answers on the screen:
// the rule's answer, kept to check what Claude's ElicitationResult hook
// reports against it.
type elicitDrive struct {
	server  string
	rule    string
	action  rules.ElicitAction
	content map[string]any
	// defaults are the schema's default values: Claude sends a field's
	// default with the answer though the rule did not set it.
	defaults map[string]json.RawMessage
	cfg      askflow.ElicitConfig
	asked    time.Time // when the Elicitation hook came
	// handed says the form is the person's now (they typed, or the screen
	// did not confirm a step): what Claude reports is their answer.
	handed bool
	// running says askflow is at it: the watchdog leaves the form alone.
	running bool
	// answered is closed when Claude's ElicitationResult hook comes.
	answered chan struct{}
	// from names the sender of an answer from elsewhere ("" for a
	// rule's), and outcome tells them what came of it.
	from    string
	outcome chan remote.Outcome
}

// tell gives an answer from elsewhere its outcome, once.
func (dr *elicitDrive) tell(o remote.Outcome) {
	if dr.outcome == nil {
		return
	}
	select {
	case dr.outcome <- o:
	default:
	}
}

// by names who gave the drive's answer, for messages.
func (dr *elicitDrive) by() string {
	if dr.from != "" {
		return "the answer from elsewhere (" + dr.from + ")"
	}
	return fmt.Sprintf("rule %q", dr.rule)
}

// screenPlan turns a rule's answer into what askflow sets on the screen:
// every field's title in the order Claude draws them, and the values. why
// says what the screen driver cannot set (the answer then goes through the
// hook); cols is the screen's width, which a typed value must fit.
func screenPlan(schema json.RawMessage, d rules.ElicitDecision, cols int) (titles []string, values []askflow.ElicitValue, defaults map[string]json.RawMessage, why string) {
	fields, err := rules.FormFields(schema)
	if err != nil {
		return nil, nil, nil, err.Error()
	}
	defaults = map[string]json.RawMessage{}
	for _, f := range fields {
		if slices.Contains(titles, f.Title) || !printable(f.Title) {
			return nil, nil, nil, fmt.Sprintf("the field title %q cannot be told apart on the screen", f.Title)
		}
		titles = append(titles, f.Title)
		if len(f.Default) > 0 {
			defaults[f.Name] = f.Default
		}
	}
	if d.Action != rules.Accept {
		return titles, nil, defaults, ""
	}
	for _, f := range fields {
		v, ok := d.Content[f.Name]
		if !ok {
			continue
		}
		ev, why := screenValue(f, v, cols)
		if why != "" {
			return nil, nil, nil, fmt.Sprintf("field %s: %s", f.Name, why)
		}
		values = append(values, ev)
	}
	return titles, values, defaults, ""
}

// screenValue is one field's value as askflow sets it, or why it cannot.
func screenValue(f rules.FormField, v any, cols int) (askflow.ElicitValue, string) {
	ev := askflow.ElicitValue{Title: f.Title}
	if f.Titled {
		return ev, "its options are given with titles (oneOf/anyOf), which the screen driver does not read"
	}
	label := func(value string) (string, bool) {
		i := slices.Index(f.Values, value)
		if i < 0 || !printable(f.Labels[i]) || slices.Index(f.Labels, f.Labels[i]) != i {
			return "", false
		}
		return f.Labels[i], true
	}
	switch x := v.(type) {
	case bool:
		ev.Kind, ev.Bool = askflow.ElicitBool, x
		return ev, ""
	case []string:
		if len(x) == 0 {
			return ev, "an empty multi-select is left unset on the screen"
		}
		ev.Kind = askflow.ElicitMulti
		for _, o := range x {
			l, ok := label(o)
			if !ok {
				return ev, fmt.Sprintf("its option %q cannot be told apart on the screen", o)
			}
			ev.List = append(ev.List, l)
		}
		return ev, ""
	case string:
		if len(f.Values) > 0 {
			l, ok := label(x)
			if !ok {
				return ev, fmt.Sprintf("its option %q cannot be told apart on the screen", x)
			}
			ev.Kind, ev.Text = askflow.ElicitEnum, l
			return ev, ""
		}
		if f.Format != "" {
			return ev, fmt.Sprintf("a %s field, which the screen driver does not type", f.Format)
		}
		ev.Kind, ev.Text = askflow.ElicitText, x
	case float64:
		ev.Kind, ev.Text = askflow.ElicitText, strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		ev.Kind, ev.Text = askflow.ElicitText, strconv.FormatInt(x, 10)
	default:
		return ev, fmt.Sprintf("a %T value, which the screen driver does not set", v)
	}
	switch {
	case len(f.Default) > 0:
		return ev, "the form shows its default, which the screen driver does not clear"
	case ev.Text == "" || strings.TrimSpace(ev.Text) != ev.Text || !printable(ev.Text):
		return ev, "its text is not one the screen shows as typed (empty, spaces at an end, or characters other than plain ones)"
	case 8+len([]rune(f.Title))+2+len([]rune(ev.Text)) >= cols:
		return ev, "its text is too long for one row of the screen"
	}
	return ev, ""
}

// printable reports whether s is one line of narrow, printable characters
// that the screen shows as written.
func printable(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || r >= 0x1100 || unicode.Is(unicode.Mn, r) {
			return false
		}
	}
	return true
}

// driveElicitation answers the form on the screen. The person's key at
// any moment makes it theirs; when the screen does not confirm a step,
// nothing more is pressed: headless the run is blocked, on the person's
// terminal the form is theirs.
func (s *session) driveElicitation(dr *elicitDrive) {
	parent := s.ctx
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	// On the loop, which hands over between two events (see handOver): a
	// key of theirs from now on cancels this drive (see lease), and one
	// since the form was asked is seen here.
	typed := false
	s.loop.do(func() {
		if typed = s.lastInput.After(dr.asked); typed {
			dr.handed = true
		} else {
			s.elicitCancel, dr.running = cancel, true
		}
	})
	if typed {
		s.say("handed_over", events.Fields{"elicitation": dr.server, "reason": "the person typed", "keys": 0})
		dr.tell(remote.Outcome{Result: "taken", Message: "the person at Claude's screen has started answering it"})
		return
	}
	cfg := dr.cfg
	cfg.Screen, cfg.Keys, cfg.Answered = s.child.Screen(), s.lease(ctx), dr.answered
	cfg.FormTimeout, cfg.StepTimeout, cfg.Retries = s.cfg.Flow.FormTimeout, s.cfg.Flow.StepTimeout, s.cfg.Flow.Retries
	cfg.OnKey = func(k askflow.KeyEvent) {
		s.keySeen(k.Seen)
		s.say("key", events.Fields{"elicitation": dr.server, "key": k.Key, "before": k.Before, "after": k.After})
	}
	keys, err := askflow.Elicit(ctx, cfg)
	s.loop.do(func() {
		s.elicitCancel, dr.running = nil, false
		if err != nil {
			dr.handed = true
		}
	})
	switch {
	case err == nil:
		s.say("submitted", events.Fields{"elicitation": dr.server, "action": string(dr.action), "via": "screen", "keys": keys})
		return
	case errors.Is(err, askflow.ErrInterrupted) && parent.Err() == nil:
		s.say("handed_over", events.Fields{"elicitation": dr.server, "reason": "the person typed", "keys": keys})
		dr.tell(remote.Outcome{Result: "taken", Message: "the person at Claude's screen took the form over"})
		return
	case parent.Err() != nil:
		return
	}
	fields := events.Fields{"elicitation": dr.server, "message": "MCP form: " + err.Error(), "keys": keys}
	var ae *askflow.Error
	if errors.As(err, &ae) {
		fields["message"], fields["step"], fields["screen"] = "MCP form: "+ae.Step+": "+ae.Reason, ae.Step, ae.Last.Text()
	}
	s.say("error", fields)
	dr.tell(remote.Outcome{Result: "failed", Message: fmt.Sprint(fields["message"])})
	if s.cfg.Host.Headless {
		snap := s.child.Screen().Snapshot()
		s.block(fmt.Sprintf("MCP server %q's input form: the screen did not confirm a step (%v), and nobody can answer it (headless)",
			dr.server, fields["message"]), &snap)
		return
	}
	s.say("handed_over", events.Fields{"elicitation": dr.server, "reason": "the screen did not confirm a step: it is yours on Claude's screen", "keys": keys})
}

// elicitVerify holds what Claude's ElicitationResult hook reports against
// the answer claudewrap gave on the screen; it reports false when the
// result is not of claudewrap's answer (the person's, or no drive).
func (s *session) elicitVerify(server, action string, content json.RawMessage) bool {
	var dr *elicitDrive
	handed := false
	s.loop.do(func() {
		if dr = s.elicitDrive; dr == nil || dr.server != server {
			dr = nil
			return
		}
		s.elicitDrive, handed = nil, dr.handed
	})
	if dr == nil {
		return false
	}
	close(dr.answered)
	elicited, _ := json.Marshal(map[string]any{"action": action, "content": json.RawMessage(orNull(content))})
	if handed {
		dr.tell(remote.Outcome{Result: "taken", Message: "the person at Claude's screen answered it", Elicited: elicited})
		return false
	}
	fields := events.Fields{"elicitation": server, "action": action, "rule": dr.rule, "by": "claudewrap", "via": "screen"}
	if dr.from != "" {
		fields["from"] = dr.from
	}
	if len(content) > 0 && string(content) != "null" {
		fields["content"] = content
	}
	if action == string(dr.action) && (dr.action != rules.Accept || sameContent(dr.content, content, dr.defaults)) {
		s.say("verified", fields)
		dr.tell(remote.Outcome{Result: "verified", Elicited: elicited})
		return true
	}
	want := map[string]any{"action": string(dr.action)}
	if dr.action == rules.Accept {
		want["content"] = dr.content
	}
	got := map[string]any{"action": action}
	if fields["content"] != nil {
		got["content"] = content
	}
	why := fmt.Sprintf("MCP server %q: Claude reports the form answered %s, not as %s answered it", server, action, dr.by())
	s.because(ExitMismatch, why)
	s.say("mismatch", events.Fields{"elicitation": server, "rule": dr.rule, "want": want, "got": got})
	dr.tell(remote.Outcome{Result: "mismatch", Message: why, Elicited: elicited})
	return true
}

// orNull is b, or JSON's null when it is empty.
func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// sameContent reports whether the content Claude reports holds the rule's
// values, and besides them only the schema's defaults. Lists are compared
// as sets: a multi-select reports its options in the form's order.
func sameContent(want map[string]any, got json.RawMessage, defaults map[string]json.RawMessage) bool {
	var g map[string]any
	if json.Unmarshal(got, &g) != nil {
		return false
	}
	norm := func(v any) any {
		b, _ := json.Marshal(v)
		var out any
		_ = json.Unmarshal(b, &out)
		if l, ok := out.([]any); ok {
			slices.SortFunc(l, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		}
		return out
	}
	for k, v := range want {
		gv, ok := g[k]
		if !ok || !reflect.DeepEqual(norm(v), norm(gv)) {
			return false
		}
	}
	for k, gv := range g {
		if _, ok := want[k]; ok {
			continue
		}
		d, ok := defaults[k]
		if !ok {
			return false
		}
		var dv any
		if json.Unmarshal(d, &dv) != nil || !reflect.DeepEqual(norm(dv), norm(gv)) {
			return false
		}
	}
	return true
}
