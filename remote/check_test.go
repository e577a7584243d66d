package remote

import (
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
		{"too few", []answer.Decision{sel("SQLite")}, "the form asks 2 questions; 1 answers given"},
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
