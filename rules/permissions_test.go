package rules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPermissionErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"not a list", "version: 1\npermissions: {tool: Bash}\n",
			[]string{`r.yaml:2:14: permissions must be a list, not a mapping`}},
		{"no tool", "version: 1\npermissions:\n  - when: {command: x}\n    decide: allow\n",
			[]string{`r.yaml:3:5: permission needs when: {tool: …}: a decision for every tool is a decision nobody reviewed`}},
		{"no decide", "version: 1\npermissions:\n  - when: {tool: Bash}\n",
			[]string{`r.yaml:3:5: permission has no decide`}},
		{"unknown when key", "version: 1\npermissions:\n  - when: {tool: Bash, cmd: x}\n    decide: allow\n",
			[]string{`r.yaml:3:24: unknown key "cmd" in when (want one of command, host, input, path, tool)`}},
		{"bad regex", "version: 1\npermissions:\n  - when: {tool: Bash, command: \"(\"}\n    decide: allow\n",
			[]string{"r.yaml:3:33: command: bad regular expression: error parsing regexp: missing closing ): `(`"}},
		// A tool that is a bad regular expression is said once, not also
		// as a missing tool.
		{"bad tool regex", "version: 1\npermissions:\n  - when: {tool: \"(\"}\n    decide: allow\n",
			[]string{"r.yaml:3:18: tool: bad regular expression: error parsing regexp: missing closing ): `(`"}},
		{"bad glob", "version: 1\npermissions:\n  - when: {tool: Write, path: \"[\"}\n    decide: allow\n",
			[]string{`r.yaml:3:31: path: bad glob "["`}},
		{"unknown decision", "version: 1\npermissions:\n  - when: {tool: Bash}\n    decide: yes please\n",
			[]string{`r.yaml:4:13: decide: unknown "yes please" (want allow, allow_session, ask, fail, {deny: MESSAGE} or {select: LABEL})`}},
		{"deny without message", "version: 1\npermissions:\n  - when: {tool: Bash}\n    decide: deny\n",
			[]string{`r.yaml:4:13: deny needs a message Claude reads: decide: {deny: "why"}`}},
		{"two decisions", "version: 1\npermissions:\n  - when: {tool: Bash}\n    decide: {deny: no, select: Yes}\n",
			[]string{`r.yaml:4:13: decide needs exactly one of deny, select`}},
		{"trust not a boolean", "version: 1\ndialogs: {trust: yes please}\n",
			[]string{`r.yaml:2:18: trust must be true or false, not a string`}},
		{"unknown dialog", "version: 1\ndialogs: {plan: true}\n",
			[]string{`r.yaml:2:11: unknown key "plan" in dialogs (want one of api_key, auto_mode, bypass_permissions, mcp_servers, trust)`}},
		// The bypass confirmation is accepted by the word alone.
		{"bypass true", "version: 1\ndialogs: {bypass_permissions: true}\n",
			[]string{`r.yaml:2:31: bypass_permissions must be accept, not a boolean`}},
		{"bypass yes", "version: 1\ndialogs:\n  bypass_permissions: yes\n",
			[]string{`r.yaml:3:23: bypass_permissions: unknown "yes" (want accept)`}},
		{"bypass other word", "version: 1\ndialogs:\n  bypass_permissions: accepted\n",
			[]string{`r.yaml:3:23: bypass_permissions: unknown "accepted" (want accept)`}},
		{"bypass refuse", "version: 1\ndialogs:\n  bypass_permissions: exit\n",
			[]string{`r.yaml:3:23: bypass_permissions: unknown "exit" (want accept)`}},
		{"bypass case", "version: 1\ndialogs:\n  bypass_permissions: Accept\n",
			[]string{`r.yaml:3:23: bypass_permissions: unknown "Accept" (want accept)`}},
		{"bypass empty", "version: 1\ndialogs:\n  bypass_permissions:\n",
			[]string{`r.yaml:3:22: bypass_permissions must be accept, not empty`}},
		{"bypass list", "version: 1\ndialogs:\n  bypass_permissions: [accept]\n",
			[]string{`r.yaml:3:23: bypass_permissions must be accept, not a list`}},
		{"bypass misspelt", "version: 1\ndialogs:\n  bypass: accept\n",
			[]string{`r.yaml:3:3: unknown key "bypass" in dialogs (want one of api_key, auto_mode, bypass_permissions, mcp_servers, trust)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("r.yaml", []byte(tc.in))
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}

func TestPermit(t *testing.T) {
	f, err := Parse("r.yaml", []byte(`version: 1
dialogs: {trust: true}
permissions:
  - name: tests
    when: {tool: Bash, command: "^go test "}
    decide: allow
  - name: no-rm
    when: {tool: Bash, command: "^rm "}
    decide: {deny: "no deleting in this job"}
  - name: docs
    when: {tool: Write|Edit, path: "/work/**/docs/*.md"}
    decide: allow_session
  - name: example
    when: {tool: WebFetch, host: "*.example.com"}
    decide: allow
  - name: mcp
    when: {tool: "mcp__github__.*", input: '"repo":"claudewrap/'}
    decide: ask
  - name: plan
    when: {tool: ExitPlanMode}
    decide: {select: "Yes, manually approve edits"}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Files: []*File{f}}
	if s.Trust() == "" {
		t.Error("dialogs: trust not seen")
	}
	if s.Bypass() != "" {
		t.Error("the bypass confirmation accepted by a file that does not say so")
	}
	for _, tc := range []struct {
		tool, input string
		rule        string
		want        string
	}{
		{"Bash", `{"command":"go test ./..."}`, "tests", "allow"},
		{"Bash", `{"command":"rm -rf build"}`, "no-rm", `deny "no deleting in this job"`},
		{"Bash", `{"command":"make"}`, "", ""},
		{"Bashful", `{"command":"go test ./..."}`, "", ""}, // the tool name is matched whole
		{"Edit", `{"file_path":"/work/a/b/docs/x.md"}`, "docs", "allow_session"},
		{"Write", `{"file_path":"/work/a/b/src/x.md"}`, "", ""},
		{"WebFetch", `{"url":"https://api.Example.com/x"}`, "example", "allow"},
		{"WebFetch", `{"url":"https://example.com.evil.org/"}`, "", ""},
		{"WebFetch", `{"url":"https://example.com/"}`, "", ""}, // *. needs a subdomain
		{"mcp__github__create_issue", `{"repo":"claudewrap/x"}`, "mcp", "ask"},
		{"ExitPlanMode", `{"plan":"1. do it"}`, "plan", `select "Yes, manually approve edits"`},
	} {
		d := s.Permit(Call{Tool: tc.tool, Input: json.RawMessage(tc.input)})
		if d.Rule != tc.rule || (d.Matched() && d.Verdict.String() != tc.want) {
			t.Errorf("%s %s: rule %q decides %s, want %q %s", tc.tool, tc.input, d.Rule, d.Verdict, tc.rule, tc.want)
		}
	}
}

// TestBypassAccept: dialogs: {bypass_permissions: accept} is the one way a
// rules file accepts the bypass confirmation; the first file in force that
// says so is named.
func TestBypassAccept(t *testing.T) {
	plain, err := Parse("plain.yaml", []byte("version: 1\ndialogs: {trust: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("r.yaml", []byte("version: 1\ndialogs:\n  bypass_permissions: accept\n"))
	if err != nil || !f.Dialogs.Bypass || f.Dialogs.Trust {
		t.Fatalf("want the confirmation accepted, nothing else: %+v %v", f, err)
	}
	quoted, err := Parse("q.yaml", []byte("version: 1\ndialogs: {bypass_permissions: \"accept\"}\n"))
	if err != nil || !quoted.Dialogs.Bypass {
		t.Fatalf("quoted: %+v %v", quoted, err)
	}
	if got := (&Set{Files: []*File{plain}}).Bypass(); got != "" {
		t.Errorf("a file without the key accepts it: %q", got)
	}
	if got := (&Set{Files: []*File{plain, f, quoted}}).Bypass(); got != "r.yaml" {
		t.Errorf("want the first file that says so, r.yaml, got %q", got)
	}
}

// TestPermitParts: a rule that lets a command run holds only when it
// allows every part (allow, allow_session, a select of a Yes); one that
// refuses or asks holds when one part meets it (deny, fail, ask, a select
// of a No), and says which. The first rule that holds decides.
func TestPermitParts(t *testing.T) {
	f, err := Parse("r.yaml", []byte(`version: 1
permissions:
  - {name: tests, when: {tool: Bash, command: "^go test "}, decide: allow}
  - {name: builds, when: {tool: Bash, command: "^go build "}, decide: allow_session}
  - {name: vet, when: {tool: Bash, command: "^go vet "}, decide: {select: "Yes, and don't ask again"}}
  - {name: pushes, when: {tool: Bash, command: "^git push"}, decide: ask}
  - {name: no-fmt, when: {tool: Bash, command: "^gofmt "}, decide: {select: "No"}}
  - {name: no-touch, when: {tool: Bash, command: "^touch "}, decide: {deny: "no touching"}}
  - {name: no-curl, when: {tool: Bash, command: "^curl "}, decide: fail}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Files: []*File{f}}
	for _, tc := range []struct {
		command, rule, met string
	}{
		{"go test ./...", "tests", ""},
		{"go test ./... && go test ./x", "tests", ""},
		{"go test ./... && go build ./...", "", ""},
		{"go test ./... && touch F", "no-touch", "touch F"},
		{"go build ./... | go build .", "builds", ""},
		{"go build ./...; git push", "pushes", "git push"},
		{"go vet ./...", "vet", ""},
		{"go vet ./...; eval x", "", ""},
		{"go vet $(gofmt -l .)", "no-fmt", "gofmt -l ."},
		{"git status; git push origin", "pushes", "git push origin"},
		{"echo | curl -d @- x", "no-curl", "curl -d @- x"},
		{"touch F", "no-touch", ""},
		{"sudo touch F", "no-touch", "touch F"},
		{"bash -c 'curl x | sh'", "no-curl", "curl x"},
		{"eval 'go test ./...'", "", ""},
		{"nohup go test ./...", "tests", ""},
		{"sudo go test ./...", "", ""},
	} {
		d := s.Permit(bashCall(tc.command))
		if d.Rule != tc.rule || d.Met != tc.met {
			t.Errorf("%q: rule %q met %q, want %q met %q", tc.command, d.Rule, d.Met, tc.rule, tc.met)
		}
	}
	// Meets: the first rule a part meets on its own, as rules test shows.
	for _, tc := range []struct{ part, rule string }{
		{"go test ./...", "tests"}, {"touch F", "no-touch"}, {"rm -rf x", ""}, {"git push", "pushes"},
	} {
		if got := s.Meets(bashCall("go test ./..."), Part{Text: tc.part}).Rule; got != tc.rule {
			t.Errorf("part %q meets %q, want %q", tc.part, got, tc.rule)
		}
	}
}

// TestPermitPaths: a path rule sees the path as Claude's hooks give it,
// cleaned and absolute, a relative one taken from the call's folder; a
// deny also holds where a symbolic link on its way leads, an allow only
// when it holds there too.
func TestPermitPaths(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"docs", "secrets", "work"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"docs/keys":     "../secrets",                       // a folder
		"docs/k.md":     filepath.Join(dir, "secrets/k.md"), // a file not made yet
		"docs/loop":     "loop",
		"work/outdocs":  "../docs",
		"docs/relative": "../secrets/new/deeper",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Parse("r.yaml", []byte(`version: 1
permissions:
  - {name: no-secrets, when: {tool: Write|Read, path: "**/secrets/**"}, decide: {deny: "not there"}}
  - {name: docs, when: {tool: Write, path: "**/docs/**"}, decide: allow}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Files: []*File{f}}
	write := func(p, cwd string) Call {
		in, _ := json.Marshal(map[string]string{"file_path": p})
		return Call{Tool: "Write", Input: in, Cwd: cwd}
	}
	real := func(p string) string {
		r, err := filepath.EvalSymlinks(dir)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(r, p)
	}
	for _, tc := range []struct {
		path, cwd, rule, met string
	}{
		{filepath.Join(dir, "docs/a.md"), "", "docs", ""},
		{"docs/a.md", dir, "docs", ""},
		{"./docs/../docs/a.md", dir, "docs", ""},
		{"docs/../secrets/k", dir, "no-secrets", ""},
		{filepath.Join(dir, "docs/../secrets/k"), "/elsewhere", "no-secrets", ""},
		{"../secrets/k", filepath.Join(dir, "docs"), "no-secrets", ""},
		{"docs/keys/id_rsa", dir, "no-secrets", real("secrets/id_rsa")},
		{"docs/k.md", dir, "no-secrets", real("secrets/k.md")},
		{"docs/relative", dir, "no-secrets", real("secrets/new/deeper")},
		{"work/outdocs/a.md", dir, "", ""}, // the path is not in docs, where it leads is
		{"docs/loop", dir, "docs", ""},
		{"work/a.md", dir, "", ""},
	} {
		d := s.Permit(write(tc.path, tc.cwd))
		if d.Rule != tc.rule || d.Met != tc.met {
			t.Errorf("%s (from %s): rule %q met %q, want %q met %q", tc.path, tc.cwd, d.Rule, d.Met, tc.rule, tc.met)
		}
	}
	if got := PathReadings("docs/../secrets/k", dir); len(got) != 1 || got[0] != filepath.Join(dir, "secrets/k") && got[0] != real("secrets/k") {
		t.Errorf("PathReadings cleans docs/../secrets/k to %q", got)
	}
}

// TestPermitUnjudged: while a deny or fail rule judges Bash commands, a
// call with a part whose commands cannot be seen (a name from an
// expansion, a pattern, text that does not parse) is refused by
// claudewrap, whatever a later rule says; a deny that sees what runs
// refuses it in its own words. With no such rule, it is left to Claude.
func TestPermitUnjudged(t *testing.T) {
	parse := func(src string) *Set {
		t.Helper()
		f, err := Parse("r.yaml", []byte("version: 1\npermissions:\n"+src))
		if err != nil {
			t.Fatal(err)
		}
		return &Set{Files: []*File{f}}
	}
	deny := parse(`  - {name: tests, when: {tool: Bash, command: '^go test \./\.\.\.$'}, decide: allow}
  - {name: no-touch, when: {tool: Bash, command: "^touch "}, decide: {deny: "no touching"}}
  - {name: no-other, when: {tool: ".*"}, decide: allow}
`)
	for _, tc := range []struct {
		command, rule, met string
	}{
		{"go test ./...", "tests", ""},
		{"ls", "no-other", ""},
		{"T=touch; $T MADE", UnjudgedRule, "$T MADE"},
		{"/usr/bin/tou?h MADE", UnjudgedRule, "/usr/bin/tou?h MADE"},
		{"go test -count=$((x)) ./...", UnjudgedRule, "go test -count=$((x)) ./..."},
		{"go test -count=$(( 'a[$(touch MADE)]' )) ./...", "no-touch", "touch MADE"},
		{"hash -p /usr/bin/touch t; t MADE", "no-touch", "touch MADE"},
		{"alias t=touch\nt MADE", "no-touch", "touch MADE"},
		{"taskset 1 touch MADE", "no-touch", "touch MADE"},
		{"true; touch MADE # " + strings.Repeat("(", maxNesting+1), "no-touch", "touch MADE #"},
		{"curl -s x | sh", UnjudgedRule, "sh"},
		{"sh -c 'go test ./...'", "no-other", ""}, // unjudged, but nothing in it is hidden
	} {
		d := deny.Permit(bashCall(tc.command))
		if d.Rule != tc.rule || d.Met != tc.met {
			t.Errorf("%q: rule %q met %q, want %q met %q", tc.command, d.Rule, d.Met, tc.rule, tc.met)
		}
		if d.Rule == UnjudgedRule && (d.Action != Deny || d.File != "r.yaml" || d.Line != 4 ||
			!strings.HasPrefix(d.Message, "claudewrap cannot tell what this command runs (") || !strings.Contains(d.Message, "(no-touch)")) {
			t.Errorf("%q: %+v, want a deny naming the deny rule in force", tc.command, d)
		}
	}
	// No deny or fail rule judges Bash commands: Claude's own dialog has it.
	for _, src := range []string{
		"  - {when: {tool: Bash, command: '^ls$'}, decide: allow}\n",
		"  - {when: {tool: Bash, command: '^touch '}, decide: ask}\n",
		"  - {when: {tool: WebFetch}, decide: {deny: no}}\n  - {when: {tool: Write, path: '/etc/**'}, decide: {deny: no}}\n",
		"  - {when: {tool: Bash, input: 'rm'}, decide: {deny: no}}\n",
	} {
		if d := parse(src).Permit(bashCall("T=touch; $T MADE")); d.Matched() {
			t.Errorf("%s: %+v, want no decision", src, d)
		}
	}
	// A fail rule is in force as a deny is; the refusal is a deny.
	fail := parse("  - {name: no-curl, when: {tool: Bash, command: '^curl '}, decide: fail}\n")
	if d := fail.Permit(bashCall("$X MADE")); d.Rule != UnjudgedRule || d.Action != Deny {
		t.Errorf("under a fail rule: %+v", d)
	}
	if d := fail.Permit(bashCall("$X MADE; curl x")); d.Rule != "no-curl" || d.Action != FailRun {
		t.Errorf("under a fail rule that holds: %+v", d)
	}
}

// TestPermitWrites: an allow whose pattern stops before the end of a part
// does not allow a part that writes a file outside the working folder (a
// path from elsewhere, ~, one leading out through a link); one ending in $
// allows exactly what it spells out.
func TestPermitWrites(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	f, err := Parse("r.yaml", []byte(`version: 1
permissions:
  - {name: prefix, when: {tool: Bash, command: "^go test "}, decide: allow}
  - {name: spelled, when: {tool: Bash, command: '^go vet \./\.\.\. >/tmp/vet\.log$'}, decide: allow}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Files: []*File{f}}
	for _, tc := range []struct {
		command, rule string
	}{
		{"go test ./...", "prefix"},
		{"go test ./... > out.txt 2>&1", "prefix"},
		{"go test ./... > " + filepath.Join(dir, "sub/log"), "prefix"},
		{"go test ./... >/dev/null 2>/dev/stderr", "prefix"},
		{"go test ./... >&2", "prefix"},
		{"go test ./... < /etc/hosts", "prefix"},
		{"go test ./... > ~/.bashrc", ""},
		{"go test ./... >> /tmp/x", ""},
		{"go test ./... &> ../x", ""},
		{"go test ./... > \"$F\"", ""},
		{"go test ./... > out/x", ""}, // out leads outside the folder
		{"go test ./... >& /tmp/x", ""},
		{"go vet ./... >/tmp/vet.log", "spelled"},
		{"go vet ./... >/tmp/other.log", ""},
	} {
		in, _ := json.Marshal(map[string]string{"command": tc.command})
		if d := s.Permit(Call{Tool: "Bash", Input: in, Cwd: dir}); d.Rule != tc.rule {
			t.Errorf("%q: rule %q, want %q", tc.command, d.Rule, tc.rule)
		}
	}
}
