package ask

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/answer"
)

var single = answer.Question{Question: "Which database?", Header: "Database", Options: []answer.Option{
	{Label: "PostgreSQL", Description: "Relational"}, {Label: "SQLite"}, {Label: "MongoDB"}}}

var layout = answer.Question{Question: "Which layout?", Header: "Layout", Options: []answer.Option{
	{Label: "Sidebar", Preview: "| nav | main |\n|     |      |"}, {Label: "Top bar", Preview: "| nav |\n| main |"}}}

var multi = answer.Question{Question: "Which features?", Header: "Features", MultiSelect: true, Options: []answer.Option{
	{Label: "Auth"}, {Label: "Export"}, {Label: "API"}}}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		q    answer.Question
		in   string
		want answer.Decision
		err  string
	}{
		{single, "2", answer.Decision{Action: answer.Select, Labels: []string{"SQLite"}}, ""},
		{single, " 3 ", answer.Decision{Action: answer.Select, Labels: []string{"MongoDB"}}, ""},
		{single, "1 2", answer.Decision{}, "pick one number"},
		{single, "4", answer.Decision{}, "not an option"},
		{single, "0", answer.Decision{}, "not an option"},
		{single, "we use sqlite", answer.Decision{Action: answer.Type, Text: "we use sqlite"}, ""},
		{single, "/type 42", answer.Decision{Action: answer.Type, Text: "42"}, ""},
		{single, "/type", answer.Decision{}, "needs the answer"},
		{single, "/chat let's talk", answer.Decision{Action: answer.Chat, Text: "let's talk"}, ""},
		{single, "/chat", answer.Decision{Action: answer.Chat}, ""},
		{single, "/cancel", answer.Decision{Action: answer.Cancel}, ""},
		{single, "/cancel now", answer.Decision{}, "takes no text"},
		{single, "/quit", answer.Decision{}, "unknown command"},
		{single, "", answer.Decision{}, "nothing typed"},
		{single, "a\tb", answer.Decision{}, "control characters"},
		{multi, "3, 1", answer.Decision{Action: answer.Select, Labels: []string{"API", "Auth"}}, ""},
		{multi, "1 1", answer.Decision{}, "twice"},
		{multi, "auth please", answer.Decision{}, "takes numbers"},
		{layout, "2 /notes keep it small", answer.Decision{Action: answer.Select, Labels: []string{"Top bar"}, Notes: "keep it small"}, ""},
		{layout, "1", answer.Decision{Action: answer.Select, Labels: []string{"Sidebar"}}, ""},
		{layout, "2 /notes", answer.Decision{}, "needs the notes"},
		{layout, "1 2 /notes x", answer.Decision{}, "one option's number"},
		{layout, "a sidebar", answer.Decision{}, "previews"},
		{single, "2 /notes x", answer.Decision{}, "previews"},
	} {
		got, err := Parse(tc.q, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.Action != tc.want.Action || got.Text != tc.want.Text || got.Notes != tc.want.Notes ||
			strings.Join(got.Labels, "|") != strings.Join(tc.want.Labels, "|") {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	s := Render(single, 1, 3)
	for _, want := range []string{"question 1 of 3", "[Database] Which database?", "1. PostgreSQL — Relational", "3. MongoDB", "a number (1-3)"} {
		if !strings.Contains(s, want) {
			t.Errorf("Render lacks %q:\n%s", want, s)
		}
	}
	if s := Render(multi, 2, 3); !strings.Contains(s, "numbers to tick, in order") {
		t.Errorf("multi-select hint missing:\n%s", s)
	}
	s = Render(layout, 1, 1)
	for _, want := range []string{"2. Top bar\n       │ | nav |\n       │ | main |", "2 /notes TEXT"} {
		if !strings.Contains(s, want) {
			t.Errorf("preview question: Render lacks %q:\n%s", want, s)
		}
	}
}

// TestAskOnTerminal drives the prompt through a real PTY: a wrong answer
// is refused and asked again, line editing works, a timeout gives up.
func TestAskOnTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	p := New(tty)
	defer p.Close()
	screen := make(chan string, 100)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				screen <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	seen := ""
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !strings.Contains(seen, want) {
			select {
			case s := <-screen:
				seen += s
			case <-deadline:
				t.Fatalf("terminal never showed %q; it showed %q", want, seen)
			}
		}
	}

	type result struct {
		d   answer.Decision
		err error
	}
	res := make(chan result, 1)
	go func() {
		d, err := p.Ask(context.Background(), single, 1, 1)
		res <- result{d, err}
	}()
	waitFor("> ")
	ptmx.Write([]byte("7\r"))
	waitFor("not an option")
	// "x" then backspace, then 2: line editing.
	ptmx.Write([]byte("x\x7f2\r"))
	select {
	case r := <-res:
		if r.err != nil || r.d.Action != answer.Select || r.d.Labels[0] != "SQLite" {
			t.Fatalf("Ask = %+v, %v", r.d, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Ask did not return; terminal showed %q", seen)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := p.Ask(ctx, multi, 1, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Ask after the timeout: %v", err)
	}
	// Input typed after a timed-out prompt goes to the next one.
	go func() {
		d, err := p.Ask(context.Background(), multi, 1, 1)
		res <- result{d, err}
	}()
	ptmx.Write([]byte("3 1\r"))
	select {
	case r := <-res:
		if r.err != nil || strings.Join(r.d.Labels, ",") != "API,Auth" {
			t.Fatalf("Ask = %+v, %v", r.d, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("second Ask did not return")
	}
}
