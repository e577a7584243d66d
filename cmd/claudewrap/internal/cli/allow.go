package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/rules"
)

// RulesAllowOptions are the arguments of `claudewrap rules allow` and
// `claudewrap rules revoke`.
type RulesAllowOptions struct {
	Stdout, Stderr io.Writer
	File           string
}

// NewCmdRulesAllow builds `claudewrap rules allow`.
func NewCmdRulesAllow(stdout, stderr io.Writer, runF func(*RulesAllowOptions) error) *cobra.Command {
	opts := &RulesAllowOptions{Stdout: stdout, Stderr: stderr}
	cmd := &cobra.Command{
		Use:   "allow [FILE]",
		Short: "Let a folder's .claudewrap.yaml act, as it is now",
		Long: `Let a rules file found in a working folder act in the runs started there.

A .claudewrap.yaml comes with the folder, from whoever wrote the repository:
run, when no --rules is given, uses it only once you allowed its exact
content, since it could trust the folder, allow tools, and run programs. Read
it first; allow prints what it can do. A change to the file needs allowing
again. The allowance (the file's path and a hash of its content) is kept in
$XDG_CONFIG_HOME/claudewrap/allowed. A file you name with --rules, or your own
$XDG_CONFIG_HOME/claudewrap/rules.yaml, needs no allowing.`,
		Example: `  claudewrap rules allow
  claudewrap rules allow path/to/project/.claudewrap.yaml`,
		Args: needArgs(cobra.MaximumNArgs(1), "at most one rules FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = fileArg(args)
			if runF != nil {
				return runF(opts)
			}
			return runRulesAllow(opts)
		},
	}
	return cmd
}

// NewCmdRulesRevoke builds `claudewrap rules revoke`.
func NewCmdRulesRevoke(stdout, stderr io.Writer, runF func(*RulesAllowOptions) error) *cobra.Command {
	opts := &RulesAllowOptions{Stdout: stdout, Stderr: stderr}
	cmd := &cobra.Command{
		Use:     "revoke [FILE]",
		Short:   "Take back the allowance of a folder's .claudewrap.yaml",
		Example: `  claudewrap rules revoke`,
		Args:    needArgs(cobra.MaximumNArgs(1), "at most one rules FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = fileArg(args)
			if runF != nil {
				return runF(opts)
			}
			was, err := rules.RevokeFile(opts.File)
			if err != nil {
				return fmt.Errorf("revoke %s: %w", opts.File, err)
			}
			if !was {
				fmt.Fprintf(opts.Stdout, "%s was not allowed\n", opts.File)
				return nil
			}
			fmt.Fprintf(opts.Stdout, "%s: allowance revoked; it no longer acts\n", opts.File)
			return nil
		},
	}
	return cmd
}

// fileArg is the rules file allow and revoke take: the one named, else
// the working folder's.
func fileArg(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return rules.FolderFile
}

func runRulesAllow(opts *RulesAllowOptions) error {
	path, err := rules.FolderFileAt(opts.File)
	if err != nil {
		return withCode(ExitError, err)
	}
	b, err := rules.ReadFile(path)
	if err != nil {
		return withCode(ExitError, err)
	}
	f, err := rules.Parse(path, b)
	if err != nil {
		printLoadError(opts.Stderr, err)
		return withCode(ExitError, fmt.Errorf("%s not allowed: fix it first (claudewrap rules check %s)", path, path))
	}
	progs, err := rules.Programs(f)
	if err != nil {
		return withCode(ExitError, fmt.Errorf("%s not allowed: %w", path, err))
	}
	real, err := rules.AllowFile(path, b, progs)
	if err != nil {
		return withCode(ExitError, fmt.Errorf("allow %s: %w", path, err))
	}
	printLine(opts.Stdout, "allowed %s (sha256 %s…): runs started in %s use it until it or a program it runs changes",
		real, f.Sum[:12], filepath.Dir(real))
	for _, p := range powers(f) {
		printLine(opts.Stdout, "  it %s", p)
	}
	for _, p := range progs {
		printLine(opts.Stdout, "  allowed with %q: %s (sha256 %s…)", p.Name, p.Path, p.Sum[:12])
	}
	return nil
}

// powers lists what a rules file can make happen, for the person deciding
// whether to let it.
func powers(f *rules.File) []string {
	var out []string
	if f.Dialogs.Trust {
		out = append(out, "answers Claude's trust dialog \"Yes\" (Claude then runs the folder's own hooks and settings)")
	}
	if f.Dialogs.Bypass {
		out = append(out, "accepts Claude's bypass-permissions confirmation \"Yes, I accept\" "+
			"(with --dangerously-skip-permissions Claude then runs every tool without asking)")
	}
	byAction := map[rules.Action][]string{}
	var order []rules.Action
	for _, p := range f.Permissions {
		if byAction[p.Decide.Action] == nil {
			order = append(order, p.Decide.Action)
		}
		byAction[p.Decide.Action] = append(byAction[p.Decide.Action], fmt.Sprintf("%s (rule %q, line %d)", describeWhen(p.When), p.Name, p.Line))
	}
	for _, a := range order {
		out = append(out, fmt.Sprintf("decides %s on tools: %s", a, strings.Join(byAction[a], ", ")))
	}
	for _, e := range f.Elicitations {
		out = append(out, fmt.Sprintf("answers %s to MCP servers' input forms (rule %q, line %d)", e.Answer.Action, e.Name, e.Line))
	}
	for _, r := range f.Rules {
		switch a := r.Answer; {
		case a.Exec != nil:
			out = append(out, fmt.Sprintf("runs the program %q (rule %q, line %d)", a.Exec, r.Name, r.Line))
		case a.Chat != nil:
			out = append(out, fmt.Sprintf("sends Claude %q as your message (rule %q, line %d)", *a.Chat, r.Name, r.Line))
		}
	}
	d := f.Defaults
	if d.Notify != "" {
		out = append(out, fmt.Sprintf("runs %q when a question waits (defaults.notify)", d.Notify))
	}
	if d.Fallback != nil {
		out = append(out, fmt.Sprintf("answers what no rule answers with %s (defaults.fallback)", answerText(d.Fallback)))
	}
	if d.OnUnmatched != "" {
		out = append(out, fmt.Sprintf("sets --on-unmatched %s", d.OnUnmatched))
	}
	if d.AnswerTimeout > 0 {
		out = append(out, fmt.Sprintf("sets --answer-timeout %v", d.AnswerTimeout))
	}
	if d.AnswerVia != "" {
		out = append(out, fmt.Sprintf("sets --answer-via %s", d.AnswerVia))
	}
	if n := len(f.Rules); n > 0 {
		out = append(out, "answers questions by "+plural(n, "rule"))
	}
	return out
}

// describeWhen says what a permission rule matches, by its conditions
// rather than its name (a name can say anything).
func describeWhen(w rules.PermissionWhen) string {
	var parts []string
	if w.Tool != nil {
		// The whole tool name must match: the rule's pattern, anchored.
		re := strings.TrimSuffix(strings.TrimPrefix(w.Tool.String(), "^(?:"), ")$")
		parts = append(parts, fmt.Sprintf("tool %q", re))
	}
	if w.Command != nil {
		parts = append(parts, fmt.Sprintf("command %q", w.Command.String()))
	}
	if w.Path != "" {
		parts = append(parts, fmt.Sprintf("path %q", w.Path))
	}
	if w.Host != "" {
		parts = append(parts, fmt.Sprintf("host %q", w.Host))
	}
	if w.Input != nil {
		parts = append(parts, fmt.Sprintf("input %q", w.Input.String()))
	}
	if len(parts) == 0 {
		return "every tool"
	}
	return strings.Join(parts, ", ")
}

// answerText says what a rules answer does.
func answerText(a *rules.Answer) string {
	switch {
	case a.Cancel:
		return "a cancel"
	case a.Chat != nil:
		return fmt.Sprintf("the message %q to Claude", *a.Chat)
	case a.Type != nil:
		return fmt.Sprintf("the text %q", *a.Type)
	case a.Select != nil && a.Select.Index > 0:
		return fmt.Sprintf("option %d", a.Select.Index)
	case a.Select != nil:
		return "the options " + quoteAll(a.Select.Labels)
	}
	return "an answer"
}
