package stress

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
)

// Scenario is what the fake API plays for the session: the prompt brings
// the first form; each form's tool_result (or, after "Chat about this", the
// chat message) brings the next; the last is answered with text. Cases
// asked together come as tool_use blocks of one reply, and the request
// holding the last one's tool_result brings what follows them.
// A start dialog (Dialog.Start) comes before the prompt and plays no
// part; a session of nothing else answers the prompt with text.
func (s Session) Scenario() (*fakeapi.Scenario, error) {
	sc := &fakeapi.Scenario{Name: "stress " + s.Name}
	when := fakeapi.Match{TextContains: s.Prompt}
	s.Cases = slices.DeleteFunc(slices.Clone(s.Cases), func(c Case) bool { return c.Dialog != nil && c.Dialog.Start != nil })
	if len(s.Cases) == 0 {
		sc.Rules = append(sc.Rules, fakeapi.Rule{Name: "done", When: when,
			Reply: []fakeapi.Block{{Type: "text", Text: "All done for " + s.Name + "."}}})
	}
	for k := 0; k < len(s.Cases); {
		group := s.Cases[k : k+1]
		for k+len(group) < len(s.Cases) && s.Cases[k+len(group)].Together {
			group = s.Cases[k : k+len(group)+1]
		}
		k += len(group)
		if lead := group[0].lead(); lead != nil {
			sc.Rules = append(sc.Rules, fakeapi.Rule{Name: group[0].ID + " lead", When: when,
				Reply: []fakeapi.Block{{Type: "text", Text: "First the groundwork."}, *lead}})
			when = fakeapi.Match{ToolResultFor: lead.ID}
		}
		var blocks []fakeapi.Block
		var ids []string
		for _, c := range group {
			if len(group) > 1 && (c.Chat != "" || c.Cancel) {
				return nil, fmt.Errorf("session %s: %s: a chat or a cancel asked together with another form", s.Name, c.ID)
			}
			block, err := c.toolUse()
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, block)
			ids = append(ids, c.ID)
		}
		sc.Rules = append(sc.Rules, fakeapi.Rule{Name: strings.Join(ids, ruleJoin), When: when, Reply: blocks})
		c := group[len(group)-1]
		if c.Chat != "" {
			// The clarify tool_result ends in text, then the chat message
			// comes as the next turn.
			sc.Rules = append(sc.Rules, fakeapi.Rule{Name: c.ID + " chat",
				When:  fakeapi.Match{ToolResultFor: c.ID},
				Reply: []fakeapi.Block{{Type: "text", Text: "Sure, what would you like to discuss?"}}})
			when = fakeapi.Match{TextContains: c.Chat}
		} else {
			when = fakeapi.Match{ToolResultFor: c.ID}
		}
		if k == len(s.Cases) {
			sc.Rules = append(sc.Rules, fakeapi.Rule{Name: "done", When: when,
				Reply: []fakeapi.Block{{Type: "text", Text: "All done for " + s.Name + "."}}})
		}
	}
	if err := sc.Check(); err != nil {
		return nil, fmt.Errorf("session %s: %w", s.Name, err)
	}
	return sc, nil
}

// ruleJoin joins the ids of cases asked in one reply into its rule's name.
const ruleJoin = "+"

// askedBy reports whether the fake API's note of a reply ("rule 2
// (ID+ID)", see fakeapi.Request.Reply) says it asked case id.
func askedBy(reply, id string) bool {
	i, j := strings.Index(reply, "("), strings.LastIndex(reply, ")")
	if i < 0 || j < i {
		return false
	}
	return slices.Contains(strings.Split(reply[i+1:j], ruleJoin), id)
}

func (c Case) toolUse() (fakeapi.Block, error) {
	if c.Dialog != nil {
		return fakeapi.Block{Type: "tool_use", ID: c.ID, Name: c.Dialog.Tool, Input: c.Dialog.Input}, nil
	}
	raw, err := json.Marshal(map[string]any{"questions": c.Questions})
	if err != nil {
		return fakeapi.Block{}, err
	}
	var input map[string]any
	if err := json.Unmarshal(raw, &input); err != nil {
		return fakeapi.Block{}, err
	}
	return fakeapi.Block{Type: "tool_use", ID: c.ID, Name: "AskUserQuestion", Input: input}, nil
}

// rulesFile is claudewrap's rules format, as far as the harness writes it.
type rulesFile struct {
	Version      int              `yaml:"version"`
	Defaults     ruleDefs         `yaml:"defaults"`
	Rules        []ruleYAML       `yaml:"rules"`
	Permissions  []permissionYAML `yaml:"permissions,omitempty"`
	Elicitations []elicitYAML     `yaml:"elicitations,omitempty"`
	Dialogs      map[string]any   `yaml:"dialogs,omitempty"`
}

type ruleDefs struct {
	OnUnmatched string `yaml:"on_unmatched"`
}

type ruleYAML struct {
	Name   string         `yaml:"name"`
	When   map[string]any `yaml:"when"`
	Answer map[string]any `yaml:"answer"`
}

// Rules is a rules file answering every case of the session: one rule per
// question, matched by its whole text (question texts are unique in a
// session).
func (s Session) Rules() ([]byte, error) {
	f := rulesFile{Version: 1, Defaults: ruleDefs{OnUnmatched: "fail"}}
	for _, c := range s.Cases {
		switch d := c.Dialog; {
		case d != nil && d.Start != nil:
			if d.Start.By == byRule || d.Start.By == byFolder {
				f.Dialogs = map[string]any{startTrust: true}
				if d.Start.Kind == startBypass {
					f.Dialogs = map[string]any{"bypass_permissions": "accept"}
				}
			}
			continue
		case d != nil:
			f.Permissions = append(f.Permissions, d.rules(c.ID)...)
			if d.Elicit != nil {
				f.Elicitations = append(f.Elicitations, d.Elicit.rules(c.ID)...)
			}
			continue
		}
		for i, q := range c.Questions {
			r := ruleYAML{
				Name: fmt.Sprintf("%s q%d", c.ID, i+1),
				When: map[string]any{"question": "^" + regexp.QuoteMeta(q.Question) + "$"},
			}
			a := c.Answers[i]
			switch {
			case c.Cancel && i == c.ActionOn:
				r.Answer = map[string]any{"cancel": true}
			case c.Chat != "" && i == c.ActionOn:
				r.Answer = map[string]any{"chat": c.Chat}
			case a.Type != "":
				r.Answer = map[string]any{"type": a.Type}
			case q.MultiSelect:
				r.Answer = map[string]any{"select": a.Select}
			default:
				r.Answer = map[string]any{"select": a.Select[0]}
			}
			if a.Notes != "" && r.Answer["select"] != nil {
				r.Answer["notes"] = a.Notes
			}
			f.Rules = append(f.Rules, r)
		}
	}
	return yaml.Marshal(f)
}
