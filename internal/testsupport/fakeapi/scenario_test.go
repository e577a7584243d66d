package fakeapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadTestdata(t *testing.T) {
	files, err := filepath.Glob("../../../testdata/scenarios/*.yaml")
	if err != nil || len(files) < 3 {
		t.Fatalf("scenarios %v, %v", files, err)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	sc := loadTestdata(t, "three.yaml")
	qs := sc.Rules[0].Reply[0].Input["questions"].([]any)
	if len(qs) != 3 || qs[1].(map[string]any)["multiSelect"] != true {
		t.Errorf("three.yaml questions %v", qs)
	}
}

func TestParseJSON(t *testing.T) {
	sc, err := Parse([]byte(`{"rules": [{"when": {"text_contains": "hi"},
		"reply": [{"type": "tool_use", "name": "Bash", "input": {"command": "ls", "n": [1, 2]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Rules[0].Reply[0].Input["command"] != "ls" {
		t.Errorf("input %v", sc.Rules[0].Reply[0].Input)
	}
}

func TestParseErrors(t *testing.T) {
	const ask = `
rules:
  - when: {text_contains: x}
    reply:
      - type: tool_use
        name: AskUserQuestion
        input:
          questions:
            - question: Q?
              header: %s
              options:
                - {label: A, description: a}
%s`
	tests := []struct {
		name, yaml, want string
	}{
		{"empty", "", "empty scenario"},
		{"unknown top-level key", "rulez: []", "field rulez not found"},
		{"unknown rule key", "rules: [{when: {text_contains: x}, reply: [{type: text, text: y}], then: 1}]", "field then not found"},
		{"unknown match key", "rules: [{when: {text_contain: x}, reply: [{type: text, text: y}]}]", "field text_contain not found"},
		{"unknown block key", "rules: [{when: {text_contains: x}, reply: [{type: text, txt: y}]}]", "field txt not found"},
		{"no condition", "rules: [{name: r, reply: [{type: text, text: y}]}]", "rule 1 (r): when: no condition"},
		{"no reply", "rules: [{when: {text_contains: x}}]", "reply: no blocks"},
		{"no type", "rules: [{when: {text_contains: x}, reply: [{text: y}]}]", "type missing"},
		{"bad type", "rules: [{when: {text_contains: x}, reply: [{type: image}]}]", `type "image"`},
		{"empty text", "default: [{type: text}]", "default: reply block 1: text block with empty text"},
		{"tool_use without name", "rules: [{when: {text_contains: x}, reply: [{type: tool_use}]}]", "without name"},
		{"bad stop reason", "rules: [{when: {text_contains: x}, reply: [{type: text, text: y}], stop_reason: done}]", "stop_reason"},
		{"duplicate ids", `rules:
  - {when: {text_contains: x}, reply: [{type: tool_use, name: Bash, id: t1}]}
  - {when: {text_contains: y}, reply: [{type: tool_use, name: Bash, id: t1}]}`, `id "t1" already used`},
		{"two documents", "title: a\n---\ntitle: b\n", "more than one"},
		{"long header", strings.Replace(ask, "%s", "ThirteenChars", 1), "longer than 12"},
		{"one option", strings.Replace(ask, "%s", "H", 1), "1 options, want 2 to 4"},
		{"no description", strings.Replace(strings.Replace(ask, "%s", "H", 1), "%s", "                - {label: B}", 1), "(B): description missing"},
		{"no questions", "rules: [{when: {text_contains: x}, reply: [{type: tool_use, name: AskUserQuestion, input: {}}]}]", "0 questions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y := strings.Replace(tt.yaml, "\n%s", "", 1)
			_, err := Parse([]byte(y))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestUncheckedRule(t *testing.T) {
	_, err := Parse([]byte("rules: [{when: {text_contains: x}, unchecked: true, reply: [{type: tool_use, name: AskUserQuestion, input: {}}]}]"))
	if err != nil {
		t.Error(err)
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !strings.Contains(err.Error(), "load scenario") {
		t.Errorf("err %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("x: 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/scenarios/*.yaml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"rules":[{"when":{"text_contains":"a"},"reply":[{"type":"text","text":"b"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data)
		if err != nil {
			return
		}
		if _, err := New(sc); err != nil {
			t.Errorf("Parse accepted what New rejects: %v", err)
		}
	})
}

// TestPlaceholder: {{match:REGEX}} in a tool_use input takes the first
// submatch of REGEX in the request's messages; one that does not match stays
// as written; a bad REGEX is refused when the scenario is read.
func TestPlaceholder(t *testing.T) {
	body := &apiRequest{Messages: []apiMessage{
		{Role: "user", Content: json.RawMessage(`"plan the work"`)},
		{Role: "system", Content: json.RawMessage(`[{"type":"text","text":"You should create your plan at /h/.claude/plans/x-y.md using the Write tool."}]`)},
	}}
	blocks := []Block{{Type: "tool_use", Name: "Write", Input: map[string]any{
		"file_path": `{{match:create your plan at (\S+\.md)}}`,
		"nested":    []any{"a {{match:nothing like (this)}} b"},
	}}}
	got := expand(blocks, body)
	if got[0].Input["file_path"] != "/h/.claude/plans/x-y.md" {
		t.Errorf("file_path = %v", got[0].Input["file_path"])
	}
	if got[0].Input["nested"].([]any)[0] != "a {{match:nothing like (this)}} b" {
		t.Errorf("unmatched = %v", got[0].Input["nested"])
	}
	if blocks[0].Input["file_path"] != `{{match:create your plan at (\S+\.md)}}` {
		t.Error("the scenario's own blocks were changed")
	}
	_, err := Parse([]byte("rules:\n  - when: {text_contains: x}\n    reply:\n      - {type: tool_use, name: Write, input: {p: \"{{match:(}}\"}}\n"))
	if err == nil {
		t.Error("a bad regex was accepted")
	}
}
