package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/bundle"
	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/peercred"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/screen"
)

// execute runs the root command with args and returns its error and stdout.
func executeCmd(t *testing.T, stdin *os.File, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := NewCmdRoot(stdin, &out, &errb)
	root.SetArgs(args)
	err := execute(root)
	return out.String(), err
}

func devNull(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestRunFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want RunOptions
	}{
		{"defaults headless without a terminal", []string{}, RunOptions{Headless: true, Cols: 120, Rows: 40}},
		{"size and args", []string{"--size", "60x20", "--record", "x.cast", "--", "hello", "--verbose"},
			RunOptions{Headless: true, Cols: 60, Rows: 20, Record: "x.cast", ClaudeArgs: []string{"hello", "--verbose"}}},
		{"claude and events", []string{"--claude", "/bin/true", "--events", "e.jsonl"},
			RunOptions{Headless: true, Cols: 120, Rows: 40, Claude: "/bin/true", Events: "e.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *RunOptions
			cmd := NewCmdRun(devNull(t), nil, nil, func(o *RunOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			t.Setenv("CLAUDEWRAP_CLAUDE", "")
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			got.Stdin, got.Stdout, got.Stderr = nil, nil, nil
			if got.Claude != tc.want.Claude || got.Headless != tc.want.Headless || got.Cols != tc.want.Cols ||
				got.Rows != tc.want.Rows || got.Record != tc.want.Record || got.Events != tc.want.Events ||
				strings.Join(got.ClaudeArgs, "|") != strings.Join(tc.want.ClaudeArgs, "|") {
				t.Errorf("options %+v, want %+v", *got, tc.want)
			}
		})
	}
}

func TestRunClaudeFromEnv(t *testing.T) {
	t.Setenv("CLAUDEWRAP_CLAUDE", "/opt/claude")
	var got *RunOptions
	cmd := NewCmdRun(devNull(t), nil, nil, func(o *RunOptions) error { got = o; return nil })
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Claude != "/opt/claude" {
		t.Errorf("Claude = %q", got.Claude)
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--size", "big"}, "--size"},
		{[]string{"run", "--size", "10x2"}, "--size"},
		{[]string{"run", "--on-unmatched", "sometimes"}, `unknown policy "sometimes"`},
		{[]string{"run", "--answer-timeout", "-3m"}, "--answer-timeout must not be negative"},
		{[]string{"run", "--idle-timeout", "-1s"}, "--idle-timeout must not be negative"},
		{[]string{"run", "--no-such-flag"}, "unknown flag"},
		{[]string{"replay"}, "replay needs one recording"},
		{[]string{"nosuch"}, `unknown command "nosuch"`},
		{[]string{"version", "extra"}, "unknown command"},
		{[]string{"replay", "--at", "-1", "x.cast"}, "--at"},
	} {
		_, err := executeCmd(t, devNull(t), tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
			continue
		}
		if code := codeOf(err); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, code, ExitUsage)
		}
	}
}

func TestMissingClaude(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "claude")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	t.Setenv("PATH", dir)
	for _, tc := range []struct {
		flag, want string
	}{
		{"", "claude not found on PATH"},
		{filepath.Join(dir, "nope"), "does not exist"},
		{notExec, "is not executable"},
	} {
		args := []string{"run", "--headless", "--events", filepath.Join(dir, "ev.jsonl")}
		if tc.flag != "" {
			args = append(args, "--claude", tc.flag)
		}
		_, err := executeCmd(t, devNull(t), args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || codeOf(err) != ExitStart {
			t.Errorf("--claude %q: %v (exit %d), want %q and exit 3", tc.flag, err, codeOf(err), tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	out, err := executeCmd(t, devNull(t), "version")
	if err != nil || !strings.HasPrefix(out, "claudewrap ") || !strings.Contains(out, "go1.") {
		t.Errorf("version: %q, %v", out, err)
	}
}

// TestVersionFlag: --version prints what `version` does.
func TestVersionFlag(t *testing.T) {
	out, err := executeCmd(t, devNull(t), "--version")
	want, _ := executeCmd(t, devNull(t), "version")
	if err != nil || out != want {
		t.Errorf("--version: %q, %v; version: %q", out, err, want)
	}
}

// TestHelpHidesHook: `hook` is Claude Code's, not people's: not in --help,
// still runnable.
func TestHelpHidesHook(t *testing.T) {
	out, err := executeCmd(t, devNull(t), "--help")
	if err != nil || strings.Contains(out, "hook") || !strings.Contains(out, "run") {
		t.Errorf("--help: %v\n%s", err, out)
	}
	if _, err := executeCmd(t, devNull(t), "hook", "--help"); err != nil {
		t.Errorf("hook --help: %v", err)
	}
}

// TestCompleteOnUnmatched: completion offers the policies.
func TestCompleteOnUnmatched(t *testing.T) {
	out, err := executeCmd(t, devNull(t), "__complete", "run", "--on-unmatched", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"passthrough", "ask", "fallback", "wait", "cancel", "fail"} {
		if !strings.Contains(out, p+"\n") {
			t.Errorf("completion lacks %s:\n%s", p, out)
		}
	}
}

// TestRunClaudeFlagHint: a claude flag given before -- is a usage error
// that says where claude's flags go.
func TestRunClaudeFlagHint(t *testing.T) {
	_, err := executeCmd(t, devNull(t), "run", "--model", "opus")
	if codeOf(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), "after --") {
		t.Errorf("run --model: %v (exit %d)", err, codeOf(err))
	}
}

func TestHelpMentionsEveryRunFlag(t *testing.T) {
	cmd := NewCmdRun(devNull(t), nil, nil, nil)
	for _, name := range []string{"claude", "rules", "headless", "size", "on-unmatched", "answer-timeout",
		"exit-after-turn", "events", "record", "dry-run"} {
		if cmd.Flags().Lookup(name) == nil {
			t.Errorf("run has no --%s", name)
		}
	}
	var _ *cobra.Command = cmd
}

func TestReplayPrintsScreenAndForm(t *testing.T) {
	out, err := executeCmd(t, devNull(t), "replay", "../../../../testdata/screens/2.1.330/database-focus-2-100x40.cast")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"❯ 2. SQLite", "header: Database", `option 2: "SQLite" (Embedded, simple)  <focus>`, "focus: option 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}
	// At 0 seconds nothing has been drawn yet: no form.
	out, err = executeCmd(t, devNull(t), "replay", "--at", "0", "../../../../testdata/screens/2.1.330/database-focus-2-100x40.cast")
	if err != nil || !strings.Contains(out, "no form on screen") {
		t.Errorf("replay --at 0: %v\n%s", err, out)
	}
	if _, err := executeCmd(t, devNull(t), "replay", "missing.cast"); err == nil {
		t.Error("replay of a missing file succeeded")
	}
}

// TestReplayTakesTheVersion: replay measures spacing marks by the Claude Code
// version the recording's header names (a bug report's recording starts from
// a drawing of the screen, with no banner to read it from).
func TestReplayTakesTheVersion(t *testing.T) {
	const page = "\x1b[H❯ 1. हिन्दी में │ end"
	line := func(version string) string {
		em := screen.New(screen.Options{Cols: 40, Rows: 4, Version: version})
		em.Write([]byte(page))
		return strings.SplitN(em.Snapshot().Text(), "\n", 2)[0]
	}
	old, newest := line("2.1.227"), line("")
	if old == newest {
		t.Fatalf("the page reads %q on both versions: the test proves nothing", old)
	}
	for version, want := range map[string]string{"2.1.227": old, "": newest} {
		path := filepath.Join(t.TempDir(), "x.cast")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := cast.NewWriter(f, 40, 4, version)
		if err != nil {
			t.Fatal(err)
		}
		w.Output([]byte(page))
		if err := errors.Join(w.Err(), f.Close()); err != nil {
			t.Fatal(err)
		}
		out, err := executeCmd(t, devNull(t), "replay", path)
		if err != nil || !strings.HasPrefix(out, want+"\n") {
			t.Errorf("replay of a recording of version %q: %v\n%s\nwant it to open with %q", version, err, out, want)
		}
	}
}

// TestReplayBundle replays a bug-report bundle: the screen, the form on it,
// and for each question the hook reported whether the screen shows it.
func TestReplayBundle(t *testing.T) {
	rec, err := os.ReadFile("../../../../testdata/screens/2.1.330/three-features-100x40.cast")
	if err != nil {
		t.Fatal(err)
	}
	opts := func(labels ...string) []answer.Option {
		var o []answer.Option
		for _, l := range labels {
			o = append(o, answer.Option{Label: l})
		}
		return o
	}
	dir, err := bundle.Write(t.TempDir(), bundle.Report{
		Time:      time.Now(),
		ToolUseID: "toolu_01three",
		Questions: []answer.Question{
			{Question: "Which database should we use?", Header: "Database", Options: opts("PostgreSQL", "SQLite", "MongoDB")},
			{Question: "Which features should we build?", Header: "Features", MultiSelect: true, Options: opts("Auth", "Export", "Search", "API")},
			{Question: "How should we name things?", Header: "Naming", Options: opts("camelCase", "snake_case")},
		},
		Decisions: []string{`select "SQLite"`, `select "Auth", "API"`, `select "snake_case"`},
		Step:      "tick", Reason: "Enter had no visible effect after 3 tries", Keys: 5,
	}, rec)
	if err != nil {
		t.Fatal(err)
	}
	replayShows(t, dir,
		"header: Features",
		"--- bug report: form toolu_01three, tick: Enter had no visible effect after 3 tries (after 5 keys) ---",
		"question 2: \"Which features should we build?\" — intended: select \"Auth\", \"API\"\n  the screen shows this question as asked",
		"question 1: \"Which database should we use?\" — intended: select \"SQLite\"\n  header \"Features\" on screen, \"Database\" asked")
}

// replayShows runs claudewrap replay on path and checks its output holds
// each of want.
func replayShows(t *testing.T, path string, want ...string) {
	t.Helper()
	out, err := executeCmd(t, devNull(t), "replay", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("replay output lacks %q:\n%s", w, out)
		}
	}
}

// TestReplayMessageBundle replays the bug report of a chat message: what
// Claude's prompt holds, and how often the message shows as sent. The
// recording is Claude Code 2.1.197 keeping a sent message in its prompt
// (stress seed 9737646259466774155, s035), cut at 3.25 s.
func TestReplayMessageBundle(t *testing.T) {
	b, err := os.ReadFile("../../../../testdata/screens/2.1.197/stress-4155-s035-87x43.cast")
	if err != nil {
		t.Fatal(err)
	}
	var rec []byte
	for i, l := range bytes.SplitAfter(b, []byte("\n")) {
		var ev []any
		if i > 0 && (json.Unmarshal(l, &ev) != nil || len(ev) == 0 || ev[0].(float64) > 3.25) {
			break // the header, then the events up to 3.25 s
		}
		rec = append(rec, l...)
	}
	const msg = "chat 35-4: we should talk about this first"
	dir, err := bundle.Write(t.TempDir(), bundle.Report{
		Time: time.Now(), ToolUseID: "toolu_01s035", Decisions: []string{"chat " + strconv.Quote(msg)},
		Questions: []answer.Question{{Question: "1. Which build tool? (5)", Header: "Build", Options: []answer.Option{{Label: "Submit"}, {Label: "Next"}}}},
		Step:      "message", Reason: "Claude's prompt never showed empty on a still screen",
	}, rec)
	if err != nil {
		t.Fatal(err)
	}
	replayShows(t, dir,
		"--- bug report: the chat message after form toolu_01s035: Claude's prompt never showed empty on a still screen (after 0 keys) ---",
		"intended: chat \""+msg+"\"\n  Claude's prompt holds the message\n  shown sent above the prompt: 1 time")
}

// TestWaitTimeout: claudewrap wait gives up after --timeout with exit 1
// when no session has a question waiting; pending says so in words and
// prints an empty JSON array.
func TestWaitTimeout(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	start := time.Now()
	_, err := executeCmd(t, devNull(t), "wait", "--timeout", "300ms")
	if codeOf(err) != ExitError || err == nil || !strings.Contains(err.Error(), "no question waited within 300ms") {
		t.Errorf("wait: %v (exit %d)", err, codeOf(err))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("wait took %v", d)
	}
	if _, err := executeCmd(t, devNull(t), "wait", "--timeout", "-1s"); codeOf(err) != ExitUsage {
		t.Errorf("wait --timeout -1s: %v, want a usage error (it waited for ever)", err)
	}
	if out, err := executeCmd(t, devNull(t), "pending"); err != nil || out != "no question waits\n" {
		t.Errorf("pending: %q %v", out, err)
	}
	if out, err := executeCmd(t, devNull(t), "pending", "--json"); err != nil || strings.TrimSpace(out) != "[]" {
		t.Errorf("pending --json: %q %v", out, err)
	}
}

// TestAnswerDecisionsRuled: on a form a rule answered in part, the flags
// answer the questions no rule answered: one left, and --select says it;
// --answers gives those, or every question's (the session holds the rules'
// own to theirs).
func TestAnswerDecisionsRuled(t *testing.T) {
	db := answer.Question{Question: "Which database?", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}
	feats := answer.Question{Question: "Which features?", MultiSelect: true, Options: []answer.Option{{Label: "Auth"}, {Label: "API"}}}
	f := remote.Form{Questions: []answer.Question{db, feats}, Decided: []remote.Decided{{Index: 1, Rule: "db", Answer: `select "SQLite"`}}}
	for _, tc := range []struct {
		name string
		opts AnswerOptions
		want string
	}{
		{"the one open question", AnswerOptions{Select: []string{"API"}}, `select "API"`},
		{"answers for the open ones", AnswerOptions{Answers: "[{select: [Auth]}]"}, `select "Auth"`},
		{"answers for all", AnswerOptions{Answers: "[{select: SQLite}, {select: [Auth]}]"}, `select "SQLite" | select "Auth"`},
		{"cancel", AnswerOptions{Cancel: true}, "cancel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			ds, err := decisions(f, &opts, false)
			var got []string
			for _, d := range ds {
				got = append(got, d.String())
			}
			if err != nil || strings.Join(got, " | ") != tc.want {
				t.Fatalf("got %q, %v; want %q", strings.Join(got, " | "), err, tc.want)
			}
		})
	}
	opts := AnswerOptions{Answers: "[{select: SQLite}, {select: [Auth]}, {select: [API]}]"}
	if _, err := decisions(f, &opts, false); err == nil || codeOf(err) != ExitUsage ||
		!strings.Contains(err.Error(), "the form asks 2 questions and rules answer 1: give 1 answer (for question 2), or all 2; 3 given") {
		t.Errorf("three answers to two questions: %v", err)
	}
}

// TestAnswerQuestionNumbers: answer names a question by its number in the
// form, as pending prints it ("2."), whether or not a rule answered the
// ones before it.
func TestAnswerQuestionNumbers(t *testing.T) {
	q := func(s string, multi bool) answer.Question {
		return answer.Question{Question: s, MultiSelect: multi, Options: []answer.Option{{Label: "Gin"}, {Label: "Tonic"}}}
	}
	f := remote.Form{Session: "1", ToolUseID: "t1", Questions: []answer.Question{q("one?", false), q("two?", false), q("three?", true)},
		Decided: []remote.Decided{{Index: 1, Rule: "r1", Answer: `select "Gin"`}}}
	var b bytes.Buffer
	printForms(&b, []remote.Form{f}, false)
	for _, want := range []string{"  2. [] two? (one answer)", "  3. [] three? (several answers)"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("pending prints no %q:\n%s", want, b.String())
		}
	}
	for _, tc := range []struct {
		opts AnswerOptions
		want string
	}{
		{AnswerOptions{Answers: `[{select: Gin}, {select: [Rum]}]`}, `--answers: question 3 ("three?"): label "Rum" is not offered`},
		{AnswerOptions{Answers: `[{type: "ok 👍🏽"}, {select: [Gin]}]`}, `--answers: question 2 ("two?"): "ok 👍🏽" holds a skin tone`},
		{AnswerOptions{Answers: `[{select: Gin}, {cancel: true}]`}, "--answers: question 3: cancel ends the whole form"},
		{AnswerOptions{Select: []string{"Gin"}}, "2 questions of the form wait for an answer: give --answers"},
	} {
		opts := tc.opts
		_, err := decisions(f, &opts, false)
		if err == nil || codeOf(err) != ExitUsage || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
		}
	}
	one := f
	one.Decided = append(one.Decided, remote.Decided{Index: 3, Rule: "r3", Answer: `select "Tonic"`})
	opts := AnswerOptions{Select: []string{"gin"}}
	if _, err := decisions(one, &opts, false); err == nil ||
		err.Error() != `--select: question 2 offers no option "gin"; did you mean "Gin"? labels are matched exactly` {
		t.Errorf("--select gin: %v", err)
	}
}

// TestAnswerDecisions: claudewrap answer's flags make one checked decision
// per question; what the form cannot take is a usage error, before
// anything is sent.
func TestAnswerDecisions(t *testing.T) {
	db := answer.Question{Question: "Which database?", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}
	feats := answer.Question{Question: "Which features?", MultiSelect: true, Options: []answer.Option{{Label: "Auth"}, {Label: "API"}}}
	// Two labels alike but for case: "api" was taken for the last, "API".
	cased := answer.Question{Question: "Which one?", Options: []answer.Option{{Label: "api"}, {Label: "API"}, {Label: "Auth"}}}
	for _, tc := range []struct {
		name  string
		qs    []answer.Question
		opts  AnswerOptions
		index bool
		want  string // the decisions, or a piece of the error
		err   bool
	}{
		// Labels are matched exactly, as a rule's select matches them.
		{"label", []answer.Question{db}, AnswerOptions{Select: []string{"SQLite"}}, false, `select "SQLite"`, false},
		{"label in another case", []answer.Question{db}, AnswerOptions{Select: []string{"sqlite"}}, false,
			`--select: question 1 offers no option "sqlite"; did you mean "SQLite"? labels are matched exactly`, true},
		{"labels alike but for case: the exact one", []answer.Question{cased}, AnswerOptions{Select: []string{"api"}}, false, `select "api"`, false},
		{"labels alike but for case: the other", []answer.Question{cased}, AnswerOptions{Select: []string{"API"}}, false, `select "API"`, false},
		{"labels alike but for case: another case", []answer.Question{cased}, AnswerOptions{Select: []string{"Api"}}, false, `did you mean "api" or "API"?`, true},
		{"a label not offered", []answer.Question{db}, AnswerOptions{Select: []string{"Oracle"}}, false,
			`--select: question 1 offers no option "Oracle" (offered: ["SQLite" "MongoDB"])`, true},
		{"a label in another case in --answers", []answer.Question{db}, AnswerOptions{Answers: "[{select: mongodb}]"}, false,
			`label "mongodb" is not offered; did you mean "MongoDB"? labels are matched exactly`, true},
		{"notes with a chat", []answer.Question{db}, AnswerOptions{Chat: "hm", Notes: "n"}, false, "--notes", true},
		{"notes with a cancel", []answer.Question{db}, AnswerOptions{Cancel: true, Notes: "n"}, false, "--notes", true},
		{"index", []answer.Question{db}, AnswerOptions{Index: 2}, true, `select "MongoDB"`, false},
		{"index out of range", []answer.Question{db}, AnswerOptions{Index: 3}, true, "offers options 1 to 2", true},
		{"typed", []answer.Question{db}, AnswerOptions{Type: "Postgres"}, false, `type "Postgres"`, false},
		{"two labels, single-select", []answer.Question{db}, AnswerOptions{Select: []string{"SQLite", "MongoDB"}}, false, "", true},
		{"chat ends the form", []answer.Question{db, feats}, AnswerOptions{Chat: "let us talk"}, false, `chat "let us talk" | chat "let us talk"`, false},
		{"cancel", []answer.Question{db, feats}, AnswerOptions{Cancel: true}, false, "cancel | cancel", false},
		{"answers", []answer.Question{db, feats}, AnswerOptions{Answers: "[{select: MongoDB}, {select: [API, Auth]}]"}, false, `select "MongoDB" | select "API", "Auth"`, false},
		{"answers, wrong count", []answer.Question{db, feats}, AnswerOptions{Answers: "[{select: MongoDB}]"}, false, "asks 2 questions; 1 answer given", true},
		{"answers, text the screen cannot show", []answer.Question{db, feats}, AnswerOptions{Answers: `[{type: "ok 👍🏽"}, {select: [API]}]`}, false,
			`--answers: question 1 ("Which database?"): "ok 👍🏽" holds a skin tone`, true},
		{"answers, a cancel for one question", []answer.Question{db, feats}, AnswerOptions{Answers: "[{select: MongoDB}, {cancel: true}]"}, false,
			"question 2: cancel ends the whole form", true},
		{"answers and select", []answer.Question{db}, AnswerOptions{Answers: "[{select: SQLite}]", Select: []string{"SQLite"}}, false, "alone", true},
		{"select on two questions", []answer.Question{db, feats}, AnswerOptions{Select: []string{"SQLite"}}, false, "give --answers", true},
		{"nothing", []answer.Question{db}, AnswerOptions{}, false, "say the answer", true},
		{"two ways", []answer.Question{db}, AnswerOptions{Select: []string{"SQLite"}, Index: 2}, true, "give only one of", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			ds, err := decisions(remote.Form{Questions: tc.qs}, &opts, tc.index)
			if tc.err {
				if err == nil || codeOf(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("want a usage error with %q, got %v", tc.want, err)
				}
				return
			}
			var got []string
			for _, d := range ds {
				got = append(got, d.String())
			}
			if err != nil || strings.Join(got, " | ") != tc.want {
				t.Fatalf("got %q, %v; want %q", strings.Join(got, " | "), err, tc.want)
			}
		})
	}
}

// TestAnswerFlagsFirst: a mistake in the answer flags alone is a usage
// error (exit 2) whether or not the session exists, told before it is
// looked for.
func TestAnswerFlagsFirst(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no session runs here
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"answer", "4242"}, "say the answer with one of"},
		{[]string{"answer", "4242", "--select", "A", "--index", "2"}, "give only one of"},
		{[]string{"answer", "4242", "--cancel", "--notes", "n"}, "--notes go with an option picked"},
		{[]string{"answer", "4242", "--answers", "[{selekt: A}]"}, "selekt"},
		// Text the screen cannot show as typed, whatever the form.
		{[]string{"answer", "4242", "--type", "ok 👍🏽"}, "--type: \"ok 👍🏽\" holds a skin tone"},
		{[]string{"answer", "4242", "--type", "ok \xff"}, "--type: \"ok \\xff\" is not valid UTF-8"},
		{[]string{"answer", "4242", "--chat", "ask the 👩\u200d🚀"}, "--chat: \"ask the 👩\\u200d🚀\" holds a zero-width joiner"},
		{[]string{"answer", "4242", "--index", "1", "--notes", "cafe\u0301"}, "--notes: \"cafe\u0301\" holds a combining mark"},
	} {
		_, _, err := executeRoot(t, tc.args...)
		if codeOf(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v (exit %d), want a usage error with %q", tc.args, err, codeOf(err), tc.want)
		}
	}
	// Flags that say one answer go on to look for the session.
	if _, _, err := executeRoot(t, "answer", "4242", "--select", "A"); codeOf(err) != ExitError || !strings.Contains(err.Error(), "4242") {
		t.Errorf("no session: %v (exit %d)", err, codeOf(err))
	}
}

// TestHumanHandedOver: a form handed to the person counts in the summary;
// a dialog and a chat message handed over are said as what they are, and
// are not counted as forms.
func TestHumanHandedOver(t *testing.T) {
	var b bytes.Buffer
	h := newHuman(&b, false)
	h.event("handed_over", map[string]any{"tool_use_id": "t1", "reason": "the person typed"})
	h.event("handed_over", map[string]any{"dialog": "permission", "reason": "the person typed"})
	h.event("handed_over", map[string]any{"tool_use_id": "t2", "chat_message": "why?", "reason": "the person typed"})
	h.event("handed_over", map[string]any{"tool_use_id": "t3", "session": "4242", "reason": "unmatched question: waits for an answer: claudewrap answer 4242"})
	h.event("waiting", map[string]any{"tool_use_id": "t3", "session": "4242", "waited": "2m0s"})
	h.event("waiting", map[string]any{"tool_use_id": "elicitation-1", "elicitation": "demo", "session": "4242", "waited": "4m0s"})
	h.summary(0, "exited with status 0")
	want := "claudewrap: the form is yours: the person typed\n" +
		"claudewrap: the permission dialog is yours: the person typed\n" +
		"claudewrap: the chat message \"why?\" is not sent: Claude's prompt is yours (the person typed)\n" +
		"claudewrap: form t3 waits for an answer: claudewrap answer 4242\n" +
		"claudewrap: form t3 still waits for an answer (2m0s): claudewrap answer 4242\n" +
		"claudewrap: MCP server \"demo\"'s form elicitation-1 still waits for an answer (4m0s): claudewrap answer 4242 --form elicitation-1 --accept '{FIELD: VALUE, …}' (or --decline, --cancel)\n" +
		"claudewrap: 1 left to you; 1 left waiting for an answer; Claude exited with status 0; exit 0\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestHumanSummary: the summary says who answered each form (rules, the
// fallback, the person, an answer from elsewhere), and what was left to a
// person unanswered; every count agrees with its noun.
func TestHumanSummary(t *testing.T) {
	q := func(s string) answer.Question { return answer.Question{Question: s} }
	decision := func(id, rule string) map[string]any {
		return map[string]any{"tool_use_id": id, "question": "Which?", "rule": rule, "action": "select", "labels": []string{"A"}}
	}
	verified := map[string]any{"answers": map[string]string{"Which?": "A"}}
	for _, tc := range []struct {
		name   string
		events func(h *human)
		want   string // the summary's counts
	}{
		{"a headless run's form waits, then is answered from elsewhere", func(h *human) {
			h.event("question", map[string]any{"tool_use_id": "t1", "questions": []answer.Question{q("Which?")}})
			h.event("handed_over", map[string]any{"tool_use_id": "t1", "session": "4242", "reason": "unmatched question: waits for an answer: claudewrap answer 4242"})
			h.event("decision", decision("t1", "remote"))
			h.event("submitted", map[string]any{"tool_use_id": "t1"})
			h.event("verified", verified)
		}, "1 form asked, 1 answered from elsewhere, 1 verified"},
		{"rules", func(h *human) {
			h.event("question", map[string]any{"tool_use_id": "t1", "questions": []answer.Question{q("Which?")}})
			h.event("decision", decision("t1", "database"))
			h.event("submitted", map[string]any{"tool_use_id": "t1"})
			h.event("verified", verified)
		}, "1 form asked, 1 answered by rules, 1 verified"},
		{"one form each way, and one left to the person", func(h *human) {
			for _, id := range []string{"t1", "t2", "t3", "t4", "t5", "t6"} {
				h.event("question", map[string]any{"tool_use_id": id, "questions": []answer.Question{q("Which?")}})
			}
			h.event("decision", decision("t1", "database"))
			h.event("submitted", map[string]any{"tool_use_id": "t1"})
			h.event("decision", decision("t2", "ask")) // claudewrap's prompt
			h.event("submitted", map[string]any{"tool_use_id": "t2"})
			// A rule answers a question, a person at the screen the rest.
			h.event("decision", decision("t3", "database"))
			h.event("handed_over", map[string]any{"tool_use_id": "t3", "reason": "the person typed"})
			h.event("submitted", map[string]any{"tool_use_id": "t3", "by": "person", "answers": map[string]string{"Which?": "B"}})
			// A rule answers a question, claudewrap answer the rest.
			h.event("decision", decision("t4", "database"))
			h.event("decision", decision("t4", "remote"))
			h.event("submitted", map[string]any{"tool_use_id": "t4"})
			h.event("decision", decision("t5", "fallback"))
			h.event("submitted", map[string]any{"tool_use_id": "t5"})
			h.event("handed_over", map[string]any{"tool_use_id": "t6", "reason": "unmatched question"})
			h.event("dialog", map[string]any{"kind": "permission", "title": "Bash", "source": "hook"})
			h.event("submitted", map[string]any{"dialog": "permission"})
			h.event("verified", map[string]any{"tool": "Bash", "outcome": "ran"})
		}, "6 forms asked, 5 answered (1 by rules, 1 by the fallback, 2 by you, 1 from elsewhere), 0 verified; " +
			"1 left to you; 1 dialog answered, 1 permission answer verified"},
		{"cancelled after it was handed over", func(h *human) {
			h.event("question", map[string]any{"tool_use_id": "t1", "questions": []answer.Question{q("Which?")}})
			h.event("handed_over", map[string]any{"tool_use_id": "t1", "reason": "unmatched question"})
			h.event("cancelled", map[string]any{"tool_use_id": "t1", "by": "person", "reason": "the person pressed Esc"})
		}, "1 form asked, 0 answered, 0 verified; 1 cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			h := newHuman(&b, false)
			tc.events(h)
			h.summary(0, "exited with status 0")
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			if got, want := lines[len(lines)-1], "claudewrap: "+tc.want+"; Claude exited with status 0; exit 0"; got != want {
				t.Errorf("summary\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestHumanLines: a run names the rules files in force; the counts in its
// lines agree with their nouns.
func TestHumanLines(t *testing.T) {
	var b bytes.Buffer
	h := newHuman(&b, false)
	h.event("start", map[string]any{"rules": []string{"examples/demo.yaml", "/home/me/.config/claudewrap/rules.yaml"}})
	h.event("question", map[string]any{"tool_use_id": "t1", "questions": []answer.Question{{Question: "Which?"}, {Question: "And?"}}})
	h.event("question", map[string]any{"tool_use_id": "t2", "questions": []answer.Question{{Question: "Which?"}, {Question: "And?"}, {Question: "Then?"}}})
	want := "claudewrap: rules in force: examples/demo.yaml, /home/me/.config/claudewrap/rules.yaml\n" +
		"claudewrap: Claude asks \"Which?\" (and 1 more question)\n" +
		"claudewrap: Claude asks \"Which?\" (and 2 more questions)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	h = newHuman(&b, false)
	h.event("start", map[string]any{"rules": []string{}})
	if b.Len() != 0 {
		t.Errorf("with no rules file: %q (run.go says none is in force)", b.String())
	}
}

// TestHumanElicitOnScreen: a rule's answer to an MCP server's form says
// where it goes, and its check against Claude's report is said as such,
// not as a form's.
func TestHumanElicitOnScreen(t *testing.T) {
	var b bytes.Buffer
	h := newHuman(&b, false)
	content := map[string]any{"env": "staging"}
	h.event("decision", map[string]any{"elicitation": "demo", "rule": "r", "action": "accept", "content": content, "via": "screen"})
	h.event("decision", map[string]any{"elicitation": "demo", "rule": "r", "action": "accept", "content": content, "via": "hook",
		"note": "answered through the hook: field day: a date field"})
	h.event("verified", map[string]any{"elicitation": "demo", "action": "accept", "content": content, "by": "claudewrap"})
	h.event("mismatch", map[string]any{"elicitation": "demo", "rule": "r",
		"want": map[string]any{"action": "accept", "content": content}, "got": map[string]any{"action": "decline"}})
	want := "claudewrap: MCP server \"demo\": rule \"r\" answers accept {\"env\":\"staging\"} on the screen\n" +
		"claudewrap: MCP server \"demo\": rule \"r\" answers accept {\"env\":\"staging\"} (answered through the hook: field day: a date field)\n" +
		"claudewrap: verified: MCP server \"demo\"'s form answered accept {\"env\":\"staging\"}\n" +
		"claudewrap: MISMATCH: MCP server \"demo\"'s form answered decline; rule \"r\" meant accept {\"env\":\"staging\"}\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestHumanRemoteDecision: an answer from elsewhere is said with its
// sender, escaped; a decision that names none is claudewrap answer's.
func TestHumanRemoteDecision(t *testing.T) {
	var b bytes.Buffer
	h := newHuman(&b, false)
	d := func(from string) map[string]any {
		f := map[string]any{"tool_use_id": "t1", "question": "Which?", "index": 1, "rule": "remote", "action": "select", "labels": []string{"A"}}
		if from != "" {
			f["from"] = from
		}
		return f
	}
	h.event("decision", d("claudewrap serve (page) from 192.0.2.7"))
	h.event("decision", d(""))
	h.event("decision", d("x\x1b[2J"))
	want := "claudewrap: answered from elsewhere (claudewrap serve (page) from 192.0.2.7) \"Which?\": select \"A\"\n" +
		"claudewrap: answered from elsewhere (claudewrap answer) \"Which?\": select \"A\"\n" +
		"claudewrap: answered from elsewhere (x\\x1b[2J) \"Which?\": select \"A\"\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestHookNeverFails: `claudewrap hook` exits 0 and still forwards whatever
// its flags and arguments (a claudewrap installed anew during a run may
// take other ones than the settings gave Claude), and when it panics:
// Claude reads exit 2 as a block.
func TestHookNeverFails(t *testing.T) {
	t.Setenv("CLAUDEWRAP_HOOK_SOCKET", "/the/env/socket")
	for _, tc := range []struct {
		args   []string
		socket string
		wait   time.Duration
		stderr string
	}{
		{[]string{"--socket", "/s", "--wait", "70s"}, "/s", 70 * time.Second, ""},
		// Waits the longest a wrapper asks: shorter, the wrapper could answer a hook gone.
		{[]string{"--wait", "bogus", "--socket", "/s"}, "/s", hook.QuestionWait, `claudewrap hook: --wait "bogus" is no duration: waiting up to 1m0s`},
		{[]string{"--socket", "/s", "--new-flag", "x"}, "/s", 0, ""}, // an unknown flag is left out, its value with it
		{[]string{"extra"}, "/the/env/socket", 0, `claudewrap hook: arguments ["extra"] left out`},
	} {
		var ran *HookOptions
		var out, errb bytes.Buffer
		cmd := NewCmdHook(strings.NewReader("{}"), &out, &errb, func(o *HookOptions) error { ran = o; return nil })
		cmd.SetArgs(tc.args)
		if err := cmd.Execute(); err != nil || ran == nil {
			t.Errorf("%q: %v, forwarded: %t", tc.args, err, ran != nil)
			continue
		}
		if ran.Socket != tc.socket || ran.Wait != tc.wait || !strings.HasPrefix(errb.String(), tc.stderr) || tc.stderr == "" && errb.Len() > 0 {
			t.Errorf("%q: socket %q, wait %v, stderr %q", tc.args, ran.Socket, ran.Wait, errb.String())
		}
	}
	var errb bytes.Buffer
	cmd := NewCmdHook(strings.NewReader("{}"), io.Discard, &errb, func(*HookOptions) error { panic("boom") })
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil || errb.String() != "claudewrap hook: boom\n" {
		t.Errorf("a panic: %v, stderr %q", err, errb.String())
	}
}

// answerHandler is a session as `claudewrap answer` reaches it: one form
// waits (forms, else a plain one), and every answer gets outcome.
type answerHandler struct {
	outcome remote.Outcome
	forms   []remote.Form
	from    chan string // who sent each answer, when set
}

func (h answerHandler) Pending() []remote.Form {
	if h.forms != nil {
		return h.forms
	}
	return []remote.Form{{ToolUseID: "toolu_1", Questions: []answer.Question{{Question: "Which?", Header: "Q",
		Options: []answer.Option{{Label: "A"}, {Label: "B"}}}}}}
}
func (h answerHandler) Answer(_ context.Context, _, from string, _ []answer.Decision) remote.Outcome {
	if h.from != nil {
		h.from <- from
	}
	return h.outcome
}
func (h answerHandler) ClaudeSession() string { return "" }

// TestAnswerOutcomeOnce: an outcome other than the one asked for is said
// once, on stderr (exit 1), not also on stdout; with --json, stdout holds
// the outcome either way.
func TestAnswerOutcomeOnce(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	for _, tc := range []struct {
		o      remote.Outcome
		json   bool
		stdout string
		err    string
	}{
		{remote.Outcome{Result: "taken", Message: "answered by someone else first"}, false, "", "taken: answered by someone else first"},
		{remote.Outcome{Result: "taken", Message: "answered by someone else first"}, true, `{"result":"taken","message":"answered by someone else first"}` + "\n", "taken: answered by someone else first"},
		{remote.Outcome{Result: "verified", Recorded: map[string]string{"Which?": "A"}}, false, "verified: Claude recorded", ""},
	} {
		from := make(chan string, 1)
		reg, err := remote.Register(answerHandler{outcome: tc.o, from: from}, "/", remote.Options{})
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"answer", strconv.Itoa(os.Getpid()), "--select", "A"}
		if tc.json {
			args = append(args, "--json")
		}
		out, _, err := executeRoot(t, args...)
		reg.Close()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) || !strings.HasPrefix(out, tc.stdout) || tc.stdout == "" && out != "" {
			t.Errorf("%+v (json %t): stdout %q, error %v", tc.o, tc.json, out, err)
		}
		// What the client says it is, then what the kernel says: this process.
		self := remote.Peer{PID: os.Getpid(), Program: peercred.Program(os.Getpid())}
		if got, want := <-from, remote.FromAnswer+", "+self.String(); got != want {
			t.Errorf("the session heard the answer from %q, want %q", got, want)
		}
	}
}

// TestPendingAnswerLine: the answer line pending prints works as written:
// with two forms waiting in one session it names the form.
func TestPendingAnswerLine(t *testing.T) {
	q := []answer.Question{{Question: "Which?", Header: "Q", Options: []answer.Option{{Label: "A"}, {Label: "B"}}}}
	var b bytes.Buffer
	printForms(&b, []remote.Form{{Session: "1", ToolUseID: "t1", Questions: q}, {Session: "1", ToolUseID: "t2", Questions: q},
		{Session: "2", ToolUseID: "t3", Questions: q}}, false)
	for _, want := range []string{"claudewrap answer 1 --form t1 --select", "claudewrap answer 1 --form t2 --select", "claudewrap answer 2 --select"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
}

// TestServeListen: an address that is not one is a usage error (exit 2);
// one in use is a failure (exit 1); both say why on stderr's one line.
func TestServeListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, tc := range []struct {
		addr string
		code ExitCode
		want string
	}{
		{"nonsense", ExitUsage, "missing port"},
		{ln.Addr().String(), ExitError, "address already in use"},
	} {
		_, _, err := executeRoot(t, "serve", "--listen", tc.addr)
		if status(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("serve --listen %s: exit %d, %v; want exit %d, %q", tc.addr, status(err), err, tc.code, tc.want)
		}
	}
}
