package rules

import (
	"fmt"
	"strings"
	"testing"
)

// TestWarnings: rules that load but can never act or never answer are
// warned about at their line; the examples have none.
func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, rules string
		want        []string
	}{
		{"none", `
  - {when: {header: A}, answer: {cancel: true}}
  - {when: {header: B}, answer: {cancel: true}}
  - {answer: {cancel: true}}`, nil},
		{"the same when twice", `
  - {when: {header: "^A$", options: [x, y]}, answer: {select: x}}
  - {when: {header: B}, answer: {cancel: true}}
  - {when: {options: [y, x, y], header: "^A$"}, answer: {select: y}}`,
			[]string{"r.yaml:5: warning: this rule is never reached: its when is the same as the rule's at line 3, which answers first"}},
		{"question and header are not the same", `
  - {when: {header: A}, answer: {cancel: true}}
  - {when: {question: A}, answer: {cancel: true}}`, nil},
		{"a different option", `
  - {when: {header: A, options: [x]}, answer: {select: x}}
  - {when: {header: A, options: [y]}, answer: {select: y}}`, nil},
		{"no when before others", `
  - {answer: {cancel: true}}
  - {when: {header: A}, answer: {cancel: true}}
  - {when: {header: A}, answer: {cancel: true}}`,
			// The rules after it are said once, not each again.
			[]string{"r.yaml:3: warning: this rule has no when, so it answers every question: the 2 rules after it (from line 4) are never reached"}},
		{"an empty when before one", `
  - {when: {header: A}, answer: {cancel: true}}
  - {when: {}, answer: {cancel: true}}
  - {when: {header: B}, answer: {cancel: true}}`,
			[]string{"r.yaml:4: warning: this rule has no when, so it answers every question: the rule after it (line 5) is never reached"}},
		{"labels no question offers together", `
  - {when: {options: [A, B, C, D]}, answer: {select: E}}
  - {when: {options: [A, B]}, answer: {select: [A, C, D, E]}}
  - {when: {options: [A, B, C]}, answer: {select: [A, D]}}
  - {when: {options: [PostgreSQL]}, answer: {select: SQLite}}`,
			[]string{
				`r.yaml:3: warning: this rule can never answer: it selects "E" and its when needs "A", "B", "C", "D" offered, 5 options, but a question offers at most 4`,
				`r.yaml:4: warning: this rule can never answer: it selects "A", "C", "D", "E" and its when needs "A", "B" offered, 5 options, but a question offers at most 4`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("r.yaml", []byte("version: 1\nrules:"+tc.rules+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range f.Warnings() {
				got = append(got, w.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	for _, path := range examplePaths(t) {
		f, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if ws := f.Warnings(); len(ws) > 0 {
			t.Errorf("%s: %v", path, ws)
		}
	}
}

func TestWarningsPermissionsAndElicitations(t *testing.T) {
	f, err := Parse("r.yaml", []byte(`version: 1
permissions:
  - {when: {tool: Bash, command: "^go vet$"}, decide: allow}
  - {when: {tool: Bash}, decide: {deny: "no"}}
  - {when: {tool: Bash, command: "^go vet$"}, decide: {deny: "no"}}
  - {when: {tool: Write, path: "src/**"}, decide: allow}
  - {when: {tool: Write, path: "docs/**"}, decide: allow}
elicitations:
  - {when: {server: "^demo$", fields: [env, confirm]}, answer: decline}
  - {when: {server: "^demo$", fields: [confirm, env, env]}, answer: cancel}
  - {when: {server: "^demo$", message: deploy}, answer: cancel}
  - {when: {server: "^other$", fields: [env, confirm]}, answer: decline}
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range f.Warnings() {
		got = append(got, w.String())
	}
	want := []string{
		"r.yaml:5: warning: this permission is never reached: its when is the same as the permission's at line 3, which decides first",
		`r.yaml:6: warning: this permission can never match: path "src/**" is matched against absolute paths (/home/me/project/…); begin it with / or **/`,
		`r.yaml:7: warning: this permission can never match: path "docs/**" is matched against absolute paths (/home/me/project/…); begin it with / or **/`,
		"r.yaml:10: warning: this elicitation is never reached: its when is the same as the elicitation's at line 9, which answers first",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWarningsCommands: a command pattern that can match only a compound
// command (each simple command is matched on its own), and an allow's
// pattern that is not anchored at the command's name, or not at its end,
// are warned about.
func TestWarningsCommands(t *testing.T) {
	const (
		start = `this permission allows a command that matches %q anywhere, in another command's words too: anchor it at the command's name with ^`
		end   = `this permission allows any command that begins with a match of %q, whatever follows%s: end the pattern with $ to allow only what it spells out (without $ it still refuses a part that writes a file outside the working folder)`
		joins = `this permission's command can only match a compound command: %q holds %s, but each simple command of a line is matched on its own, without what joins it to the next (a quoted %[2]s in a word is written in quotes)`
	)
	for _, tc := range []struct {
		command, decide string
		want            []string
	}{
		{`^go test( -run \w+)? \./\.\.\.$`, "allow", nil},
		{`^(go test \./\.\.\.|make test)$`, "allow", nil},
		{`^go test$|^make test$`, "allow", nil},
		{`\A(?:go vet)\z`, "allow", nil},
		{`^(ls|pwd)( -l)?$`, "allow_session", nil},
		{`^go test `, "allow", []string{fmt.Sprintf(end, "^go test ", ` ("go test <anything> >~/.bashrc" too)`)}},
		{`^(go test|make test)( |$)`, "allow", []string{fmt.Sprintf(end, "^(go test|make test)( |$)", "")}},
		{`^go test$|^make test`, "allow", []string{fmt.Sprintf(end, "^go test$|^make test", "")}},
		{`^go test .*`, `{select: "Yes"}`, []string{fmt.Sprintf(end, "^go test .*", ` ("go test <anything> >~/.bashrc" too)`)}},
		{`go test$`, "allow", []string{fmt.Sprintf(start, "go test$")}},
		{`^go test|make test$`, "allow_session", []string{fmt.Sprintf(start, "^go test|make test$"), fmt.Sprintf(end, "^go test|make test$", "")}},
		{`\bgit\s+push\b`, `{deny: "no"}`, nil},
		{`git push`, `{select: "No"}`, nil},
		{`git push`, `{select: "Yes"}`, []string{fmt.Sprintf(start, "git push"), fmt.Sprintf(end, "git push", ` ("git push <anything> >~/.bashrc" too)`)}},
		{`^go test .*&& touch`, `{deny: "no"}`, []string{fmt.Sprintf(joins, "^go test .*&& touch", `"&&"`)}},
		{`curl .*\| *sh`, `{deny: "no"}`, []string{fmt.Sprintf(joins, `curl .*\| *sh`, `"|"`)}},
		{`^make; make test`, "ask", []string{fmt.Sprintf(joins, "^make; make test", `";"`)}},
		{`^a\|\|b`, "ask", []string{fmt.Sprintf(joins, `^a\|\|b`, `"||"`)}},
		{`^grep [|;&]`, "ask", nil},
		{`^echo x >\|out`, "ask", nil},
		{`^echo x 2>&1`, "ask", nil},
		{`^(a|b)`, "ask", nil},
	} {
		f, err := Parse("r.yaml", []byte("version: 1\npermissions:\n  - {when: {tool: Bash, command: '"+tc.command+"'}, decide: "+tc.decide+"}\n"))
		if err != nil {
			t.Fatalf("%s: %v", tc.command, err)
		}
		var got []string
		for _, w := range f.Warnings() {
			got = append(got, w.Msg)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s %s: warnings\n\t%s\nwant\n\t%s", tc.command, tc.decide, strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
		}
	}
}

// TestAnchoredAt: a pattern counts as anchored at the start or the end only
// when every alternative is.
func TestAnchoredAt(t *testing.T) {
	for _, tc := range []struct {
		re         string
		start, end bool
	}{
		{`^go test$`, true, true},
		{`^go test`, true, false},
		{`go test$`, false, true},
		{`(^a$|^b$)`, true, true},
		{`^a|b$`, false, false},
		{`\Aa\z`, true, true},
		{`a`, false, false},
		{`(`, false, false},
	} {
		if got := anchored(tc.re); got != tc.start {
			t.Errorf("anchored(%q) = %v, want %v", tc.re, got, tc.start)
		}
		if got := endAnchored(tc.re); got != tc.end {
			t.Errorf("endAnchored(%q) = %v, want %v", tc.re, got, tc.end)
		}
	}
}
