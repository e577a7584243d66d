package cli

import (
	"strings"
	"sync"
	"testing"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/remote"
)

// TestCompleteAnswer: the shell completes answer's SESSION with the running
// sessions' ids, --form with the forms waiting in that session, and
// --select with the labels of the waiting form's open question (through
// cobra's __complete, as the completion scripts ask). A label a terminal
// would act on is not offered; descriptions come escaped.
func TestCompleteAnswer(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	gin := answer.Question{Question: "Which gin?", Header: "Gin", MultiSelect: true, Options: []answer.Option{
		{Label: "Gin", Description: "dry\x1b[2J"}, {Label: "Old Tom", Description: "sweeter"}, {Label: "evil\x1b]0;x\a"}}}
	tonic := answer.Question{Question: "Which tonic?", Options: []answer.Option{{Label: "Indian"}, {Label: "Elderflower"}}}
	one, err := remote.Register(answerHandler{forms: []remote.Form{{ToolUseID: "toolu_1", Questions: []answer.Question{gin}}}}, "/work/one", remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeOne := sync.OnceFunc(one.Close)
	defer closeOne()

	complete := func(args ...string) string {
		t.Helper()
		out, err := executeCmd(t, devNull(t), append([]string{"__complete", "answer"}, args...)...)
		if err != nil {
			t.Fatalf("__complete answer %q: %v", args, err)
		}
		// The last line is cobra's directive: no file names.
		out = strings.TrimSuffix(out, ":4\n")
		return out
	}
	if got, want := complete(""), one.ID()+"\t/work/one\n"; got != want {
		t.Errorf("SESSION: %q, want %q", got, want)
	}
	if got := complete("x"); got != "" {
		t.Errorf("SESSION x: %q, want nothing", got)
	}
	if got, want := complete(one.ID(), "--form", ""), "toolu_1\tWhich gin?\n"; got != want {
		t.Errorf("--form: %q, want %q", got, want)
	}
	if got, want := complete(one.ID(), "--select", ""), "Gin\tdry\\x1b[2J\nOld Tom\tsweeter\n"; got != want {
		t.Errorf("--select: %q, want %q", got, want)
	}
	if got, want := complete(one.ID(), "--select", "Gin", "--select", ""), "Old Tom\tsweeter\n"; got != want {
		t.Errorf("--select, Gin given: %q, want %q", got, want)
	}
	if got, want := complete(one.ID(), "--select", "O"), "Old Tom\tsweeter\n"; got != want {
		t.Errorf("--select O: %q, want %q", got, want)
	}

	// A session with two forms: --select completes once --form says which.
	// A form a rule answered in part: the labels of the question left.
	// (A session is named by its process: this test's registers one at a time.)
	closeOne()
	two, err := remote.Register(answerHandler{forms: []remote.Form{
		{ToolUseID: "toolu_2", Questions: []answer.Question{tonic}},
		{ToolUseID: "toolu_3", Questions: []answer.Question{tonic, gin}, Decided: []remote.Decided{{Index: 1, Rule: "r", Answer: `select "Indian"`}}},
	}}, "/work/two", remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	if got, want := complete(two.ID(), "--form", ""), "toolu_2\tWhich tonic?\ntoolu_3\tWhich tonic?\n"; got != want {
		t.Errorf("--form: %q, want %q", got, want)
	}
	if got := complete(two.ID(), "--select", ""); got != "" {
		t.Errorf("--select without --form: %q, want nothing", got)
	}
	if got, want := complete(two.ID(), "--form", "toolu_2", "--select", ""), "Indian\nElderflower\n"; got != want {
		t.Errorf("--select on toolu_2: %q, want %q", got, want)
	}
	if got, want := complete(two.ID(), "--form", "toolu_3", "--select", ""), "Gin\tdry\\x1b[2J\nOld Tom\tsweeter\n"; got != want {
		t.Errorf("--select on toolu_3: %q, want %q", got, want)
	}
}
