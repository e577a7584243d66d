package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
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
