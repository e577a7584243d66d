package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/rules"
)

const (
	demoRules = "../../../../examples/demo.yaml"
	threeForm = "../../../../testdata/forms/three.json"
)

// executeRoot runs the root command with args and returns stdout, stderr
// and the error Main would map to an exit status.
func executeRoot(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := NewCmdRoot(devNull(t), &out, &errb)
	root.SetArgs(args)
	err = execute(root)
	return out.String(), errb.String(), err
}

// executeRootWithin is executeRoot with a deadline: a command that waits
// on a FIFO's other end would wait for ever.
func executeRootWithin(t *testing.T, limit time.Duration, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	type result struct {
		stdout, stderr string
		err            error
	}
	stdin := devNull(t)
	r := testkit.Within(t, limit, strings.Join(args, " "), func() result {
		var out, errb bytes.Buffer
		root := NewCmdRoot(stdin, &out, &errb)
		root.SetArgs(args)
		err := execute(root)
		return result{out.String(), errb.String(), err}
	})
	return r.stdout, r.stderr, r.err
}

// status is the exit status Main returns for err.
func status(err error) ExitCode {
	if err == nil {
		return ExitOK
	}
	return codeOf(err)
}

func TestRulesFlags(t *testing.T) {
	var check *RulesCheckOptions
	var test *RulesTestOptions
	runF := &RulesRunFuncs{
		Check: func(o *RulesCheckOptions) error { check = o; return nil },
		Test:  func(o *RulesTestOptions) error { test = o; return nil },
	}
	cmd := NewCmdRules(nil, nil, runF)
	cmd.SetArgs([]string{"check", "a.yaml", "b.yaml"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if check == nil || strings.Join(check.Files, "|") != "a.yaml|b.yaml" {
		t.Errorf("check options %+v", check)
	}
	cmd = NewCmdRules(nil, nil, runF)
	cmd.SetArgs([]string{"test", "a.yaml", "--form", "f.json", "b.yaml"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if test == nil || strings.Join(test.Files, "|") != "a.yaml|b.yaml" || test.Form != "f.json" {
		t.Errorf("test options %+v", test)
	}
}

func TestRulesUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rules", "check"}, "needs one or more rules FILEs"},
		{[]string{"rules", "test", "--form", threeForm}, "needs one or more rules FILEs"},
		{[]string{"rules", "test", demoRules}, "give --form FORM.json, --tool NAME for a permission request, or --elicitation ASK.json for an MCP server's input form"},
		{[]string{"rules", "test", demoRules, "--form"}, "flag needs an argument"},
		{[]string{"rules", "check", "--strikt", demoRules}, "unknown flag --strikt: did you mean --strict?"},
		{[]string{"rules", "check", "--everything", demoRules}, "unknown flag: --everything (see 'claudewrap rules check --help')"},
		{[]string{"rules", "lint", demoRules}, `unknown command "lint" for "claudewrap rules"`},
		{[]string{"rules", "chek", demoRules}, "unknown command \"chek\" for \"claudewrap rules\"\nDid you mean this? check"},
	} {
		_, _, err := executeRoot(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
			continue
		}
		if code := status(err); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, code, ExitUsage)
		}
	}
	// Without a subcommand: help, exit 0.
	out, _, err := executeRoot(t, "rules")
	if err != nil || !strings.Contains(out, "check") || !strings.Contains(out, "test") {
		t.Errorf("rules: %v\n%s", err, out)
	}
}

func TestRulesCheck(t *testing.T) {
	examples, err := filepath.Glob("../../../../examples/*.yaml")
	if err != nil || len(examples) < 4 {
		t.Fatalf("examples %q %v", examples, err)
	}
	out, errOut, err := executeRoot(t, append([]string{"rules", "check"}, examples...)...)
	if err != nil || errOut != "" {
		t.Fatalf("examples: %v\n%s", err, errOut)
	}
	if want := "../../../../examples/demo.yaml: ok (3 rules)\n"; !strings.Contains(out, want) {
		t.Errorf("stdout %q lacks %q", out, want)
	}
	if n := strings.Count(out, ": ok ("); n != len(examples) {
		t.Errorf("%d ok lines for %d files:\n%s", n, len(examples), out)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 2\nrules:\n  - when: {header: \"(\"}\n    answer: {select: [a, a], cancel: true}\n  - name: x\n"), 0o644)
	one := filepath.Join(dir, "one.yaml")
	os.WriteFile(one, []byte("version: 1\nrules:\n  - answer: {cancel: true}\n"), 0o644)
	missing := filepath.Join(dir, "missing.yaml")
	// A rule's program that cannot be run is a problem at its place.
	progs := filepath.Join(dir, "progs.yaml")
	os.WriteFile(progs, []byte("version: 1\nrules:\n  - answer: {exec: [./nowhere, -x]}\n  - answer: {exec: [no-such-program-claudewrap]}\n  - answer: {selekt: A}\n"), 0o644)
	out, errOut, err = executeRoot(t, "rules", "check", bad, one, progs, missing, dir)
	if code := status(err); code != ExitError {
		t.Errorf("exit %d (%v), want %d", code, err, ExitError)
	}
	if out != one+": ok (1 rule)\n" {
		t.Errorf("stdout %q", out)
	}
	want := strings.Join([]string{
		bad + ":1:10: version must be 1",
		bad + ":3:20: header: bad regular expression: error parsing regexp: missing closing ): `(`",
		bad + ":4:13: answer has several actions (select, cancel): give exactly one",
		bad + `:4:26: select: "a" named twice`,
		bad + ":5:5: rule has no answer",
		progs + `:3:21: exec: no program "./nowhere" (` + filepath.Join(dir, "nowhere") + ` does not exist; a path is relative to the rules file)`,
		progs + `:4:21: exec: no program "no-such-program-claudewrap" in PATH`,
		// Told with the file's other problems, in the order of the file.
		progs + `:5:14: unknown key "selekt" in answer (want one of cancel, chat, exec, notes, select, type)`,
		"rules file " + missing + ": no such file",
		"rules file " + dir + ": a folder, not a file; name the rules file in it",
	}, "\n") + "\n"
	if errOut != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
	}

	// --skip-programs leaves the programs out, and nothing else.
	out, errOut, err = executeRoot(t, "rules", "check", "--skip-programs", progs)
	if code := status(err); code != ExitError {
		t.Errorf("--skip-programs: exit %d (%v), want %d", code, err, ExitError)
	}
	if want := progs + `:5:14: unknown key "selekt" in answer (want one of cancel, chat, exec, notes, select, type)` + "\n"; out != "" || errOut != want {
		t.Errorf("--skip-programs: stdout %q, stderr:\n%s\nwant:\n%s", out, errOut, want)
	}
	os.WriteFile(progs, []byte("version: 1\nrules:\n  - answer: {exec: [./nowhere, -x]}\n"), 0o644)
	out, errOut, err = executeRoot(t, "rules", "check", "--skip-programs", progs)
	if err != nil || errOut != "" || out != progs+": ok (1 rule)\n" {
		t.Errorf("--skip-programs on a good file: %v, stdout %q, stderr %q", err, out, errOut)
	}
}

func TestRulesTest(t *testing.T) {
	out, errOut, err := executeRoot(t, "rules", "test", demoRules, "--form", threeForm)
	if err != nil || errOut != "" {
		t.Fatalf("%v\n%s", err, errOut)
	}
	want := `1. [Database] Which database should we use?
   single-select: "PostgreSQL", "SQLite", "MongoDB"
   rule "database" (../../../../examples/demo.yaml:18): select "SQLite"
2. [Features] Which features should we build?
   multi-select: "Auth", "Export", "Search", "API"
   rule "features" (../../../../examples/demo.yaml:27): select "Auth", "API"
3. [Naming] How should we name things?
   single-select: "camelCase", "snake_case"
   rule "naming" (../../../../examples/demo.yaml:34): type "snake_case, like the rest of the repo"
on_unmatched: passthrough; answer_timeout: none
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
}

func TestRulesTestUnmatched(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.yaml")
	os.WriteFile(first, []byte(`version: 1
rules:
  - name: db-list
    when: {header: Database}
    answer: {select: [SQLite]}
  - name: not-offered
    when: {header: Naming}
    answer: {select: kebab-case}
`), 0o644)
	second := filepath.Join(dir, "second.yaml")
	os.WriteFile(second, []byte(`version: 1
defaults:
  on_unmatched: fallback
  answer_timeout: 90s
  fallback: {type: "Use your judgment."}
rules:
  - name: naming-later
    when: {header: Naming}
    answer: {type: never used}
`), 0o644)
	// A whole PreToolUse payload, not just its tool_input.
	payload := filepath.Join(dir, "payload.json")
	form, err := os.ReadFile(threeForm)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(payload, []byte(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_1","tool_input":`+string(form)+`}`), 0o644)

	out, errOut, err := executeRoot(t, "rules", "test", first, second, "--form", payload)
	// Unmatched questions fail the gate: exit 1, and why.
	if codeOf(err) != ExitError || err == nil || !strings.Contains(err.Error(), "3 questions of the form no rule answers") || errOut != "" {
		t.Fatalf("want exit 1 naming 3 unmatched questions, got %v (exit %d)\n%s", err, codeOf(err), errOut)
	}
	want := `1. [Database] Which database should we use?
   single-select: "PostgreSQL", "SQLite", "MongoDB"
   unmatched: rule "db-list" (` + first + `:3) cannot answer: a list of labels on a single-select question
   fallback: type "Use your judgment."
2. [Features] Which features should we build?
   multi-select: "Auth", "Export", "Search", "API"
   unmatched: no rule matches
   fallback: none (fallback cannot answer: a typed answer on a multi-select question is not supported)
3. [Naming] How should we name things?
   single-select: "camelCase", "snake_case"
   unmatched: rule "not-offered" (` + first + `:6) cannot answer: label "kebab-case" is not offered (offered: ["camelCase" "snake_case"])
   fallback: type "Use your judgment."
on_unmatched: fallback; answer_timeout: 1m30s
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}

	// chat and cancel say that they end the form.
	chat := filepath.Join(dir, "chat.yaml")
	os.WriteFile(chat, []byte("version: 1\ndefaults: {fallback: {cancel: true}}\nrules:\n  - {when: {header: Features}, answer: {chat: \"Let us talk.\"}}\n"), 0o644)
	out, _, err = executeRoot(t, "rules", "test", chat, "--form", threeForm)
	if codeOf(err) != ExitError {
		t.Fatalf("two questions unmatched: %v", err)
	}
	for _, line := range []string{
		`   rule "rule at line 4" (` + chat + `:4): chat "Let us talk." (ends the whole form)`,
		`   fallback: cancel (ends the whole form)`,
		`on_unmatched: not set (run decides: passthrough on a terminal, else ask or fail); answer_timeout: none`,
	} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("stdout lacks %q:\n%s", line, out)
		}
	}
}

func TestRulesTestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\nrules: {}\n"), 0o644)
	notForm := filepath.Join(dir, "form.json")
	os.WriteFile(notForm, []byte(`{"tool_input": {}}`), 0o644)
	fifo := testkit.FIFO(t, filepath.Join(dir, "fifo.json"))
	big := testkit.Sparse(t, filepath.Join(dir, "big.json"), 4<<20+1)
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string // printed by the command
		err    string // printed by Main
	}{
		{"bad rules", []string{bad, "--form", threeForm}, bad + ":2:8: rules must be a list, not a mapping\n", ""},
		{"no rules file", []string{filepath.Join(dir, "none.yaml"), "--form", threeForm}, "rules file " + filepath.Join(dir, "none.yaml") + ": no such file\n", ""},
		{"no form file", []string{demoRules, "--form", filepath.Join(dir, "none.json")}, "", filepath.Join(dir, "none.json") + ": no such file or directory"},
		{"not a form", []string{demoRules, "--form", notForm}, "", notForm + ": no questions"},
		{"not JSON", []string{demoRules, "--form", demoRules}, "", demoRules + ": not a form"},
		{"a FIFO", []string{demoRules, "--form", fifo}, "", fifo + ": not a regular file (a FIFO)"},
		{"past the limit", []string{demoRules, "--form", big}, "", big + ": 4194305 bytes; at most 4194304 allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := executeRootWithin(t, 10*time.Second, append([]string{"rules", "test"}, tc.args...)...)
			// 2, as run exits for the same input; 1 is the gate's "unmatched".
			if code := status(err); code != ExitUsage {
				t.Errorf("exit %d (%v), want %d", code, err, ExitUsage)
			}
			if out != "" || errOut != tc.stderr {
				t.Errorf("stdout %q, stderr %q, want stderr %q", out, errOut, tc.stderr)
			}
			var ee *exitError
			if tc.err == "" && (err == nil || !errors.As(err, &ee) || ee.err != nil) {
				t.Errorf("error %v: Main would print it again", err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// TestRulesCheckProcess runs claudewrap itself (this test binary) to check
// the exit statuses and that each error is printed exactly once.
const (
	permRules   = "../../../../examples/permissions.yaml"
	elicitRules = "../../../../examples/elicitations.yaml"
	deployAsk   = "../../../../testdata/forms/deploy-elicitation.json"
)

func TestRulesCheckProcess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\nrules:\n  - answer: {select: {index: 5}}\n"), 0o644)
	// What run refuses, rules check refuses, at the same place.
	fallbackless := filepath.Join(dir, "fallbackless.yaml")
	os.WriteFile(fallbackless, []byte("version: 1\ndefaults: {on_unmatched: fallback}\n"), 0o644)
	timed := filepath.Join(dir, "timed.yaml")
	os.WriteFile(timed, []byte("version: 1\ndefaults: {answer_timeout: 1m}\n"), 0o644)
	lookahead := filepath.Join(dir, "lookahead.yaml")
	os.WriteFile(lookahead, []byte("version: 1\nrules:\n  - when: {question: 'deploy(?!ment)'}\n    answer: {cancel: true}\n"), 0o644)
	askRules := filepath.Join(dir, "ask.yaml")
	os.WriteFile(askRules, []byte("version: 1\npermissions:\n  - {name: mine, when: {tool: Bash}, decide: ask}\n"), 0o644)
	cmdRules := filepath.Join(dir, "commands.yaml")
	os.WriteFile(cmdRules, []byte(`version: 1
permissions:
  - {name: tests, when: {tool: Bash, command: "^go test "}, decide: allow}
  - {name: no-touch, when: {tool: Bash, command: "^touch "}, decide: {deny: "no touching"}}
  - {name: no-secrets, when: {tool: Write, path: "**/secrets/**"}, decide: {deny: "not there"}}
`), 0o644)
	bypass := filepath.Join(dir, "bypass.yaml")
	os.WriteFile(bypass, []byte("version: 1\ndialogs: {bypass_permissions: accept}\n"), 0o644)
	bypassTrue := filepath.Join(dir, "bypass-true.yaml")
	os.WriteFile(bypassTrue, []byte("version: 1\ndialogs:\n  bypass_permissions: true\n"), 0o644)
	elicitViaHook := filepath.Join(dir, "via-hook.yaml")
	os.WriteFile(elicitViaHook, []byte("version: 1\ndefaults: {answer_via: hook}\n"), 0o644)
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"rules", "check", demoRules}, 0, demoRules + ": ok (3 rules)\n", ""},
		{[]string{"rules", "check", bad}, 1, "", bad + ":3:30: index must be a whole number from 1 to 4\n"},
		{[]string{"rules", "check"}, 2, "", "claudewrap: claudewrap rules check needs one or more rules FILEs (see 'claudewrap rules check --help')\n"},
		{[]string{"rules", "chek", demoRules}, 2, "", "claudewrap: unknown command \"chek\" for \"claudewrap rules\"\nclaudewrap: Did you mean this? check\n"},
		{[]string{"rules", "check", fallbackless}, 1, "", fallbackless + ":2:26: on_unmatched: fallback needs a fallback answer in the rules' defaults " +
			"(defaults: {fallback: …}) to answer unmatched questions with; add one, or choose another policy\n"},
		{[]string{"rules", "check", "--skip-programs", timed}, 1, "", timed + ":2:28: answer_timeout: 1m0s needs a fallback answer in the rules' defaults " +
			"(defaults: {fallback: …}) to answer with when it runs out; add one, or drop the timeout\n"},
		// A Perl feature RE2 lacks: Go's error, and a hint.
		{[]string{"rules", "check", lookahead}, 1, "", lookahead + ":3:22: question: bad regular expression: error parsing regexp: " +
			"invalid or unsupported Perl syntax: `(?!`; RE2 (Go's regexp) has no lookaround or backreferences; see https://github.com/google/re2/wiki/Syntax\n"},
		{[]string{"run", "--headless", "--rules", fallbackless}, 2, "", "claudewrap: " + fallbackless + ":2:26: on_unmatched: fallback needs a fallback answer " +
			"in the rules' defaults (defaults: {fallback: …}) to answer unmatched questions with; add one, or choose another policy\n"},
		{[]string{"rules", "test", demoRules, "--form", threeForm}, 0, "", ""},
		{[]string{"rules", "test", bad, "--form", threeForm}, 2, "", bad + ":3:30: index must be a whole number from 1 to 4\n"},
		{[]string{"rules", "test", demoRules}, 2, "", "claudewrap: give --form FORM.json, --tool NAME for a permission request, or --elicitation ASK.json for an MCP server's input form\n"},
		{[]string{"rules", "test", permRules, "--tool", "Bash", "--input", `{"command":"git push"}`}, 0,
			"Bash {\"command\":\"git push\"}\n   part 1: git push\n      meets permission \"never-push\" (" + permRules +
				":22): deny \"Do not push from this job; leave the commit for review.\"\n   permission \"never-push\" (" + permRules +
				":22): deny \"Do not push from this job; leave the commit for review.\", through the PermissionRequest hook\n", ""},
		// A command is shown part by part, each with the rule it meets.
		{[]string{"rules", "test", cmdRules, "--command", "go test ./... && rm -rf x"}, 1,
			"Bash {\"command\":\"go test ./... && rm -rf x\"}\n" +
				"   part 1: go test ./...\n      meets permission \"tests\" (" + cmdRules + ":3): allow\n" +
				"   part 2: rm -rf x\n      meets no command rule\n" +
				"   an allow needs all 2 parts allowed by the one rule; a deny or ask, one\n" +
				"   unmatched: no permission rule matches (at a terminal the dialog is yours; headless the run is blocked, exit 7)\n",
			"claudewrap: no permission rule matches Bash: a headless run would be blocked (exit 7)\n"},
		{[]string{"rules", "test", cmdRules, "--tool", "Bash", "--command", "eval 'touch F'"}, 0,
			"Bash {\"command\":\"eval 'touch F'\"}\n" +
				"   part 1: eval 'touch F'\n      cannot be judged: eval runs its words as commands; no rule allows it\n      meets no command rule\n" +
				"   part 2 (inside eval): touch F\n      meets permission \"no-touch\" (" + cmdRules + ":4): deny \"no touching\"\n" +
				"   an allow needs all 2 parts allowed by the one rule; a deny or ask, one\n" +
				"   permission \"no-touch\" (" + cmdRules + ":4): deny \"no touching\", through the PermissionRequest hook\n      met by touch F\n", ""},
		// What a deny cannot see into is refused while one is in force.
		{[]string{"rules", "test", cmdRules, "--command", "T=touch; $T F"}, 0,
			"Bash {\"command\":\"T=touch; $T F\"}\n" +
				"   part 1: T=touch\n      meets no command rule\n" +
				"   part 2: $T F\n      cannot be judged: the command's name comes from an expansion; no rule allows it\n" +
				"      what it runs is hidden from a deny too: while a deny or fail rule judges commands, the call is refused\n      meets no command rule\n" +
				"   an allow needs all 2 parts allowed by the one rule; a deny or ask, one\n" +
				"   permission \"unjudged\" (" + cmdRules + ":4): deny \"claudewrap cannot tell what this command runs (the command's name comes from an expansion: $T F), " +
				"and a deny rule is in force (no-touch): run it with every command it runs named plainly in it\", through the PermissionRequest hook\n      met by $T F\n", ""},
		{[]string{"rules", "test", cmdRules, "--command", "nohup go test ./..."}, 0,
			"Bash {\"command\":\"nohup go test ./...\"}\n" +
				"   part 1: nohup go test ./...\n      a wrapper: an allow needs only the command it runs, the next part\n      meets no command rule\n" +
				"   part 2 (run by nohup): go test ./...\n      meets permission \"tests\" (" + cmdRules + ":3): allow\n" +
				"   an allow needs all 2 parts allowed by the one rule; a deny or ask, one\n" +
				"   permission \"tests\" (" + cmdRules + ":3): allow, through the PermissionRequest hook\n", ""},
		// A path as the rules see it: cleaned, absolute from --cwd.
		{[]string{"rules", "test", cmdRules, "--tool", "Write", "--input", `{"file_path":"docs/../secrets/k"}`, "--cwd", "/work/x"}, 0,
			"Write {\"file_path\":\"docs/../secrets/k\"}\n   path: /work/x/secrets/k\n" +
				"   permission \"no-secrets\" (" + cmdRules + ":5): deny \"not there\", through the PermissionRequest hook\n", ""},
		{[]string{"rules", "test", cmdRules, "--command", "ls", "--input", "{}"}, 2, "",
			"claudewrap: --command is the input of a Bash call: give it or --input, not both\n"},
		{[]string{"rules", "test", cmdRules, "--form", threeForm, "--cwd", "/"}, 2, "",
			"claudewrap: --input and --cwd go with --tool\n"},
		{[]string{"rules", "test", demoRules, "--tool", "Bash"}, 1, "Bash {}\n   unmatched: no permission rule matches " +
			"(at a terminal the dialog is yours; headless the run is blocked, exit 7)\n",
			"claudewrap: no permission rule matches Bash: a headless run would be blocked (exit 7)\n"},
		{[]string{"rules", "test", permRules, "--tool", "Bash", "--input", "[1]"}, 2, "",
			"claudewrap: --input: want a JSON object: json: cannot unmarshal array into Go value of type map[string]interface {}\n"},
		{[]string{"rules", "check", permRules}, 0, permRules + ": ok (0 rules, 7 permissions, trusts the folder)\n", ""},
		{[]string{"rules", "check", elicitRules}, 0, elicitRules + ": ok (0 rules, 2 elicitations)\n", ""},
		{[]string{"rules", "test", elicitRules, "--elicitation", deployAsk}, 0, "MCP server \"deploy\": Which environment should I deploy to?\n" +
			"   elicitation \"deploy-to-staging\" (" + elicitRules + ":9): accept {\"confirm\":false,\"env\":\"staging\"}, " +
			"on Claude's screen, as a run answers by default (--answer-via hook: through the Elicitation hook)\n", ""},
		// The rules' answer_via says how a run answers.
		{[]string{"rules", "test", elicitRules, elicitViaHook, "--elicitation", deployAsk}, 0, "MCP server \"deploy\": Which environment should I deploy to?\n" +
			"   elicitation \"deploy-to-staging\" (" + elicitRules + ":9): accept {\"confirm\":false,\"env\":\"staging\"}, " +
			"through the Elicitation hook, as the rules' answer_via: hook says (--answer-via screen: on Claude's screen)\n", ""},
		{[]string{"rules", "test", demoRules, "--elicitation", deployAsk}, 1, "MCP server \"deploy\": Which environment should I deploy to?\n" +
			"   unmatched: no elicitation rule matches (at a terminal the form is yours; headless the run is blocked, exit 7)\n",
			"claudewrap: no elicitation rule matches MCP server \"deploy\": a headless run would be blocked (exit 7)\n"},
		{[]string{"rules", "test", elicitRules, "--elicitation", threeForm}, 2, "",
			"claudewrap: " + threeForm + ": want the server (mcp_server_name or server), message and requested_schema of an elicitation\n"},
		{[]string{"rules", "test", elicitRules, "--elicitation", deployAsk, "--tool", "Bash"}, 2, "",
			"claudewrap: give --form FORM.json, --tool NAME for a permission request, or --elicitation ASK.json for an MCP server's input form\n"},
		{[]string{"rules", "check", bypass}, 0, bypass + ": ok (0 rules, accepts bypass permissions mode)\n", ""},
		{[]string{"rules", "check", bypassTrue}, 1, "", bypassTrue + ":3:23: bypass_permissions must be accept, not a boolean\n"},
		// A rule that fails the run, or leaves the dialog to the person, is
		// the gate's 1 too: a headless run would end there with 7.
		{[]string{"rules", "test", permRules, "--tool", "NotebookEdit"}, 1, "NotebookEdit {}\n   permission \"everything-else\" (" + permRules +
			":49): fail, through the PermissionRequest hook: the run ends (exit 7)\n",
			"claudewrap: permission rule \"everything-else\" fails the run on NotebookEdit (exit 7)\n"},
		{[]string{"rules", "test", askRules, "--tool", "Bash"}, 1, "Bash {}\n   permission \"mine\" (" + askRules +
			":3): ask, by the person (headless: blocked, exit 7)\n",
			"claudewrap: permission rule \"mine\" leaves Bash to the person: a headless run would be blocked (exit 7)\n"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, exe, tc.args...)
		cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		cancel()
		if got := cmd.ProcessState.ExitCode(); got != tc.code {
			t.Errorf("%v: exit %d, want %d; stderr %q", tc.args, got, tc.code, errb.String())
		}
		if tc.stdout != "" && out.String() != tc.stdout {
			t.Errorf("%v: stdout %q, want %q", tc.args, out.String(), tc.stdout)
		}
		if errb.String() != tc.stderr {
			t.Errorf("%v: stderr %q, want %q", tc.args, errb.String(), tc.stderr)
		}
	}
}

// TestNotActingUnreadable: a folder's rules file that cannot be read is
// named once, with the reason in a person's words.
func TestNotActingUnreadable(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, ".claudewrap.yaml"), filepath.Join(dir, ".claudewrap.yaml") + " does not act: no such file"},
		{dir, dir + " does not act: a folder, not a file; name the rules file in it"},
	} {
		_, err := rules.ReadFile(tc.path)
		if got := notActing(rules.Ignored{Path: tc.path, Why: err}); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}

// TestUnknownSubcommand: a name that is no subcommand, of the root or of
// rules, is a usage error that suggests the names it is close to, each
// line of it said after "claudewrap: " by Main.
func TestUnknownSubcommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rules", "chek"}, "unknown command \"chek\" for \"claudewrap rules\"\nDid you mean this? check"},
		{[]string{"rules", "tset", "a.yaml"}, "unknown command \"tset\" for \"claudewrap rules\"\nDid you mean this? test"},
		{[]string{"rules", "allwo"}, "unknown command \"allwo\" for \"claudewrap rules\"\nDid you mean this? allow"},
		{[]string{"rules", "lint"}, "unknown command \"lint\" for \"claudewrap rules\""},
		{[]string{"rnu"}, "unknown command \"rnu\" for \"claudewrap\"\nDid you mean this? run"},
		{[]string{"ru"}, "unknown command \"ru\" for \"claudewrap\"\nDid you mean this? run, rules"},
		{[]string{"nosuch"}, "unknown command \"nosuch\" for \"claudewrap\""},
	} {
		out, errOut, err := executeRoot(t, tc.args...)
		if err == nil || err.Error() != tc.want || status(err) != ExitUsage || out != "" || errOut != "" {
			t.Errorf("%v: error %q (exit %d), stdout %q, stderr %q; want %q, exit %d", tc.args, err, status(err), out, errOut, tc.want, ExitUsage)
		}
	}
	// Without a name: help, exit 0.
	for _, args := range [][]string{nil, {"rules"}} {
		out, _, err := executeRoot(t, args...)
		if err != nil || !strings.Contains(out, "Available Commands:") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
}

// TestRulesCheckWarnings: a rule that can never act or never answer is a
// warning on stderr, file:line: warning: message; the status stays 0, and
// the file ok, unless --strict. Text the screen cannot show as typed is
// held to the check answer --type uses.
func TestRulesCheckWarnings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	clean := write("clean.yaml", "version: 1\nrules:\n  - {when: {header: A}, answer: {type: snake_case}}\n")
	shadowed := write("shadowed.yaml", `version: 1
rules:
  - {when: {header: A}, answer: {cancel: true}}
  - {when: {header: A}, answer: {cancel: true}}
`)
	texts := write("texts.yaml", `version: 1
defaults:
  fallback:
    type: "go on\u200b"
rules:
  - when: {header: A}
    answer:
      type: "snake\u200bcase"
  - {when: {header: B}, answer: {chat: "x\uFE0F"}}
  - {when: {header: C}, answer: {select: Sidebar, notes: "\u0301"}}
  - answer: {type: fine}
`)
	for _, tc := range []struct {
		name   string
		args   []string
		code   ExitCode
		stdout string
		stderr []string
	}{
		{"clean", []string{clean}, ExitOK, clean + ": ok (1 rule)\n", nil},
		{"never reached", []string{shadowed, clean}, ExitOK, shadowed + ": ok (2 rules)\n" + clean + ": ok (1 rule)\n", []string{
			shadowed + ":4: warning: this rule is never reached: its when is the same as the rule's at line 3, which answers first",
		}},
		{"text the screen cannot show", []string{texts}, ExitOK, texts + ": ok (4 rules)\n", []string{
			texts + `:4: warning: type: "go on\u200b" holds an invisible character (U+200B), which the screen cannot show as typed: typing it could not be confirmed; the fallback can never answer`,
			texts + `:8: warning: type: "snake\u200bcase" holds an invisible character (U+200B), which the screen cannot show as typed: typing it could not be confirmed; this rule can never answer`,
			texts + ":9: warning: chat: \"x\ufe0f\" holds" + ` a variation selector (U+FE0F), which the screen cannot show as typed: typing it could not be confirmed; this rule can never answer`,
			texts + ":10: warning: notes: \"\u0301\" holds" + ` a combining mark (U+0301), which the screen cannot show as typed: typing it could not be confirmed; this rule can never answer`,
		}},
		{"strict", []string{"--strict", shadowed, clean}, ExitError, clean + ": ok (1 rule)\n", []string{
			shadowed + ":4: warning: this rule is never reached: its when is the same as the rule's at line 3, which answers first",
		}},
		{"strict and clean", []string{"--strict", clean}, ExitOK, clean + ": ok (1 rule)\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := executeRoot(t, append([]string{"rules", "check"}, tc.args...)...)
			if code := status(err); code != tc.code {
				t.Errorf("exit %d (%v), want %d", code, err, tc.code)
			}
			want := ""
			if len(tc.stderr) > 0 {
				want = strings.Join(tc.stderr, "\n") + "\n"
			}
			if out != tc.stdout || errOut != want {
				t.Errorf("stdout %q, want %q\nstderr:\n%s\nwant:\n%s", out, tc.stdout, errOut, want)
			}
		})
	}
}
