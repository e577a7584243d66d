package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
)

// errorCases are rule files the loader must reject, each with every error
// it must report, in order, as file:line:col: message. They also seed
// FuzzParse.
var errorCases = []struct {
	name string
	in   string
	want []string
}{
	// Unknown keys, at every level.
	{"unknown top key", "version: 1\nrulez: []\n",
		[]string{`r.yaml:2:1: unknown key "rulez" in the file (want one of defaults, dialogs, elicitations, permissions, rules, version)`}},
	{"unknown defaults key", "version: 1\ndefaults:\n  timeout: 3m\n",
		[]string{`r.yaml:3:3: unknown key "timeout" in defaults (want one of answer_timeout, answer_via, fallback, notify, on_unmatched)`}},
	{"unknown rule key", "version: 1\nrules:\n  - name: a\n    answer: {cancel: true}\n    then: x\n",
		[]string{`r.yaml:5:5: unknown key "then" in a rule (want one of answer, name, when)`}},
	{"unknown when key", "version: 1\nrules:\n  - when: {header: a, label: b}\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:23: unknown key "label" in when (want one of header, options, question)`}},
	{"unknown answer key", "version: 1\nrules:\n  - answer:\n      press: Enter\n",
		[]string{
			`r.yaml:4:7: unknown key "press" in answer (want one of cancel, chat, exec, notes, select, type)`,
		}},
	{"unknown select key", "version: 1\nrules:\n  - answer:\n      select: {position: 2}\n",
		[]string{
			`r.yaml:4:16: unknown key "position" in select (want one of index)`,
		}},
	{"unknown fallback key", "version: 1\ndefaults:\n  fallback: {say: hi}\n",
		[]string{
			`r.yaml:3:14: unknown key "say" in fallback (want one of cancel, chat, select, type)`,
		}},
	// One typo, one error: the key it misspells is not reported missing too.
	{"typo of answer", "version: 1\nrules:\n  - name: db\n    answr: {select: SQLite}\n",
		[]string{`r.yaml:4:5: unknown key "answr" in a rule (want one of answer, name, when)`}},
	{"duplicate rule names", "version: 1\nrules:\n  - name: db\n    answer: {cancel: true}\n  - name: db\n    answer: {cancel: true}\n",
		[]string{`r.yaml:5:5: rule name "db" is used twice (first at line 3)`}},
	{"duplicate permission names", "version: 1\npermissions:\n  - {name: p, when: {tool: Bash}, decide: allow}\n  - {name: p, when: {tool: Edit}, decide: allow}\n",
		[]string{`r.yaml:4:5: permission name "p" is used twice (first at line 3)`}},
	{"typo of decide", "version: 1\npermissions:\n  - {name: p, when: {tool: Bash}, decid: allow}\n",
		[]string{`r.yaml:3:35: unknown key "decid" in a permission (want one of decide, name, when)`}},
	{"non-string key", "version: 1\n[a]: 1\n",
		[]string{`r.yaml:2:1: keys in the file must be names, not a list`}},
	{"merge key", "version: 1\nrules:\n  - <<: {name: a}\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:5: keys in a rule must be names, not a merge key (<<)`}},

	// Wrong types.
	{"version as string", "version: \"1\"\n", []string{`r.yaml:1:10: version must be 1`}},
	{"version 2", "version: 2\nrules: []\n", []string{`r.yaml:1:10: version must be 1`}},
	{"missing version", "rules: []\n", []string{`r.yaml:1:1: missing version: 1`}},
	{"missing version, empty mapping", "{}\n", []string{`r.yaml:1:1: missing version: 1`}},
	{"rules not a list", "version: 1\nrules:\n  name: a\n",
		[]string{`r.yaml:3:3: rules must be a list, not a mapping`}},
	{"rules empty", "version: 1\nrules:\n", []string{`r.yaml:2:7: rules must be a list, not empty`}},
	{"rule not a mapping", "version: 1\nrules:\n  - database\n",
		[]string{`r.yaml:3:5: a rule must be a mapping, not a string`}},
	{"defaults not a mapping", "version: 1\ndefaults: [ask]\n",
		[]string{`r.yaml:2:11: defaults must be a mapping, not a list`}},
	{"header as number", "version: 1\nrules:\n  - when: {header: 42}\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:20: header must be a string, not a number`}},
	{"question as bool", "version: 1\nrules:\n  - when: {question: true}\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:22: question must be a string, not a boolean`}},
	{"name as list", "version: 1\nrules:\n  - name: [a]\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:11: name must be a string, not a list`}},
	{"name with a custom tag", "version: 1\nrules:\n  - name: !label a\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:11: name must be a string, not a value tagged !label`}},
	{"options not a list", "version: 1\nrules:\n  - when: {options: PostgreSQL}\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:21: options must be a list of labels, not a string`}},
	{"option label not a string", "version: 1\nrules:\n  - when: {options: [a, {b: c}]}\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:25: an option label must be a string, not a mapping`}},
	{"when not a mapping", "version: 1\nrules:\n  - when: Database\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:11: when must be a mapping, not a string`}},
	{"select as bool", "version: 1\nrules:\n  - answer: {select: true}\n",
		[]string{`r.yaml:3:22: select: want a label, a list of labels, or {index: N}, not a boolean`}},
	{"select as number", "version: 1\nrules:\n  - answer: {select: 2}\n",
		[]string{`r.yaml:3:22: select: want a label, a list of labels, or {index: N}, not a number`}},
	{"select empty label", "version: 1\nrules:\n  - answer: {select: \"\"}\n",
		[]string{`r.yaml:3:22: select: the label is empty`}},
	{"select empty list", "version: 1\nrules:\n  - answer: {select: []}\n",
		[]string{`r.yaml:3:22: select: the list is empty`}},
	{"select list with a number and a repeat", "version: 1\nrules:\n  - answer: {select: [a, 1, a, \"\"]}\n",
		[]string{
			`r.yaml:3:26: a label in select must be a string, not a number`,
			`r.yaml:3:29: select: "a" named twice`,
			`r.yaml:3:32: select: the label is empty`,
		}},
	{"cancel false", "version: 1\nrules:\n  - answer: {cancel: false}\n",
		[]string{`r.yaml:3:22: cancel must be true`}},
	{"cancel as string", "version: 1\nrules:\n  - answer: {cancel: \"yes\"}\n",
		[]string{`r.yaml:3:22: cancel must be true`}},
	{"index not a number", "version: 1\nrules:\n  - answer: {select: {index: two}}\n",
		[]string{`r.yaml:3:30: index must be a number, not a string`}},
	{"index 0", "version: 1\nrules:\n  - answer: {select: {index: 0}}\n",
		[]string{`r.yaml:3:30: index must be a whole number from 1 to 4`}},
	{"index 5", "version: 1\nrules:\n  - answer: {select: {index: 5}}\n",
		[]string{`r.yaml:3:30: index must be a whole number from 1 to 4`}},
	{"index huge", "version: 1\nrules:\n  - answer: {select: {index: 99999999999999999999}}\n",
		[]string{`r.yaml:3:30: index must be a whole number from 1 to 4`}},
	{"index as float", "version: 1\nrules:\n  - answer: {select: {index: 1.0}}\n",
		[]string{`r.yaml:3:30: index must be a whole number from 1 to 4`}},
	{"type empty", "version: 1\nrules:\n  - answer: {type: \"  \"}\n",
		[]string{`r.yaml:3:20: type: want one line of text, without control characters`}},
	{"type two lines", "version: 1\nrules:\n  - answer:\n      type: |\n        one\n        two\n",
		[]string{`r.yaml:4:13: type: want one line of text, without control characters`}},
	{"type with a tab", "version: 1\nrules:\n  - answer: {type: \"a\\tb\"}\n",
		[]string{`r.yaml:3:20: type: want one line of text, without control characters`}},
	{"chat with Ctrl-C", "version: 1\nrules:\n  - answer: {chat: \"stop\\x03\"}\n",
		[]string{`r.yaml:3:20: chat: control characters are not allowed`}},
	{"chat with Esc", "version: 1\nrules:\n  - answer: {chat: \"\\e[A\"}\n",
		[]string{`r.yaml:3:20: chat: control characters are not allowed`}},
	{"on_unmatched unknown", "version: 1\ndefaults: {on_unmatched: skip}\n",
		[]string{`r.yaml:2:26: on_unmatched: unknown policy "skip" (want passthrough, ask, fallback, wait, cancel or fail)`}},
	{"answer_timeout without unit", "version: 1\ndefaults: {answer_timeout: 180}\n",
		[]string{`r.yaml:2:28: answer_timeout: 180 needs a unit: write 180s (seconds) or 180m (minutes)`}},
	{"answer_timeout a bare number", "version: 1\ndefaults:\n  answer_timeout: 10\n",
		[]string{`r.yaml:3:19: answer_timeout: 10 needs a unit: write 10s (seconds) or 10m (minutes)`}},
	{"answer_timeout a quoted number", "version: 1\ndefaults: {answer_timeout: \"2.5\"}\n",
		[]string{`r.yaml:2:28: answer_timeout: 2.5 needs a unit: write 2.5s (seconds) or 2.5m (minutes)`}},
	{"answer_timeout a list", "version: 1\ndefaults: {answer_timeout: [1]}\n",
		[]string{`r.yaml:2:28: answer_timeout must be a string, not a list`}},
	{"answer_timeout zero", "version: 1\ndefaults: {answer_timeout: 0s}\n",
		[]string{`r.yaml:2:28: answer_timeout: want a positive duration such as 3m, not "0s"`}},
	{"answer_timeout bad", "version: 1\ndefaults: {answer_timeout: 3 minutes}\n",
		[]string{`r.yaml:2:28: answer_timeout: want a positive duration such as 3m, not "3 minutes"`}},

	// Regular expressions are RE2.
	{"backreference", "version: 1\nrules:\n  - when: {header: \"(a)\\\\1\"}\n    answer: {cancel: true}\n",
		[]string{"r.yaml:3:20: header: bad regular expression: error parsing regexp: invalid escape sequence: `\\1`; RE2 (Go's regexp) has no lookaround or backreferences; see https://github.com/google/re2/wiki/Syntax"}},
	{"possessive", "version: 1\nrules:\n  - when: {question: \"a++\"}\n    answer: {cancel: true}\n",
		[]string{"r.yaml:3:22: question: bad regular expression: error parsing regexp: invalid nested repetition operator: `++`; RE2 (Go's regexp) has no possessive quantifiers or atomic groups; see https://github.com/google/re2/wiki/Syntax"}},
	{"lookbehind", "version: 1\nrules:\n  - when:\n      question: \"(?<=a)b\"\n    answer: {cancel: true}\n",
		[]string{"r.yaml:4:17: question: bad regular expression: error parsing regexp: invalid named capture: `(?<=a)b`; RE2 (Go's regexp) has no lookaround or backreferences; see https://github.com/google/re2/wiki/Syntax"}},
	{"unclosed group", "version: 1\nrules:\n  - when: {header: \"(a\"}\n    answer: {cancel: true}\n",
		[]string{"r.yaml:3:20: header: bad regular expression: error parsing regexp: missing closing ): `(a`"}},

	// Actions.
	{"several actions", "version: 1\nrules:\n  - answer:\n      select: SQLite\n      type: sqlite\n",
		[]string{`r.yaml:4:7: answer has several actions (select, type): give exactly one`}},
	{"no action", "version: 1\nrules:\n  - answer: {}\n",
		[]string{`r.yaml:3:13: answer needs one of select, type, chat, cancel, exec`}},
	{"no answer", "version: 1\nrules:\n  - name: a\n    when: {header: a}\n",
		[]string{`r.yaml:3:5: rule has no answer`}},
	{"answer not a mapping", "version: 1\nrules:\n  - answer: SQLite\n",
		[]string{`r.yaml:3:13: answer must be a mapping, not a string`}},
	{"fallback with select", "version: 1\ndefaults:\n  fallback: {select: Yes}\n",
		[]string{`r.yaml:3:13: fallback must be type, chat or cancel: a select cannot fit every question`}},
	{"fallback with several actions", "version: 1\ndefaults:\n  fallback: {cancel: true, chat: hi}\n",
		[]string{`r.yaml:3:13: fallback has several actions (cancel, chat): give exactly one`}},

	// Duplicate keys, at every level.
	{"duplicate top key", "version: 1\nrules: []\nversion: 1\n",
		[]string{`r.yaml:3:1: "version" given twice in the file`}},
	{"duplicate rule key", "version: 1\nrules:\n  - name: a\n    name: b\n    answer: {cancel: true}\n",
		[]string{`r.yaml:4:5: "name" given twice in a rule`}},
	{"duplicate answer key", "version: 1\nrules:\n  - answer: {type: a, type: b}\n",
		[]string{`r.yaml:3:23: "type" given twice in answer`}},
	{"duplicate when key", "version: 1\nrules:\n  - when: {header: a, header: b}\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:23: "header" given twice in when`}},
	{"duplicate index", "version: 1\nrules:\n  - answer: {select: {index: 1, index: 2}}\n",
		[]string{`r.yaml:3:33: "index" given twice in select`}},

	// The file as a whole.
	{"empty file", "", []string{`r.yaml:1:1: empty file: want version: 1 and rules`}},
	{"only comments", "# nothing yet\n", []string{`r.yaml:1:1: empty file: want version: 1 and rules`}},
	{"empty document", "---\n", []string{`r.yaml:1:1: empty file: want version: 1 and rules`}},
	{"not a mapping", "- version: 1\n", []string{`r.yaml:1:1: the file must be a mapping, not a list`}},
	{"two documents", "version: 1\nrules: []\n---\nversion: 1\n",
		[]string{`r.yaml:3:1: only one YAML document is allowed`}},
	{"tab indentation", "version: 1\nrules:\n\t- answer: {cancel: true}\n",
		[]string{`r.yaml:3:1: YAML syntax error: a tab, or a character YAML reserves, where a key or value starts (YAML indents with spaces) (the parser says: found character that cannot start any token); the rest of the file was not checked`}},
	{"unclosed flow", "version: 1\nrules: [\n", []string{`r.yaml:2:1: YAML syntax error: a value is missing here, or a [ … ] or { … } is not closed (the parser says: did not find expected node content); the rest of the file was not checked`}},
	{"a regular expression in double quotes", "version: 1\nrules:\n  - when: {question: \"\\d+\"}\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:22: YAML syntax error: "\d+": in double quotes YAML reads a backslash as an escape, and \d is none: write '\d+' in single quotes, or "\\d+"; the rest of the file was not checked`}},
	{"a bad escape beside a good one", "version: 1\nrules:\n  - when: {header: 'a\"b', question: \"\\t\\.go$\"}  # \"\\d\"\n    answer: {cancel: true}\n",
		[]string{`r.yaml:3:37: YAML syntax error: "\t\.go$": in double quotes YAML reads a backslash as an escape, and \. is none: write it with each such backslash doubled, "\t\\.go$"; the rest of the file was not checked`}},
	{"a bad escape on a string's second line", "version: 1\nrules:\n  - when:\n      question: \"a\n        \\d+\"\n    answer: {cancel: true}\n",
		[]string{`r.yaml:4:17: YAML syntax error: this string: in double quotes YAML reads a backslash as an escape, and \d is none: double each such backslash (\\d); the rest of the file was not checked`}},
	{"mapping in a scalar", "version: 1\nrules:\n  - name: a: b\n", []string{`r.yaml:3:1: YAML syntax error: a ':' where a value was expected: quote the value, or check the indentation (the parser says: mapping values are not allowed in this context); the rest of the file was not checked`}},

	{"notes with type", "version: 1\nrules:\n  - answer: {type: x, notes: y}\n", []string{
		`r.yaml:3:13: notes go with select (on a question whose options have previews), not with type`}},
	{"notes empty", "version: 1\nrules:\n  - answer: {select: x, notes: \"\"}\n", []string{
		`r.yaml:3:32: notes: want one line of text, without control characters or surrounding spaces`}},
	{"notes in the fallback", "version: 1\ndefaults:\n  fallback: {type: x, notes: y}\n", []string{
		`r.yaml:3:23: unknown key "notes" in fallback (want one of cancel, chat, select, type)`}},

	// Every error in a file is reported, not just the first.
	{"all errors", `version: 2
defaults:
  on_unmatched: never
  fallback: {select: a}
rules:
  - name: one
    when: {header: "(", colour: red}
    answer: {select: a, cancel: true}
  - name: two
  - answer: {select: {index: 9}}
extra: true
`, []string{
		`r.yaml:1:10: version must be 1`,
		`r.yaml:3:17: on_unmatched: unknown policy "never" (want passthrough, ask, fallback, wait, cancel or fail)`,
		`r.yaml:4:13: fallback must be type, chat or cancel: a select cannot fit every question`,
		"r.yaml:7:20: header: bad regular expression: error parsing regexp: missing closing ): `(`",
		`r.yaml:7:25: unknown key "colour" in when (want one of header, options, question)`,
		`r.yaml:8:13: answer has several actions (select, cancel): give exactly one`,
		`r.yaml:9:5: rule has no answer`,
		`r.yaml:10:30: index must be a whole number from 1 to 4`,
		`r.yaml:11:1: unknown key "extra" in the file (want one of defaults, dialogs, elicitations, permissions, rules, version)`,
	}},
}

func TestParseErrors(t *testing.T) {
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("r.yaml", []byte(tc.in))
			if err == nil {
				t.Fatalf("no error; loaded %+v", f)
			}
			if f != nil {
				t.Errorf("a file came back with the error")
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T %v, want Errors", err, err)
			}
			got := strings.Split(err.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
			if len(es) != len(tc.want) {
				t.Errorf("%d errors, want %d", len(es), len(tc.want))
			}
		})
	}
}

func TestParseValid(t *testing.T) {
	f, err := Parse("r.yaml", []byte(`# a comment
version: 1
defaults:
  on_unmatched: fallback
  answer_timeout: 1m30s
  fallback: {chat: "Nobody is here.\nCarry on."}
rules:
  - name: db
    when:
      header: "^Database$"
      question: (?i)which
      options: [PostgreSQL, "SQLite"]
    answer: {select: SQLite}
  - when: {}
    answer:
      select: [Auth, API]
  - answer: {select: {index: 0x2}}
  - name: released
    when: {options: [2024-01-01]}
    answer: {select: 2024-01-01}
  - answer: {type: "  snake_case  "}
  - answer: {chat: ""}
  - answer: {cancel: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != "r.yaml" || f.Version != 1 {
		t.Errorf("path %q version %d", f.Path, f.Version)
	}
	d := f.Defaults
	if d.OnUnmatched != Fallback || d.AnswerTimeout != 90*time.Second || d.Fallback == nil ||
		d.Fallback.Chat == nil || *d.Fallback.Chat != "Nobody is here.\nCarry on." {
		t.Errorf("defaults %+v", d)
	}
	if len(f.Rules) != 7 {
		t.Fatalf("%d rules, want 7", len(f.Rules))
	}
	r := f.Rules[0]
	if r.Name != "db" || r.Line != 8 || r.When.Header.String() != "^Database$" ||
		r.When.Question.String() != "(?i)which" || strings.Join(r.When.Options, "|") != "PostgreSQL|SQLite" ||
		r.Answer.Select == nil || r.Answer.Select.List || strings.Join(r.Answer.Select.Labels, "|") != "SQLite" {
		t.Errorf("rule 1: %+v", r)
	}
	if r := f.Rules[1]; r.Name != "rule at line 14" || r.When.Header != nil || r.When.Question != nil ||
		!r.Answer.Select.List || strings.Join(r.Answer.Select.Labels, "|") != "Auth|API" {
		t.Errorf("rule 2: %+v", r)
	}
	if r := f.Rules[2]; r.Answer.Select.Index != 2 {
		t.Errorf("rule 3: %+v", r.Answer.Select)
	}
	if r := f.Rules[3]; r.When.Options[0] != "2024-01-01" || r.Answer.Select.Labels[0] != "2024-01-01" {
		t.Errorf("a date-like label: %+v", r)
	}
	if r := f.Rules[4]; *r.Answer.Type != "  snake_case  " {
		t.Errorf("rule 5: %q", *r.Answer.Type)
	}
	if r := f.Rules[5]; r.Answer.Chat == nil || *r.Answer.Chat != "" {
		t.Errorf("rule 6: %+v", r.Answer)
	}
	if r := f.Rules[6]; !r.Answer.Cancel {
		t.Errorf("rule 7: %+v", r.Answer)
	}
}

func TestParseMinimal(t *testing.T) {
	for _, in := range []string{"version: 1\n", "version: 1\nrules: []\n", "{version: 1, defaults: {}}"} {
		f, err := Parse("r.yaml", []byte(in))
		if err != nil || len(f.Rules) != 0 {
			t.Errorf("%q: %v, %+v", in, err, f)
		}
	}
}

func TestLoadFile(t *testing.T) {
	if _, err := LoadFile("testdata/does-not-exist.yaml"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	// Load keeps going after a bad file and reports every one.
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", "version: 1\nrules:\n  - answer: {cancel: true}\n")
	bad := writeFile(t, dir, "bad.yaml", "version: 2\nrules: x\n")
	s, err := Load(bad, good, dir+"/none.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{bad + ":1:10: version must be 1", bad + ":2:8: rules must be a list, not a string", "none.yaml"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	var es Errors
	if !errors.As(err, &es) || len(es) != 2 {
		t.Errorf("errors.As Errors: %v", es)
	}
	if len(s.Files) != 1 || s.Files[0].Path != good {
		t.Errorf("loaded %+v", s.Files)
	}
}

func TestParsePolicy(t *testing.T) {
	for _, s := range []string{"passthrough", "ask", "fallback", "cancel", "fail"} {
		if p, err := ParsePolicy(s); err != nil || string(p) != s {
			t.Errorf("%s: %v %v", s, p, err)
		}
	}
	for _, s := range []string{"", "Ask", "skip"} {
		if _, err := ParsePolicy(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func q(header, question string, multi bool, labels ...string) answer.Question {
	hq := answer.Question{Header: header, Question: question, MultiSelect: multi}
	for _, l := range labels {
		hq.Options = append(hq.Options, answer.Option{Label: l})
	}
	return hq
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDialogsMore: auto mode's dialog, the API key question and a
// project's MCP servers are answered only by what the file says, in its
// words; a folder's file never names MCP servers that act.
func TestDialogsMore(t *testing.T) {
	f, err := Parse("mine.yaml", []byte("version: 1\ndialogs: {auto_mode: leave, api_key: use, mcp_servers: [demo, docs]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Files: []*File{f}}
	if a, file := s.AutoMode(); a != "leave" || file != "mine.yaml" {
		t.Errorf("auto mode %q %q", a, file)
	}
	if a, _ := s.APIKey(); a != "use" {
		t.Errorf("api key %q", a)
	}
	if s.MCPServer("demo") != "mine.yaml" || s.MCPServer("other") != "" {
		t.Errorf("mcp servers: demo %q, other %q", s.MCPServer("demo"), s.MCPServer("other"))
	}
	f.Source = Folder
	if s.MCPServer("demo") != "" {
		t.Error("a folder's file named an MCP server that acts")
	}
	for _, bad := range []string{"{auto_mode: true}", "{auto_mode: go}", "{api_key: yes}", "{mcp_servers: demo}", "{mcp_servers: [1]}"} {
		if _, err := Parse("x.yaml", []byte("version: 1\ndialogs: "+bad+"\n")); err == nil {
			t.Errorf("dialogs: %s accepted", bad)
		}
	}
	g, _ := Parse(FolderFile, []byte("version: 1\ndialogs: {mcp_servers: [demo]}\n"))
	if ws := g.Warnings(); len(ws) != 1 || !strings.Contains(ws[0].Msg, "never acts in a folder's") {
		t.Errorf("warnings %v", ws)
	}
}
