package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
)

// set parses each YAML text as a file named a.yaml, b.yaml, …
func set(t *testing.T, files ...string) *Set {
	t.Helper()
	s := &Set{}
	for i, text := range files {
		f, err := Parse(string(rune('a'+i))+".yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		s.Files = append(s.Files, f)
	}
	return s
}

var (
	database = q("Database", "Which database should we use?", false, "PostgreSQL", "SQLite", "MongoDB")
	features = q("Features", "Which features should we build?", true, "Auth", "Export", "Search", "API")
	naming   = q("Naming", "How should we name things?", false, "camelCase", "snake_case")
)

func TestDecide(t *testing.T) {
	s := set(t, `version: 1
rules:
  - name: db-postgres-only
    when: {header: "^Database$", options: [PostgreSQL, Oracle]}
    answer: {select: PostgreSQL}
  - name: db
    when: {header: "^Database$", question: "(?i)which database"}
    answer: {select: SQLite}
  - name: wrong-question
    when: {header: "^Features$", question: "(?i)which colours"}
    answer: {select: Auth}
  - name: features
    when: {question: "(?i)which features"}
    answer: {select: [Auth, API]}
  - name: named-group
    when: {header: "^(?<h>Naming)$"}
    answer: {type: "snake_case, like the rest of the repo"}
`, `version: 1
rules:
  - name: db-second-file
    when: {header: Database}
    answer: {select: MongoDB}
  - name: by-index
    when: {header: Approach}
    answer: {select: {index: 2}}
  - name: single-label-on-multi
    when: {header: Extras}
    answer: {select: Search}
  - name: anything
    answer: {chat: "Let us talk first."}
`)
	for _, tc := range []struct {
		name       string
		q          answer.Question
		rule, file string
		line       int
		want       answer.Decision
	}{
		{"all when fields must hold, first match wins", database, "db", "a.yaml", 6,
			answer.Decision{Action: answer.Select, Labels: []string{"SQLite"}}},
		{"list on multi-select", features, "features", "a.yaml", 12,
			answer.Decision{Action: answer.Select, Labels: []string{"Auth", "API"}}},
		{"type, with a named group in the regexp", naming, "named-group", "a.yaml", 15,
			answer.Decision{Action: answer.Type, Text: "snake_case, like the rest of the repo"}},
		{"second file when the first has no match", q("Database", "Pick one", false, "PostgreSQL", "MongoDB"),
			"db-second-file", "b.yaml", 3, answer.Decision{Action: answer.Select, Labels: []string{"MongoDB"}}},
		{"index", q("Approach", "How?", false, "Fast", "Careful", "Both"), "by-index", "b.yaml", 6,
			answer.Decision{Action: answer.Select, Labels: []string{"Careful"}}},
		{"one label on a multi-select", q("Extras", "More?", true, "Search", "Tags"), "single-label-on-multi", "b.yaml", 9,
			answer.Decision{Action: answer.Select, Labels: []string{"Search"}}},
		{"no when matches everything", q("Other", "Anything else?", false, "Yes", "No"), "anything", "b.yaml", 12,
			answer.Decision{Action: answer.Chat, Text: "Let us talk first."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := s.Decide(tc.q)
			if !d.Matched() {
				t.Fatalf("unmatched: %s", d.Unmatched)
			}
			if d.Rule != tc.rule || d.File != tc.file || d.Line != tc.line {
				t.Errorf("rule %q at %s:%d, want %q at %s:%d", d.Rule, d.File, d.Line, tc.rule, tc.file, tc.line)
			}
			if d.Action != tc.want.Action || d.Text != tc.want.Text ||
				strings.Join(d.Labels, "|") != strings.Join(tc.want.Labels, "|") {
				t.Errorf("decision %+v, want %+v", d.Decision, tc.want)
			}
		})
	}
}

func TestDecideUnmatched(t *testing.T) {
	s := set(t, `version: 1
rules:
  - name: list-on-single
    when: {header: "^Database$"}
    answer: {select: [SQLite]}
  - name: not-offered
    when: {header: "^Naming$"}
    answer: {select: kebab-case}
  - name: index-4
    when: {header: "^Approach$"}
    answer: {select: {index: 4}}
  - name: type-on-multi
    when: {header: "^Features$"}
    answer: {type: everything}
  - name: later
    answer: {cancel: true}
`)
	for _, tc := range []struct {
		name string
		q    answer.Question
		rule string
		want string
	}{
		{"list on single-select", database, "list-on-single",
			`rule "list-on-single" (a.yaml:3) cannot answer: a list of labels on a single-select question`},
		{"label not offered", naming, "not-offered",
			`rule "not-offered" (a.yaml:6) cannot answer: label "kebab-case" is not offered (offered: ["camelCase" "snake_case"])`},
		{"index out of range", q("Approach", "How?", false, "Fast", "Careful", "Both"), "index-4",
			`rule "index-4" (a.yaml:9) cannot answer: index 4, but 3 options are offered`},
		{"type on multi-select", features, "type-on-multi",
			`rule "type-on-multi" (a.yaml:12) cannot answer: a typed answer on a multi-select question is not supported`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := s.Decide(tc.q)
			if d.Matched() {
				t.Fatalf("matched: %+v", d)
			}
			if d.Unmatched != tc.want {
				t.Errorf("reason %q\nwant   %q", d.Unmatched, tc.want)
			}
			// The rule that matched is named, and the later catch-all is
			// not used in its place: nothing is guessed.
			if d.Rule != tc.rule || d.Action != 0 || d.Labels != nil || d.Decision.String() != "none" {
				t.Errorf("decision %+v", d)
			}
		})
	}
	if d := (&Set{}).Decide(database); d.Matched() || d.Unmatched != "no rule matches" || d.Rule != "" {
		t.Errorf("empty set: %+v", d)
	}
}

func TestDecideChatCancel(t *testing.T) {
	s := set(t, `version: 1
rules:
  - when: {question: "(?i)deploy"}
    answer: {chat: "We never deploy from this session; skip it."}
  - when: {question: "(?i)delete"}
    answer: {cancel: true}
`)
	d := s.Decide(q("Deploy", "Deploy to production now?", false, "Yes", "No"))
	if d.Action != answer.Chat || d.Text != "We never deploy from this session; skip it." || d.Rule != "rule at line 3" {
		t.Errorf("chat: %+v", d)
	}
	if got := d.Decision.String(); got != `chat "We never deploy from this session; skip it."` {
		t.Errorf("summary %s", got)
	}
	d = s.Decide(q("Cleanup", "Delete the old branches?", true, "main", "dev"))
	if d.Action != answer.Cancel || d.Decision.String() != "cancel" {
		t.Errorf("cancel: %+v", d)
	}
}

func TestDefaults(t *testing.T) {
	s := set(t,
		"version: 1\ndefaults: {answer_timeout: 2m}\n",
		"version: 1\ndefaults: {on_unmatched: fail, answer_timeout: 5m, fallback: {cancel: true}}\n",
		"version: 1\ndefaults: {on_unmatched: ask, fallback: {type: later}}\n",
	)
	d := s.Defaults()
	if d.OnUnmatched != Fail || d.AnswerTimeout != 2*time.Minute || d.Fallback == nil || !d.Fallback.Cancel {
		t.Errorf("defaults %+v", d)
	}
	if s.Timeout() != 2*time.Minute {
		t.Errorf("timeout %v", s.Timeout())
	}
	if d := (&Set{}).Defaults(); d.OnUnmatched != "" || d.AnswerTimeout != 0 || d.Fallback != nil {
		t.Errorf("no files: %+v", d)
	}
}

func TestFallback(t *testing.T) {
	if _, err := set(t, "version: 1\n").Fallback(database); err == nil ||
		err.Error() != "no fallback answer in the rules' defaults" {
		t.Errorf("no fallback: %v", err)
	}
	s := set(t, "version: 1\ndefaults:\n  fallback: {type: \"Use your best judgment.\"}\n")
	d, err := s.Fallback(naming)
	if err != nil || d.Action != answer.Type || d.Text != "Use your best judgment." || d.Rule != "fallback" {
		t.Errorf("type fallback: %+v %v", d, err)
	}
	// A typed answer cannot go into a multi-select question.
	if _, err := s.Fallback(features); err == nil || !strings.Contains(err.Error(), "fallback cannot answer: a typed answer on a multi-select") {
		t.Errorf("type fallback on multi-select: %v", err)
	}
	s = set(t, "version: 1\ndefaults:\n  fallback: {cancel: true}\n")
	if d, err := s.Fallback(features); err != nil || d.Action != answer.Cancel {
		t.Errorf("cancel fallback: %+v %v", d, err)
	}
	// The first file's fallback wins.
	s = set(t, "version: 1\ndefaults: {fallback: {chat: first}}\n", "version: 1\ndefaults: {fallback: {chat: second}}\n")
	if d, _ := s.Fallback(features); d.Text != "first" {
		t.Errorf("fallback from %q", d.Text)
	}
}

func TestParseForm(t *testing.T) {
	const one = `{"question":"Which?","header":"H","multiSelect":true,"options":[{"label":"A"},{"label":"B"}]}`
	const qs = `[` + one + `]`
	for _, in := range []string{
		`{"questions":` + qs + `}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"t","tool_input":{"questions":` + qs + `}}`,
	} {
		got, err := ParseForm([]byte(in))
		if err != nil || len(got) != 1 || got[0].Header != "H" || !got[0].MultiSelect || strings.Join(got[0].Labels(), "|") != "A|B" {
			t.Errorf("%s: %+v %v", in, got, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`[]`, "not a form"},
		{`{}`, "no questions"},
		{`{"tool_input":{}}`, "no questions"},
		{`{"questions":` + qs + `,"tool_input":{"questions":` + qs + `}}`, "both"},
		{`{"questions":[{"question":"Q","options":[{"label":"A"}]}]}`, "question 1: want text and 2-4 options"},
		{`{"questions":[` + strings.Repeat(one+",", 4) + one + `]}`, "5 questions"},
	} {
		if _, err := ParseForm([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestDecideNotes(t *testing.T) {
	s := set(t, `version: 1
rules:
  - name: layout
    when: {header: Layout}
    answer: {select: Sidebar, notes: keep it collapsible}
`)
	layout := q("Layout", "Which layout?", false, "Sidebar", "Top bar")
	withPreview := layout
	withPreview.Options = []answer.Option{{Label: "Sidebar", Preview: "| nav | main |"}, {Label: "Top bar"}}
	d := s.Decide(withPreview)
	want := answer.Decision{Action: answer.Select, Labels: []string{"Sidebar"}, Notes: "keep it collapsible"}
	if !d.Matched() || d.Action != want.Action || d.Labels[0] != "Sidebar" || d.Notes != want.Notes {
		t.Errorf("with previews: %+v, want %+v", d, want)
	}
	if got := d.Decision.String(); got != `select "Sidebar", notes "keep it collapsible"` {
		t.Errorf("summary %q", got)
	}
	// Without previews there is nowhere to type notes: unmatched, not guessed.
	if d := s.Decide(layout); d.Matched() || !strings.Contains(d.Unmatched, "previews") {
		t.Errorf("without previews: %+v, want unmatched about previews", d)
	}
	multi := withPreview
	multi.MultiSelect = true
	if d := s.Decide(multi); d.Matched() {
		t.Errorf("multi-select with previews: %+v, want unmatched", d)
	}
}

func TestTypeOnPreviewQuestion(t *testing.T) {
	s := set(t, "version: 1\nrules:\n  - answer: {type: hello}\n")
	qq := q("Layout", "Which layout?", false, "Sidebar", "Top bar")
	qq.Options[0].Preview = "x"
	if d := s.Decide(qq); d.Matched() || !strings.Contains(d.Unmatched, "Type something") {
		t.Errorf("%+v, want unmatched: no Type something row", d)
	}
}
