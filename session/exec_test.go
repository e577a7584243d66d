package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// TestExecDecide: a rule's program gets the question on stdin and its
// answer is used; a program that fails, hangs, prints garbage or an answer
// the question cannot take leaves the question unmatched, saying why.
func TestExecDecide(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return "./" + name // relative to the rules file's folder
	}
	q := answer.Question{Question: "Which database?", Header: "Database", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}
	for _, tc := range []struct {
		name, body string
		want       string // the label chosen, or a piece of the reason it is unmatched
		ok         bool
	}{
		{"good", `grep -q '"question":"Which database?"' && echo '{"select": "MongoDB"}'`, "MongoDB", true},
		{"yaml", `cat >/dev/null; echo 'select: SQLite'`, "SQLite", true},
		{"not offered", `cat >/dev/null; echo '{"select": "Oracle"}'`, `label "Oracle" is not offered`, false},
		{"typed, a skin tone", `cat >/dev/null; echo '{"type": "ok 👍🏽"}'`, `"ok 👍🏽" holds a skin tone (U+1F3FD), which the screen cannot show`, false},
		{"typed, a zero-width joiner", `cat >/dev/null; printf '%s\n' '{"type": "ask the 👩\u200d🚀"}'`, "holds a zero-width joiner (U+200D)", false},
		{"typed, invalid UTF-8", `cat >/dev/null; printf '{"type": "ok \377"}\n'`, "invalid leading UTF-8 octet", false},
		{"garbage", `cat >/dev/null; echo 'hello there'`, "printed no usable answer", false},
		{"nested exec", `cat >/dev/null; echo '{"exec": ["x"]}'`, `unknown key "exec"`, false},
		{"fails", `echo oops >&2; exit 3`, "failed: exit status 3 (its stderr: oops)", false},
		// Its stderr is one line in the reason, which exit 4's one line holds.
		{"fails with lines", `printf 'Traceback:\n  boom\n' >&2; exit 1`, "failed: exit status 1 (its stderr: Traceback: boom)", false},
		{"hangs", `sleep 10`, "gave no answer within 300ms", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(Config{AnswerTimeout: 300 * time.Millisecond})
			s.ctx = context.Background()
			start := time.Now()
			d := s.execDecide(q, rules.Decision{Rule: "r", File: filepath.Join(dir, "rules.yaml"), Line: 3,
				Exec: []string{script(tc.name+".sh", tc.body)}, Dir: dir})
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if tc.ok {
				if !d.Matched() || d.Action != answer.Select || d.Labels[0] != tc.want {
					t.Fatalf("decision %+v", d)
				}
				return
			}
			if d.Matched() || !strings.Contains(d.Unmatched, tc.want) {
				t.Fatalf("unmatched %q, want it to say %q", d.Unmatched, tc.want)
			}
		})
	}
}

// TestExecHookUnshowable: through the hook (--answer-via hook), which gives
// Claude text without the screen, a program may answer with text the
// screen cannot show.
func TestExecHookUnshowable(t *testing.T) {
	dir := unshowableProgram(t)
	q := answer.Question{Question: "Which database?", Header: "Database", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}
	s := newSession(Config{AnswerTimeout: 5 * time.Second, AnswerVia: AnswerViaHook})
	s.ctx = context.Background()
	d := s.execDecide(q, rules.Decision{Rule: "r", File: filepath.Join(dir, "rules.yaml"), Line: 3, Exec: []string{"./decide"}, Dir: dir})
	if !d.Matched() || d.Action != answer.Type || d.Text != "ok 👍🏽" {
		t.Fatalf("decision %+v (%s), want type \"ok 👍🏽\"", d, d.Unmatched)
	}
}

// TestExecBesideRules: a rules file in the working folder (the default
// .claudewrap.yaml) runs "./decide" from beside it, never a "decide" from
// PATH, which here would answer otherwise.
func TestExecBesideRules(t *testing.T) {
	dir, bin := t.TempDir(), t.TempDir()
	write := func(path, label string) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\ncat >/dev/null; echo '{\"select\": \""+label+"\"}'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "decide"), "SQLite")
	write(filepath.Join(bin, "decide"), "MongoDB")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Chdir(dir)
	q := answer.Question{Question: "Which database?", Header: "Database", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}
	s := newSession(Config{AnswerTimeout: 5 * time.Second})
	s.ctx = context.Background()
	d := s.execDecide(q, rules.Decision{Rule: "r", File: ".claudewrap.yaml", Line: 3, Exec: []string{"./decide"}, Dir: "."})
	if !d.Matched() || d.Labels[0] != "SQLite" {
		t.Fatalf("decision %+v (%s), want SQLite from ./decide", d, d.Unmatched)
	}
}

// TestExecUnshowable: a rule's program that answers with text the screen
// cannot show as typed leaves the question unmatched, saying why, before
// the form is taken: under wait the form waits, untouched, and an answer
// from elsewhere answers it.
func TestExecUnshowable(t *testing.T) {
	t.Parallel()
	dir := unshowableProgram(t)
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: execDecider{rules.Decision{Rule: "r", File: filepath.Join(dir, "rules.yaml"), Line: 3,
		Exec: []string{"./decide"}, Dir: dir}}, Policy: rules.Wait, Host: hostHeadless})
	c.ask("t1", database)
	if ev := r.wait(`"unmatched"`); !strings.Contains(fmt.Sprint(ev["reason"]), `"ok 👍🏽" holds a skin tone`) {
		t.Errorf("unmatched: %v\n%s", ev, r)
	}
	r.wait(`"handed_over"`)
	c.Settle()
	if got := c.Received(); len(got) > 0 || r.has("decision") || r.has("cancelled") {
		t.Errorf("keys %v after the program's answer was refused\n%s", got, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if o := (remoteHandler{r.s}).Answer(ctx, "t1", remote.FromAnswer, []answer.Decision{sel("SQLite")}); o.Result != "verified" || o.Recorded[database.Question] != "SQLite" {
		t.Errorf("the answer from elsewhere: %+v, want verified SQLite\n%s", o, r)
	}
	r.end()
}

// unshowableProgram writes a program, ./decide in the folder returned,
// that answers with text the screen cannot show as typed (a skin tone).
func unshowableProgram(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "decide"), []byte("#!/bin/sh\ncat >/dev/null; echo '{\"type\": \"ok 👍🏽\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// execDecider matches every question with a rule whose program answers.
type execDecider struct{ d rules.Decision }

func (e execDecider) Decide(answer.Question) rules.Decision { return e.d }
func (e execDecider) Fallback(answer.Question) (rules.Decision, error) {
	return rules.Decision{}, errors.New("no fallback answer")
}

// TestExecNoLongerAllowed: a folder's rules file whose program changed
// since it was allowed (a command of Claude's edited it mid-run) does not
// run it: the question is unmatched, saying why, and nothing ran.
func TestExecNoLongerAllowed(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	prog := filepath.Join(dir, "decide.sh")
	os.WriteFile(prog, []byte("#!/bin/sh\ntouch "+ran+"\necho '{select: SQLite}'\n"), 0o755)
	q := answer.Question{Question: "Which database?", Header: "Database", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}
	s := newSession(Config{StillAllowed: func() error { return errors.New(`its program "./decide.sh" changed since it was allowed`) }})
	s.ctx = context.Background()
	d := s.execDecide(q, rules.Decision{Rule: "r", File: filepath.Join(dir, ".claudewrap.yaml"), Line: 3, Exec: []string{"./decide.sh"}, Dir: dir})
	if d.Matched() || !strings.Contains(d.Unmatched, "its program is not run") || !strings.Contains(d.Unmatched, "changed since it was allowed") {
		t.Errorf("decision %+v", d)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the changed program ran")
	}
}
