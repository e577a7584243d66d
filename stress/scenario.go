package stress

import (
	"encoding/json"
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/claudewrap/claudewrap/fakeapi"
)

// Scenario is what the fake API plays for the session: the prompt brings
// the first form; each form's tool_result (or, after "Chat about this", the
// chat message) brings the next; the last is answered with text.
func (s Session) Scenario() (*fakeapi.Scenario, error) {
	sc := &fakeapi.Scenario{Name: "stress " + s.Name}
	when := fakeapi.Match{TextContains: s.Prompt}
	for k, c := range s.Cases {
		block, err := c.toolUse()
		if err != nil {
			return nil, err
		}
		sc.Rules = append(sc.Rules, fakeapi.Rule{Name: c.ID, When: when, Reply: []fakeapi.Block{block}})
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
		if k == len(s.Cases)-1 {
			sc.Rules = append(sc.Rules, fakeapi.Rule{Name: "done", When: when,
				Reply: []fakeapi.Block{{Type: "text", Text: "All done for " + s.Name + "."}}})
		}
	}
	if err := sc.Check(); err != nil {
		return nil, fmt.Errorf("session %s: %w", s.Name, err)
	}
	return sc, nil
}

func (c Case) toolUse() (fakeapi.Block, error) {
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
	Version  int        `yaml:"version"`
	Defaults ruleDefs   `yaml:"defaults"`
	Rules    []ruleYAML `yaml:"rules"`
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
