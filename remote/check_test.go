package remote

import (
	"fmt"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/answer"
)

// TestCheck: an answer from elsewhere is held to the form (one answer per
// question, each one it can take, a chat or cancel for the whole form) and
// to what the screen can show as typed.
func TestCheck(t *testing.T) {
	db := answer.Question{Question: "Which database?", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}
	feats := answer.Question{Question: "Which features?", MultiSelect: true, Options: []answer.Option{{Label: "Auth"}, {Label: "API"}}}
	qs := []answer.Question{db, feats}
	sel := func(l ...string) answer.Decision { return answer.Decision{Action: answer.Select, Labels: l} }
	chat := answer.Decision{Action: answer.Chat, Text: "let us talk"}
	for _, tc := range []struct {
		name string
		ds   []answer.Decision
		want string // a piece of the error; "" for none
	}{
		{"good", []answer.Decision{sel("SQLite"), sel("API", "Auth")}, ""},
		{"typed", []answer.Decision{{Action: answer.Type, Text: "Postgres 🐘"}, sel("API")}, ""},
		{"chat for the whole form", []answer.Decision{chat, chat}, ""},
		{"cancel for the whole form", answer.WholeForm(answer.Decision{Action: answer.Cancel}, 2), ""},
		{"too few", []answer.Decision{sel("SQLite")}, "the form asks 2 questions; 1 answer given"},
		{"not offered", []answer.Decision{sel("Oracle"), sel("API")}, `question 1 ("Which database?"): label "Oracle" is not offered`},
		{"a skin tone", []answer.Decision{{Action: answer.Type, Text: "ok 👍🏽"}, sel("API")}, `question 1 ("Which database?"): "ok 👍🏽" holds a skin tone`},
		{"invalid UTF-8", []answer.Decision{{Action: answer.Type, Text: "ok \xff"}, sel("API")}, "not valid UTF-8"},
		{"chat for one question", []answer.Decision{sel("SQLite"), chat}, "question 2: chat ends the whole form"},
		{"two chats", []answer.Decision{chat, {Action: answer.Chat, Text: "other"}}, "question 1: chat ends the whole form"},
		{"cancel for one question", []answer.Decision{{Action: answer.Cancel}, sel("API")}, "question 1: cancel ends the whole form"},
	} {
		err := Check(qs, tc.ds)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestCheckOpen: answers to the questions no rule answered name each
// question by its number in the form, as pending shows it, not by its place
// among those left.
func TestCheckOpen(t *testing.T) {
	q := func(s string) answer.Question {
		return answer.Question{Question: s, Options: []answer.Option{{Label: "A"}, {Label: "B"}}}
	}
	sel := func(l string) answer.Decision { return answer.Decision{Action: answer.Select, Labels: []string{l}} }
	f := Form{Questions: []answer.Question{q("one?"), q("two?"), q("three?")},
		Decided: []Decided{{Index: 1, Rule: "r1", Answer: `select "A"`, Decision: sel("A")}}}
	for _, tc := range []struct {
		name string
		ds   []answer.Decision
		want string
	}{
		{"good", []answer.Decision{sel("B"), sel("A")}, ""},
		{"not offered", []answer.Decision{sel("A"), sel("C")}, `question 3 ("three?"): label "C" is not offered`},
		{"cancel for one", []answer.Decision{{Action: answer.Cancel}, sel("A")}, "question 2: cancel ends the whole form"},
		{"too many", []answer.Decision{sel("A"), sel("A"), sel("A")},
			"the form asks 3 questions and rules answer 1: give 2 answers (for questions 2, 3); 3 given"},
	} {
		err := f.CheckOpen(tc.ds)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if qs, nums := f.OpenQuestions(); len(qs) != 2 || qs[0].Question != "two?" || fmt.Sprint(nums) != "[2 3]" {
		t.Errorf("open questions %v, numbers %v", qs, nums)
	}
	one := Form{Questions: []answer.Question{q("one?")}}
	if err := one.CheckOpen(nil); err == nil || err.Error() != "the form asks 1 question; 0 answers given" {
		t.Errorf("no answer to one question: %v", err)
	}
}

// TestMerge: an answer from elsewhere to a form rules answered in part
// gives the open questions, or all with the rules' own; a chat or a cancel
// answers the whole form; an answer that would replace a rule's is refused
// with the rule; a wrong count says what the form takes.
func TestMerge(t *testing.T) {
	q := func(s string) answer.Question {
		return answer.Question{Question: s, Options: []answer.Option{{Label: "A"}, {Label: "B"}}}
	}
	qs := []answer.Question{q("one?"), q("two?"), q("three?")}
	sel := func(l string) answer.Decision { return answer.Decision{Action: answer.Select, Labels: []string{l}} }
	decided := []Decided{{Index: 2, Rule: "r2", Answer: `select "A"`, Decision: sel("A")}}
	str := func(ds []answer.Decision) string {
		var out []string
		for _, d := range ds {
			out = append(out, d.String())
		}
		return strings.Join(out, " | ")
	}
	for _, tc := range []struct {
		name string
		ds   []answer.Decision
		want string // the merged answers, or a piece of the error
		err  bool
	}{
		{"the open ones", []answer.Decision{sel("B"), sel("B")}, `select "B" | select "A" | select "B"`, false},
		{"all, the rule's own", []answer.Decision{sel("B"), sel("A"), sel("B")}, `select "B" | select "A" | select "B"`, false},
		{"all, another for the rule's", []answer.Decision{sel("B"), sel("B"), sel("B")}, `question 2 ("two?") is answered by rule "r2" (select "A")`, true},
		{"cancel", answer.WholeForm(answer.Decision{Action: answer.Cancel}, 2), "cancel | cancel | cancel", false},
		{"a count that fits nothing", []answer.Decision{sel("B")}, "the form asks 3 questions and rules answer 1: give 2 answers (for questions 1, 3), or all 3; 1 given", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Merge(qs, decided, tc.ds)
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("want an error with %q, got %v (%s)", tc.want, err, str(got))
				}
				return
			}
			if err != nil || str(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", str(got), err, tc.want)
			}
		})
	}
	if got, err := Merge(qs, nil, []answer.Decision{sel("A")}); err != nil || len(got) != 1 {
		t.Errorf("no rule: the answer as given, for Check: %v %v", got, err)
	}
}
