package fakeapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// DefaultTitle is the session title given when a [Scenario] names none.
const DefaultTitle = "Test session"

// Scenario is what the fake API answers. Rules are tried in order and the first
// that matches the latest user message wins; requests no rule matches get
// Default, and side requests (no tools) get Title or a short text.
//
// A Scenario built in Go is checked by [New] and [Start]; one read by [Load] or
// [Parse] is checked there.
type Scenario struct {
	// Name is free text for logs.
	Name string `yaml:"name" json:"name,omitempty"`
	// Rules are tried in order against every main request (one with tools).
	Rules []Rule `yaml:"rules" json:"rules,omitempty"`
	// Default is the reply when no rule matches; empty means a text "ok".
	Default []Block `yaml:"default" json:"default,omitempty"`
	// Title is the answer to session-title requests; empty means [DefaultTitle].
	Title string `yaml:"title" json:"title,omitempty"`
}

// Rule is one "when this, reply that".
type Rule struct {
	// Name is free text, shown in the request log.
	Name string `yaml:"name" json:"name,omitempty"`
	// When says which requests the rule answers.
	When Match `yaml:"when" json:"when"`
	// Reply is the content of the assistant message, in order.
	Reply []Block `yaml:"reply" json:"reply"`
	// StopReason overrides the stop reason, which is "tool_use" when Reply
	// has a tool_use block and "end_turn" otherwise.
	StopReason string `yaml:"stop_reason" json:"stop_reason,omitempty"`
	// Unchecked skips the checks on AskUserQuestion input, for scenarios that
	// send Claude Code an invalid form on purpose.
	Unchecked bool `yaml:"unchecked" json:"unchecked,omitempty"`
}

// Match looks at the last message of a request. Every field that is set must
// hold; at least one must be set.
type Match struct {
	// TextContains matches when the text blocks of the last message (joined
	// with newlines, <system-reminder> blocks included) contain it.
	TextContains string `yaml:"text_contains" json:"text_contains,omitempty"`
	// ToolResultFor matches when the last message has a tool_result for this
	// tool_use id.
	ToolResultFor string `yaml:"tool_result_for" json:"tool_result_for,omitempty"`
	// ToolResultContains matches when a tool_result in the last message has
	// content containing it.
	ToolResultContains string `yaml:"tool_result_contains" json:"tool_result_contains,omitempty"`
	// IsError, when set, matches only a tool_result whose is_error equals it.
	IsError *bool `yaml:"is_error" json:"is_error,omitempty"`
}

// Block is one content block of a reply: Type "text" with Text, or Type
// "tool_use" with Name, Input and an optional ID (generated as toolu_01… from
// a counter when empty).
type Block struct {
	Type  string         `yaml:"type" json:"type"`
	Text  string         `yaml:"text" json:"text,omitempty"`
	ID    string         `yaml:"id" json:"id,omitempty"`
	Name  string         `yaml:"name" json:"name,omitempty"`
	Input map[string]any `yaml:"input" json:"input,omitempty"`
}

// Load reads a scenario from a YAML or JSON file (JSON is YAML) and checks it.
// Unknown keys are errors.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	sc, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load scenario %s: %w", path, err)
	}
	return sc, nil
}

// Parse decodes a scenario from YAML or JSON and checks it. Unknown keys are
// errors.
func Parse(data []byte) (*Scenario, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty scenario")
		}
		return nil, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document")
	}
	if err := sc.Check(); err != nil {
		return nil, err
	}
	return &sc, nil
}

// Check reports the first problem with the scenario: a rule with no
// condition or no reply, an unknown block type, a tool_use without a name, an
// input that cannot be JSON, duplicate tool_use ids, or an AskUserQuestion
// input that Claude Code would reject.
func (sc *Scenario) Check() error {
	ids := map[string]string{}
	for i, r := range sc.Rules {
		where := fmt.Sprintf("rule %d", i+1)
		if r.Name != "" {
			where += fmt.Sprintf(" (%s)", r.Name)
		}
		if r.When == (Match{}) {
			return fmt.Errorf("%s: when: no condition set", where)
		}
		if len(r.Reply) == 0 {
			return fmt.Errorf("%s: reply: no blocks", where)
		}
		switch r.StopReason {
		case "", "end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal":
		default:
			return fmt.Errorf("%s: stop_reason %q: unknown", where, r.StopReason)
		}
		if err := checkBlocks(r.Reply, !r.Unchecked, ids, where); err != nil {
			return err
		}
	}
	return checkBlocks(sc.Default, true, ids, "default")
}

func checkBlocks(blocks []Block, strict bool, ids map[string]string, where string) error {
	for j, b := range blocks {
		at := fmt.Sprintf("%s: reply block %d", where, j+1)
		switch b.Type {
		case "text":
			if b.Text == "" {
				return fmt.Errorf("%s: text block with empty text", at)
			}
			if b.ID != "" || b.Name != "" || b.Input != nil {
				return fmt.Errorf("%s: text block with id, name or input", at)
			}
		case "tool_use":
			if b.Name == "" {
				return fmt.Errorf("%s: tool_use block without name", at)
			}
			if b.Text != "" {
				return fmt.Errorf("%s: tool_use block with text", at)
			}
			if _, err := json.Marshal(b.Input); err != nil {
				return fmt.Errorf("%s: input: %w", at, err)
			}
			var bad error
			walkStrings(b.Input, func(s string) string {
				for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
					if _, err := regexp.Compile(m[1]); err != nil && bad == nil {
						bad = fmt.Errorf("%s: input: %s: %w", at, m[0], err)
					}
				}
				return s
			})
			if bad != nil {
				return bad
			}
			if b.ID != "" {
				if prev, ok := ids[b.ID]; ok {
					return fmt.Errorf("%s: tool_use id %q already used in %s", at, b.ID, prev)
				}
				ids[b.ID] = at
			}
			if strict && b.Name == "AskUserQuestion" {
				if err := checkQuestions(b.Input); err != nil {
					return fmt.Errorf("%s: AskUserQuestion: %w", at, err)
				}
			}
		case "":
			return fmt.Errorf("%s: type missing (text or tool_use)", at)
		default:
			return fmt.Errorf("%s: type %q: want text or tool_use", at, b.Type)
		}
	}
	return nil
}

// checkQuestions applies the AskUserQuestion input schema of Claude Code's
// sdk-tools.d.ts: 1-4 questions, header at most 12 characters, 2-4 options,
// each with a label and a description.
func checkQuestions(input map[string]any) error {
	// Round-trip through JSON so YAML and Go inputs look the same.
	raw, err := json.Marshal(input)
	if err != nil {
		return err
	}
	var in struct {
		Questions []struct {
			Question    string `json:"question"`
			Header      string `json:"header"`
			MultiSelect *bool  `json:"multiSelect"`
			Options     []struct {
				Label       string  `json:"label"`
				Description *string `json:"description"`
			} `json:"options"`
		} `json:"questions"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return err
	}
	if n := len(in.Questions); n < 1 || n > 4 {
		return fmt.Errorf("%d questions, want 1 to 4", n)
	}
	for i, q := range in.Questions {
		switch {
		case strings.TrimSpace(q.Question) == "":
			return fmt.Errorf("question %d: empty question", i+1)
		case q.Header == "":
			return fmt.Errorf("question %d: empty header", i+1)
		case utf8.RuneCountInString(q.Header) > 12:
			return fmt.Errorf("question %d: header %q longer than 12 characters", i+1, q.Header)
		case len(q.Options) < 2 || len(q.Options) > 4:
			return fmt.Errorf("question %d: %d options, want 2 to 4", i+1, len(q.Options))
		}
		for j, o := range q.Options {
			if o.Label == "" {
				return fmt.Errorf("question %d option %d: empty label", i+1, j+1)
			}
			if o.Description == nil {
				return fmt.Errorf("question %d option %d (%s): description missing", i+1, j+1, o.Label)
			}
		}
	}
	return nil
}

// matches reports whether the rule answers a request whose last message is
// last.
func (m Match) matches(last userMessage) bool {
	if m.TextContains != "" && !strings.Contains(last.Text, m.TextContains) {
		return false
	}
	if m.ToolResultFor == "" && m.ToolResultContains == "" && m.IsError == nil {
		return true
	}
	for _, tr := range last.ToolResults {
		if m.ToolResultFor != "" && tr.ToolUseID != m.ToolResultFor {
			continue
		}
		if m.ToolResultContains != "" && !strings.Contains(tr.Content, m.ToolResultContains) {
			continue
		}
		if m.IsError != nil && tr.IsError != *m.IsError {
			continue
		}
		return true
	}
	return false
}
