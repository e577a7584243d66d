package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/safefile"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/session"
)

// RulesCheckOptions are the arguments of `claudewrap rules check`.
type RulesCheckOptions struct {
	Stdout, Stderr io.Writer
	Files          []string
	SkipPrograms   bool // --skip-programs: do not look for the rules' exec programs
	Strict         bool // --strict: a warning fails the file too
}

// RulesTestOptions are the arguments and flags of `claudewrap rules test`.
type RulesTestOptions struct {
	Stdout, Stderr io.Writer
	Files          []string
	Form           string
	Tool, Input    string // a permission request instead of a form
	Command        string // --command: a Bash command, the input of a Bash tool call
	Cwd            string // --cwd: the folder Claude works in, for a relative path ("" for this one)
	Elicitation    string // an MCP server's input form instead
}

// RulesRunFuncs replace the run functions of the rules subcommands in
// tests; a nil field keeps the real one.
type RulesRunFuncs struct {
	Check func(*RulesCheckOptions) error
	Test  func(*RulesTestOptions) error
}

// NewCmdRules builds `claudewrap rules` and its subcommands.
func NewCmdRules(stdout, stderr io.Writer, runF *RulesRunFuncs) *cobra.Command {
	if runF == nil {
		runF = &RulesRunFuncs{}
	}
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Check rule files, show how they answer a form, a permission prompt or an MCP server's form, allow a folder's rules",
		Args:  subcommandArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		// cobra suggests only on the root: subcommandArgs does it here.
		SuggestionsMinimumDistance: 2,
	}
	cmd.AddCommand(NewCmdRulesCheck(stdout, stderr, runF.Check), NewCmdRulesTest(stdout, stderr, runF.Test),
		NewCmdRulesAllow(stdout, stderr, nil), NewCmdRulesRevoke(stdout, stderr, nil))
	return cmd
}

// NewCmdRulesCheck builds `claudewrap rules check`.
func NewCmdRulesCheck(stdout, stderr io.Writer, runF func(*RulesCheckOptions) error) *cobra.Command {
	opts := &RulesCheckOptions{Stdout: stdout, Stderr: stderr}
	cmd := &cobra.Command{
		Use:   "check FILE...",
		Short: "Validate rule files",
		Long: `Validate rule files. Every problem in every file is printed on stderr as
file:line:col: message, and the exit status is 1; with none, it is 0. A file is
refused for what run refuses of it alone, its defaults too (on_unmatched:
fallback, or an answer_timeout, with no fallback answer). A rule's exec program
must be found (a path relative to the rules file, a bare name in PATH) and be
executable, unless --skip-programs says they are put in place later (a CI job
that lints rules on a machine without them).

A rule that can never act or never answer is a warning, file:line: warning:
message, which leaves the status 0 unless --strict: a rule with the same when
as an earlier one, a rule with no when before others, labels to select that no
question can offer with those its when requires, text to type that the
screen cannot show, a command pattern that can only match a compound command
(each simple command is matched on its own), a path glob no absolute path
matches; and an allow whose command pattern is not anchored with ^.`,
		Example: `  claudewrap rules check .claudewrap.yaml examples/*.yaml
  claudewrap rules check --skip-programs deploy/rules.yaml`,
		Args: needArgs(cobra.MinimumNArgs(1), "one or more rules FILEs"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(opts)
			}
			return runRulesCheck(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.SkipPrograms, "skip-programs", false, "do not look for the rules' exec programs")
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "a warning fails the file (exit 1), as an error does")
	return cmd
}

func runRulesCheck(opts *RulesCheckOptions) error {
	failed := false
	for _, path := range opts.Files {
		f, err := rules.CheckFile(path, !opts.SkipPrograms)
		if err != nil {
			failed = true
			printLoadError(opts.Stderr, err)
			continue
		}
		ws := append(f.Warnings(), textWarnings(f)...)
		sort.SliceStable(ws, func(i, j int) bool { return ws[i].Line < ws[j].Line })
		for _, w := range ws {
			printLine(opts.Stderr, "%s", w)
		}
		if opts.Strict && len(ws) > 0 {
			failed = true
			continue
		}
		what := plural(len(f.Rules), "rule")
		if n := len(f.Permissions); n > 0 {
			what += ", " + plural(n, "permission")
		}
		if n := len(f.Elicitations); n > 0 {
			what += ", " + plural(n, "elicitation")
		}
		if f.Dialogs.Trust {
			what += ", trusts the folder"
		}
		if f.Dialogs.Bypass {
			what += ", accepts bypass permissions mode"
		}
		fmt.Fprintf(opts.Stdout, "%s: ok (%s)\n", path, what)
	}
	if failed {
		return withCode(ExitError, nil)
	}
	return nil
}

// textWarnings are the texts the rules of f would type (type, chat, notes,
// and the fallback's) that the screen cannot show as typed, so that typing
// them could never be confirmed: held to [screen.CheckText], as `answer
// --type` is. Package rules does not know the screen, so this is done here.
func textWarnings(f *rules.File) []rules.Warning {
	var ws []rules.Warning
	check := func(a *rules.Answer, whose string) {
		for _, t := range []struct {
			key  string
			text *string
		}{{"type", a.Type}, {"chat", a.Chat}, {"notes", a.Notes}} {
			if t.text == nil {
				continue
			}
			if err := screen.CheckText(*t.text); err != nil {
				ws = append(ws, rules.Warning{File: f.Path, Line: a.TextAt.Line,
					Msg: fmt.Sprintf("%s: %v; %s can never answer", t.key, err, whose)})
			}
		}
	}
	if fb := f.Defaults.Fallback; fb != nil {
		check(fb, "the fallback")
	}
	for i := range f.Rules {
		check(&f.Rules[i].Answer, "this rule")
	}
	return ws
}

// NewCmdRulesTest builds `claudewrap rules test`.
func NewCmdRulesTest(stdout, stderr io.Writer, runF func(*RulesTestOptions) error) *cobra.Command {
	opts := &RulesTestOptions{Stdout: stdout, Stderr: stderr}
	cmd := &cobra.Command{
		Use:   "test FILE... (--form FORM.json | --tool NAME [--input JSON | --command CMD] | --elicitation ASK.json)",
		Short: "Show which rule answers each question of a form, a tool's permission request or an MCP server's input form",
		Long: `Show, for each question of a form, which rule answers it (the first that
matches across the files, in order) and the resulting answer; or why it is
unmatched, and what the rules' fallback answer would be.

FORM.json is an AskUserQuestion hook's tool_input, {"questions": [...]}, or a
whole hook payload holding one. With --tool (and --input, the tool's input as
JSON) it shows which permissions: rule decides that tool's permission request;
it exits 1 when a headless run would end there with exit 7: no rule decides it,
or the rule's decision is ask (blocked) or fail. --command CMD is a Bash
call's input, {"command": CMD}: each part of the command is shown with the
first rule it meets on its own, or why no rule can allow it, before the
decision for the whole. A path in the input is shown as the rules see it:
cleaned, absolute (taken from --cwd, else this folder), and where its symbolic
links lead. With --elicitation (an
Elicitation hook's payload, or a run's elicitation event: the server, its
message and requested_schema) it shows which elicitations: rule answers,
what the server would get and how a run gives it (on Claude's screen, or
through the Elicitation hook under answer_via: hook), and exits 1 when none
can. With --form it
exits 1 when a question is unmatched (a run under --on-unmatched fail would
exit 4), so that CI can use it as a gate. A rules error, or a form that cannot
be read, exits 2, as run does. Nothing is started and nothing is pressed.`,
		Example: `  claudewrap rules test examples/demo.yaml --form testdata/forms/three.json
  claudewrap rules test examples/permissions.yaml --tool Bash --input '{"command":"git push"}'
  claudewrap rules test examples/permissions.yaml --command 'go test ./... && rm -rf build'
  claudewrap rules test examples/elicitations.yaml --elicitation testdata/forms/deploy-elicitation.json`,
		Args: needArgs(cobra.MinimumNArgs(1), "one or more rules FILEs"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			if cmd.Flags().Changed("command") {
				if cmd.Flags().Changed("input") {
					return usageErrorf("--command is the input of a Bash call: give it or --input, not both")
				}
				if opts.Tool == "" {
					opts.Tool = "Bash"
				}
				var b strings.Builder
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false) // && as written, not \u0026\u0026
				_ = enc.Encode(map[string]string{"command": opts.Command})
				opts.Input = strings.TrimSuffix(b.String(), "\n")
			}
			given := 0
			for _, f := range []string{opts.Form, opts.Tool, opts.Elicitation} {
				if f != "" {
					given++
				}
			}
			if given != 1 {
				return usageErrorf("give --form FORM.json, --tool NAME for a permission request, or --elicitation ASK.json for an MCP server's input form")
			}
			if (cmd.Flags().Changed("input") || cmd.Flags().Changed("cwd")) && opts.Tool == "" {
				return usageErrorf("--input and --cwd go with --tool")
			}
			if runF != nil {
				return runF(opts)
			}
			return runRulesTest(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Form, "form", "", "the form: a hook's tool_input as `FORM.json`")
	cmd.Flags().StringVar(&opts.Tool, "tool", "", "a tool asking permission (Bash, Write, WebFetch, ExitPlanMode…)")
	cmd.Flags().StringVar(&opts.Input, "input", "{}", "the tool's input as `JSON`, e.g. '{\"command\":\"go test ./...\"}'")
	cmd.Flags().StringVar(&opts.Command, "command", "", "a Bash call's command, as `CMD` (--tool Bash --input '{\"command\": CMD}')")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "the folder Claude works in, from which a relative path is taken (default: this one)")
	cmd.Flags().StringVar(&opts.Elicitation, "elicitation", "", "an MCP server's input form: an Elicitation hook's payload or a run's elicitation event, as `ASK.json`")
	return cmd
}

func runPermissionTest(opts *RulesTestOptions, set *rules.Set) error {
	in := json.RawMessage(opts.Input)
	var obj map[string]any
	if err := json.Unmarshal(in, &obj); err != nil {
		return usageErrorf("--input: want a JSON object: %v", err)
	}
	w := opts.Stdout
	fmt.Fprintf(w, "%s %s\n", opts.Tool, opts.Input)
	call := rules.Call{Tool: opts.Tool, Input: in, Cwd: opts.Cwd}
	showReadings(w, set, call, obj)
	d := set.Permit(call)
	if !d.Matched() {
		fmt.Fprintf(w, "   unmatched: no permission rule matches (at a terminal the dialog is yours; headless the run is blocked, exit 7)\n")
		return withCode(ExitError, fmt.Errorf("no permission rule matches %s: a headless run would be blocked (exit 7)", opts.Tool))
	}
	via := "on the screen"
	if opts.Tool != "ExitPlanMode" && (d.Action == rules.Allow || d.Action == rules.Deny || d.Action == rules.FailRun) {
		via = "through the PermissionRequest hook"
	}
	switch d.Action {
	case rules.AskPerson:
		via = "by the person (headless: blocked, exit 7)"
	case rules.FailRun:
		via += ": the run ends (exit 7)"
	}
	printLine(w, "   permission %q (%s:%d): %s, %s", d.Rule, d.File, d.Line, d.Verdict, via)
	if d.Met != "" {
		printLine(w, "      met by %s", d.Met)
	}
	// The gate, as for no rule at all: a headless run would end with 7.
	switch d.Action {
	case rules.AskPerson:
		return withCode(ExitError, fmt.Errorf("permission rule %q leaves %s to the person: a headless run would be blocked (exit 7)", d.Rule, opts.Tool))
	case rules.FailRun:
		return withCode(ExitError, fmt.Errorf("permission rule %q fails the run on %s (exit 7)", d.Rule, opts.Tool))
	}
	return nil
}

// showReadings shows what the rules read in a call: each part of its
// command with the first rule it meets on its own, or why no rule can allow
// it; its path as the rules see it.
func showReadings(w io.Writer, set *rules.Set, call rules.Call, in map[string]any) {
	if c, ok := in["command"].(string); ok {
		parts := rules.ReadCommand(c)
		for i, p := range parts {
			where := ""
			if p.From != "" {
				where = " (" + p.From + ")"
			}
			printLine(w, "   part %d%s: %s", i+1, where, p.Text)
			if p.Unjudged != "" {
				printLine(w, "      cannot be judged: %s; no rule allows it", p.Unjudged)
			}
			if p.Opaque {
				printLine(w, "      what it runs is hidden from a deny too: while a deny or fail rule judges commands, the call is refused")
			}
			if p.Through {
				printLine(w, "      a wrapper: an allow needs only the command it runs, the next part")
			}
			if m := set.Meets(call, p); m.Matched() {
				printLine(w, "      meets permission %q (%s:%d): %s", m.Rule, m.File, m.Line, m.Verdict)
			} else {
				printLine(w, "      meets no command rule")
			}
		}
		if len(parts) > 1 {
			printLine(w, "   an allow needs all %d parts allowed by the one rule; a deny or ask, one", len(parts))
		}
	}
	for _, k := range []string{"file_path", "path", "notebook_path"} {
		if p, ok := in[k].(string); ok {
			readings := rules.PathReadings(p, call.Cwd)
			printLine(w, "   path: %s", readings[0])
			if len(readings) > 1 {
				printLine(w, "   path through its links: %s", readings[1])
			}
			break
		}
	}
}

// runElicitationTest shows the elicitation rule that answers an MCP
// server's input form, and what the server would be sent.
func runElicitationTest(opts *RulesTestOptions, set *rules.Set) error {
	b, err := safefile.ReadFile(opts.Elicitation, hook.MaxMessage)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", opts.Elicitation, pe.Err)
		}
		return withCode(ExitUsage, err)
	}
	// An Elicitation hook's payload names the server mcp_server_name, the
	// run's elicitation event server.
	var ask struct {
		Server  string          `json:"-"`
		Message string          `json:"message"`
		Schema  json.RawMessage `json:"requested_schema"`
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return withCode(ExitUsage, fmt.Errorf("%s: want a JSON object: %w", opts.Elicitation, err))
	}
	_ = json.Unmarshal(b, &ask)
	for _, k := range []string{"mcp_server_name", "server"} {
		if v, ok := raw[k]; ok && json.Unmarshal(v, &ask.Server) == nil && ask.Server != "" {
			break
		}
	}
	if ask.Server == "" || len(ask.Schema) == 0 {
		return withCode(ExitUsage, fmt.Errorf("%s: want the server (mcp_server_name or server), message and requested_schema of an elicitation", opts.Elicitation))
	}
	w := opts.Stdout
	printLine(w, "MCP server %q: %s", ask.Server, ask.Message)
	d := set.Elicit(ask.Server, ask.Message, ask.Schema)
	switch {
	case d.Rule == "":
		fmt.Fprintf(w, "   unmatched: no elicitation rule matches (at a terminal the form is yours; headless the run is blocked, exit 7)\n")
		return withCode(ExitError, fmt.Errorf("no elicitation rule matches MCP server %q: a headless run would be blocked (exit 7)", ask.Server))
	case d.Err != nil:
		printLine(w, "   elicitation %q (%s:%d) cannot answer it: %v", d.Rule, d.File, d.Line, d.Err)
		return withCode(ExitError, fmt.Errorf("elicitation rule %q cannot answer MCP server %q's form: a headless run would be blocked (exit 7)", d.Rule, ask.Server))
	}
	out := string(d.Action)
	if d.Action == rules.Accept {
		c, _ := json.Marshal(d.Content)
		out += " " + string(c)
	}
	printLine(w, "   elicitation %q (%s:%d): %s, %s", d.Rule, d.File, d.Line, out, elicitVia(set.Defaults().AnswerVia))
	return nil
}

// elicitVia says how a run gives an elicitation rule's answer: on Claude's
// screen unless the rules' answer_via (or the run's --answer-via) says
// through the hook; a value the screen cannot set goes through the hook.
func elicitVia(answerVia string) string {
	if answerVia == session.AnswerViaHook {
		return "through the Elicitation hook, as the rules' answer_via: hook says (--answer-via screen: on Claude's screen)"
	}
	return "on Claude's screen, as a run answers by default (--answer-via hook: through the Elicitation hook)"
}

func runRulesTest(opts *RulesTestOptions) error {
	set, err := rules.Load(opts.Files...)
	if err != nil {
		// 2, as run exits for the same files: 1 is the gate's "unmatched".
		printLoadError(opts.Stderr, err)
		return withCode(ExitUsage, nil)
	}
	if opts.Tool != "" {
		return runPermissionTest(opts, set)
	}
	if opts.Elicitation != "" {
		return runElicitationTest(opts, set)
	}
	// A form is a hook's tool_input: no larger than a hook message.
	b, err := safefile.ReadFile(opts.Form, hook.MaxMessage)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", opts.Form, pe.Err) // as the rules' files are named
		}
		return withCode(ExitUsage, err)
	}
	qs, err := rules.ParseForm(b)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("%s: %w", opts.Form, err))
	}
	w := opts.Stdout
	unmatched := 0
	for i, q := range qs {
		kind := "single-select"
		if q.MultiSelect {
			kind = "multi-select"
		}
		labels := make([]string, len(q.Options))
		for j, o := range q.Options {
			labels[j] = strconv.Quote(o.Label)
		}
		printLine(w, "%d. [%s] %s", i+1, q.Header, q.Question)
		printLine(w, "   %s: %s", kind, strings.Join(labels, ", "))
		d := set.Decide(q)
		if d.Matched() && d.Exec != nil {
			printLine(w, "   rule %q (%s:%d): exec %q (the program decides when the form is asked)", d.Rule, d.File, d.Line, d.Exec)
			continue
		}
		if d.Matched() {
			printLine(w, "   rule %q (%s:%d): %s%s", d.Rule, d.File, d.Line, d.Decision.String(), endsForm(d.Action))
			continue
		}
		unmatched++
		printLine(w, "   unmatched: %s", d.Unmatched)
		if fb, err := set.Fallback(q); err != nil {
			printLine(w, "   fallback: none (%v)", err)
		} else {
			printLine(w, "   fallback: %s%s", fb.Decision.String(), endsForm(fb.Action))
		}
	}
	def := set.Defaults()
	policy := "not set (run decides: passthrough on a terminal, else ask or fail)"
	if def.OnUnmatched != "" {
		policy = string(def.OnUnmatched)
	}
	timeout := "none"
	if def.AnswerTimeout > 0 {
		timeout = def.AnswerTimeout.String()
	}
	fmt.Fprintf(w, "on_unmatched: %s; answer_timeout: %s\n", policy, timeout)
	if unmatched > 0 {
		// A gate for CI: under --on-unmatched fail this form would end the
		// run with exit 4.
		return withCode(ExitError, fmt.Errorf("%s of the form no rule answers: a run under --on-unmatched fail would exit 4",
			plural(unmatched, "question")))
	}
	return nil
}

func endsForm(a answer.Action) string {
	if a == answer.Chat || a == answer.Cancel {
		return " (ends the whole form)"
	}
	return ""
}

// printLoadError prints every problem in err, one a line: file:line:col:
// message for the rules, "rules file FILE: reason" for a file that cannot
// be read ([rules.FileError]). A message may quote the file.
func printLoadError(w io.Writer, err error) {
	printLines(w, "", err.Error())
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
