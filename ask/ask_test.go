package ask

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

var single = answer.Question{Question: "Which database?", Header: "Database", Options: []answer.Option{
	{Label: "PostgreSQL", Description: "Relational"}, {Label: "SQLite"}, {Label: "MongoDB"}}}

var layout = answer.Question{Question: "Which layout?", Header: "Layout", Options: []answer.Option{
	{Label: "Sidebar", Preview: "| nav | main |\n|     |      |"}, {Label: "Top bar", Preview: "| nav |\n| main |"}}}

var multi = answer.Question{Question: "Which features?", Header: "Features", MultiSelect: true, Options: []answer.Option{
	{Label: "Auth"}, {Label: "Export"}, {Label: "API"}}}

var cased = answer.Question{Question: "Which ones?", Header: "Which", MultiSelect: true, Options: []answer.Option{
	{Label: "Api"}, {Label: "API"}, {Label: "Export"}}}

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
		{single, "we use sqlite", answer.Decision{}, "press Enter to send it as your own answer"},
		{single, "sqlite", answer.Decision{Action: answer.Select, Labels: []string{"SQLite"}}, ""},
		{single, " MongoDB ", answer.Decision{Action: answer.Select, Labels: []string{"MongoDB"}}, ""},
		{multi, "api, Auth", answer.Decision{Action: answer.Select, Labels: []string{"API", "Auth"}}, ""},
		// Labels alike but for case: the exact one, else none ("api" was
		// taken for the first, "Api", whatever the person typed).
		{cased, "API", answer.Decision{Action: answer.Select, Labels: []string{"API"}}, ""},
		{cased, "Api", answer.Decision{Action: answer.Select, Labels: []string{"Api"}}, ""},
		{cased, "api", answer.Decision{}, `the label of "Api" and "API"`},
		{cased, "export", answer.Decision{Action: answer.Select, Labels: []string{"Export"}}, ""},
		{cased, "export, API", answer.Decision{Action: answer.Select, Labels: []string{"Export", "API"}}, ""},
		{multi, "api, api", answer.Decision{}, "takes numbers"},
		{layout, "top bar", answer.Decision{Action: answer.Select, Labels: []string{"Top bar"}}, ""},
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

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		q        answer.Question
		in, want string
		ok       bool
	}{
		{single, "sq", "SQLite", true},
		{single, "", "", true}, // PostgreSQL, SQLite, MongoDB share nothing
		{single, "x", "x", false},
		{multi, "Auth, e", "Auth, Export", true},
		{multi, "a", "A", true}, // Auth and API share "A"
	} {
		got, ok := Complete(tc.q, tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Complete(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// terminal is a prompter on a PTY, and what the PTY shows.
type terminal struct {
	t    *testing.T
	ptmx interface{ Write([]byte) (int, error) }
	p    *Prompter
	out  chan string
	seen string
}

func newTerminal(t *testing.T) *terminal {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close() })
	p := New(tty)
	t.Cleanup(func() { p.Close() })
	tm := &terminal{t: t, ptmx: ptmx, p: p, out: make(chan string, 100)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				tm.out <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return tm
}

func (tm *terminal) waitFor(want string) {
	tm.t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(tm.seen, want) {
		select {
		case s := <-tm.out:
			tm.seen += s
		case <-deadline:
			tm.t.Fatalf("terminal never showed %q; it showed %q", want, tm.seen)
		}
	}
}

// ask asks q and types each input once the prompt shows the text before it.
func (tm *terminal) ask(q answer.Question, steps ...string) (answer.Decision, error) {
	tm.t.Helper()
	type result struct {
		d   answer.Decision
		err error
	}
	res := make(chan result, 1)
	tm.seen = "" // the prompts before are read to their end
	go func() {
		d, err := tm.p.Ask(context.Background(), q, 1, 1)
		res <- result{d, err}
	}()
	for i := 0; i+1 < len(steps); i += 2 {
		tm.waitFor(steps[i])
		tm.ptmx.Write([]byte(steps[i+1]))
	}
	select {
	case r := <-res:
		return r.d, r.err
	case <-time.After(10 * time.Second):
		tm.t.Fatalf("Ask did not return; terminal showed %q", tm.seen)
	}
	return answer.Decision{}, nil
}

// TestAskKeys: at a real PTY, Ctrl-C ends the prompt as an interrupt and
// Ctrl-D as no answer; a label typed (Tab-completed) selects it; text
// that is no option is sent only once confirmed.
func TestAskKeys(t *testing.T) {
	tm := newTerminal(t)
	if _, err := tm.ask(single, "Ctrl-C: end the run", "Postg\x03"); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Ctrl-C: %v", err)
	}
	tm.waitFor("^C")
	if _, err := tm.ask(single, "end the run\r\n> ", "\x04"); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("Ctrl-D: %v", err)
	}
	tm.waitFor("(no answer")
	if d, err := tm.ask(single, "end the run\r\n> ", "sq\t\r"); err != nil || d.Action != answer.Select || d.Labels[0] != "SQLite" {
		t.Errorf("label by Tab: %+v, %v", d, err)
	}
	if d, err := tm.ask(multi, "end the run\r\n> ", "export, AUTH\r"); err != nil || strings.Join(d.Labels, ",") != "Export,Auth" {
		t.Errorf("labels: %+v, %v", d, err)
	}
	d, err := tm.ask(single, "end the run\r\n> ", "we use sqlite\r", "press Enter to send it", "\r")
	if err != nil || d.Action != answer.Type || d.Text != "we use sqlite" {
		t.Errorf("confirmed text: %+v, %v", d, err)
	}
	// Unconfirmed: another answer instead.
	d, err = tm.ask(single, "end the run\r\n> ", "maybe later\r", "press Enter to send it", "9\r", "not an option", "1\r")
	if err != nil || d.Action != answer.Select || d.Labels[0] != "PostgreSQL" {
		t.Errorf("after a bad number: %+v, %v", d, err)
	}
}

// TestAskHostile: at a real PTY, a question whose text would take over the
// terminal (a clipboard write, a clear screen, a title, C1 controls, a
// bidi override, a CR with a fake verdict) is shown escaped, preview lines
// too, and Tab does not write a label that cannot be shown as it is.
func TestAskHostile(t *testing.T) {
	h := testkit.Hostile
	for _, tc := range []struct {
		name    string
		preview string
	}{
		{"options with previews", "diff\n" + h},
		{"options without", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := answer.Question{Question: "Deploy? " + h, Header: "Ship" + h, Options: []answer.Option{
				{Label: h + " now", Description: "at once " + h, Preview: tc.preview}, {Label: h + " later"}}}
			tm := newTerminal(t)
			d, err := tm.ask(q, "end the run\r\n> ", "\t2\r")
			if err != nil || d.Action != answer.Select || d.Labels[0] != h+" later" {
				t.Errorf("Ask = %+v, %v", d, err)
			}
			tm.waitFor("2\r\n")
			if bad := testkit.Unescaped(tm.seen); bad != "" {
				t.Errorf("the terminal got raw: %s", bad)
			}
			for _, want := range []string{"[Ship" + testkit.HostileShown, "Deploy? " + testkit.HostileShown, "1. " + testkit.HostileShown} {
				if !strings.Contains(tm.seen, want) {
					t.Errorf("no %q in %q", want, tm.seen)
				}
			}
		})
	}
}
