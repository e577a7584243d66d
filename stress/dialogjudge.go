package stress

import (
	"maps"
	"regexp"
	"strings"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
)

// lead is the tool call the fake API makes before c's, or nil.
func (c Case) lead() *fakeapi.Block {
	if c.Dialog == nil {
		return nil
	}
	return c.Dialog.Lead
}

// permissionYAML is one entry of the rules file's permissions.
type permissionYAML struct {
	Name   string         `yaml:"name"`
	When   map[string]any `yaml:"when"`
	Decide any            `yaml:"decide"`
}

// rules are the permission rules for d, asked as tool use id: its decoys
// first (they must not match), then its own, unless it has none (no rule,
// or the permission mode runs the tool without one).
func (d Dialog) rules(id string) []permissionYAML {
	var out []permissionYAML
	for i, w := range d.Decoys {
		when := maps.Clone(w)
		when["tool"] = "^" + d.Tool + "$"
		out = append(out, permissionYAML{Name: id + " decoy " + string(rune('a'+i)), When: when,
			Decide: map[string]any{"deny": "decoy rule matched " + id}})
	}
	if d.Decide == decideNone || d.Decide == decideRuns {
		return out
	}
	when := maps.Clone(d.When)
	if when == nil {
		when = map[string]any{}
	}
	when["tool"] = "^" + d.Tool + "$"
	var decide any
	switch d.Decide {
	case decideDeny:
		decide = map[string]any{"deny": d.Message}
	case decideYes:
		decide = map[string]any{"select": "Yes"}
	case decideNo:
		decide = map[string]any{"select": "No"}
	default:
		decide = d.Decide
	}
	return append(out, permissionYAML{Name: id, When: when, Decide: decide})
}

// resolved is s with the placeholders of its dialogs' inputs, rules and
// files filled in: project is Claude's working folder, outside a folder
// beside it. Regular expressions get the folders quoted.
func (s Session) resolved(project, outside string) Session {
	plain := strings.NewReplacer(projectDir, project, outsideDir, outside)
	quoted := strings.NewReplacer(projectDir, regexp.QuoteMeta(project), outsideDir, regexp.QuoteMeta(outside))
	fill := func(m map[string]any, r *strings.Replacer) map[string]any {
		if m == nil {
			return nil
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			if str, ok := v.(string); ok {
				if k == "command" || k == "input" {
					v = quoted.Replace(str)
				} else {
					v = r.Replace(str)
				}
			}
			out[k] = v
		}
		return out
	}
	out := s
	out.Cases = make([]Case, len(s.Cases))
	copy(out.Cases, s.Cases)
	for k, c := range out.Cases {
		if c.Dialog == nil {
			continue
		}
		d := *c.Dialog
		d.Input = fill(d.Input, plain)
		// In an input, "command" is the command itself, not a pattern.
		if cmd, ok := c.Dialog.Input["command"].(string); ok {
			d.Input["command"] = plain.Replace(cmd)
		}
		d.When = fill(d.When, plain)
		d.Decoys = nil
		for _, w := range c.Dialog.Decoys {
			d.Decoys = append(d.Decoys, fill(w, plain))
		}
		if d.Lead != nil {
			lead := *d.Lead
			lead.Input = fill(lead.Input, plain)
			d.Lead = &lead
		}
		out.Cases[k].Dialog = &d
	}
	if s.Files != nil {
		out.Files = map[string]string{}
		for p, body := range s.Files {
			out.Files[plain.Replace(p)] = body
		}
	}
	return out
}

// refusal tells a tool_result in which Claude was told no: the person's
// No, a hook's or a rule's refusal.
func refusal(content string) bool {
	for _, s := range []string{cancelledText, "denied", "rejected", "hook error", "blocked"} {
		if strings.Contains(content, s) {
			return true
		}
	}
	return false
}

// judgeDialog compares what Claude recorded for dialog case c with its
// rule's decision. res is nil when Claude recorded nothing; ended says the
// run ended by itself (a dialog nobody answers must not keep it alive).
func judgeDialog(c Case, res *fakeapi.ToolResult, ended bool) (Outcome, string) {
	d := c.Dialog
	plan := d.Tool == "ExitPlanMode"
	if res == nil {
		if d.Decide == decideAsk || d.Decide == decideNone {
			if !ended {
				return Failed, "nothing recorded, but the run did not end by itself"
			}
			return Right, ""
		}
		return Failed, "no tool_result reached the API"
	}
	told := refusal(res.Content) || d.Message != "" && strings.Contains(res.Content, d.Message)
	ran := !res.IsError || d.Fallible && !told
	switch d.Decide {
	case decideAsk, decideNone:
		if ran {
			return Wrong, "the tool ran, and no rule allowed it: " + shorten(res.Content, 80)
		}
		return Right, "" // told no, or interrupted as the run ended: nothing ran
	case decideAllow, decideSession, decideYes, decideRuns:
		switch {
		case res.IsError && refusal(res.Content):
			return Wrong, "refused, the rule allowed it: " + shorten(res.Content, 120)
		case !ran:
			return Failed, "the tool failed: " + shorten(res.Content, 120)
		}
		return Right, ""
	case decideDeny, decideNo:
		switch {
		case ran:
			return Wrong, "the tool ran, the rule denied it: " + shorten(res.Content, 120)
		case d.Decide == decideNo || d.Message == "":
			if refusal(res.Content) {
				return Right, ""
			}
		case strings.Contains(res.Content, d.Message):
			return Right, ""
		case plan && d.Lead == nil && refusal(res.Content):
			// "Exit plan mode?" has no place for words: a plain No.
			return Right, ""
		case refusal(res.Content):
			return Failed, "refused without the rule's message: " + shorten(res.Content, 120)
		}
		return Failed, "an error that is no refusal: " + shorten(res.Content, 120)
	}
	return Failed, "unknown decision " + d.Decide
}
