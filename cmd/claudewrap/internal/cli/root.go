package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/claudewrap/claudewrap/ptyhost"
)

// Main runs claudewrap with os.Args and returns the exit status.
func Main() (code ExitCode) {
	defer func() {
		// The person's terminal must come back even when claudewrap panics.
		if r := recover(); r != nil {
			ptyhost.RestoreTerminals()
			panic(r)
		}
	}()
	root := NewCmdRoot(os.Stdin, os.Stdout, os.Stderr)
	root.SetArgs(os.Args[1:])
	err := execute(root)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) || ee.err != nil {
		// Each line its own (a rules file's errors, one a line), so that
		// every line says whose it is; a reason may quote Claude or a file.
		printLines(os.Stderr, "claudewrap: ", err.Error())
	}
	return codeOf(err)
}

// execute runs the command tree. An error cobra makes before any command
// starts (an unknown command, a wrong number of arguments; bad flags are
// marked by the flag error func) is a usage error: no command ran, which
// the root's persistent pre-run, called after those checks, tells.
func execute(root *cobra.Command) error {
	started := false
	root.PersistentPreRun = func(*cobra.Command, []string) { started = true }
	err := root.Execute()
	var ee *exitError
	if err != nil && !started && !errors.As(err, &ee) {
		return withCode(ExitUsage, err)
	}
	return err
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(stdin *os.File, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "claudewrap",
		Short: "Run Claude Code and answer its forms, permission prompts, plan approval, dialogs and MCP servers' forms",
		Long: `claudewrap runs Claude Code's interactive UI in a pseudo-terminal it owns,
keeps an emulated copy of the screen, and answers what Claude asks: its
AskUserQuestion forms, permission prompts, plan approval, the trust dialog
and MCP servers' input forms, from YAML rules, from you at the terminal, or
from anywhere (pending, answer, serve). It checks each key's effect on the
screen and what Claude recorded.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Runnable, so that a name that is no command reaches
		// subcommandArgs, which says it as the rules command does.
		Args:                       subcommandArgs,
		RunE:                       func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		SuggestionsMinimumDistance: 2,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.Version = versionString()
	root.SetVersionTemplate("{{.Version}}")
	answer := NewCmdAnswer(stdout)
	completeAnswer(answer)
	root.AddCommand(
		NewCmdRun(stdin, stdout, stderr, nil),
		NewCmdReplay(stdout, nil),
		NewCmdVersion(stdout),
		NewCmdHook(stdin, stdout, stderr, nil),
		NewCmdRules(stdout, stderr, nil),
		NewCmdPending(stdout),
		NewCmdWait(stdout),
		answer,
		NewCmdServe(stdout, stderr),
	)
	return root
}

// needArgs checks a command's arguments as check does, and says what is
// missing in the command's words, with where to read more, rather than
// cobra's count of them.
func needArgs(check cobra.PositionalArgs, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if check(c, args) != nil {
			return usageErrorf("%s needs %s (see '%s --help')", c.CommandPath(), what, c.CommandPath())
		}
		return nil
	}
}

// subcommandArgs refuses an argument to a command that only groups
// subcommands: a name that is none of them, with those it is close to
// (cobra's SuggestFor and SuggestionsMinimumDistance), on a line of its own
// so that Main says it after "claudewrap: " as every other line.
func subcommandArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\nDid you mean this? " + strings.Join(s, ", ")
	}
	return withCode(ExitUsage, errors.New(msg))
}

// flagError is a usage error for a flag cobra could not parse: a misspelt
// flag with the one it is close to, a duration without its unit with the
// one it likely meant, and on run, an unknown flag that is no misspelling
// of its own with where claude's flags go.
func flagError(c *cobra.Command, err error) error {
	if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
		if s := flagSuggestion(c, name); s != "" {
			return usageErrorf("unknown flag --%s: did you mean --%s? (see '%s --help')", name, s, c.CommandPath())
		}
	}
	if c.Name() == "run" && strings.HasPrefix(err.Error(), "unknown") {
		return withCode(ExitUsage, fmt.Errorf("%w: claude's own flags go after --, as in 'claudewrap run [flags] -- --model opus \"…\"'", err))
	}
	if n, ok := bareDuration(err.Error()); ok {
		return withCode(ExitUsage, fmt.Errorf("%w: write it with a unit, such as %ss or %sm", err, n, n))
	}
	return withCode(ExitUsage, fmt.Errorf("%w (see '%s --help')", err, c.CommandPath()))
}

// flagSuggestion is the flag of c that name (given without its dashes)
// most likely misspells, or "": one a letter or two away (one for a short
// name, where two would reach unrelated flags), or one name starts the
// other.
func flagSuggestion(c *cobra.Command, name string) string {
	best, bestDist := "", 0
	consider := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		limit := 2
		if len(name) <= 4 {
			limit = 1
		}
		d := editDistance(name, f.Name)
		if len(name) >= 3 && (strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name)) {
			d = min(d, 1)
		}
		if d <= limit && (best == "" || d < bestDist) {
			best, bestDist = f.Name, d
		}
	}
	c.LocalFlags().VisitAll(consider)
	c.InheritedFlags().VisitAll(consider)
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// bareDuration finds the number in pflag's error for a duration flag given
// without a unit ("10" for --answer-timeout 10).
func bareDuration(msg string) (string, bool) {
	_, rest, ok := strings.Cut(msg, `missing unit in duration "`)
	if !ok {
		return "", false
	}
	n, _, ok := strings.Cut(rest, `"`)
	return n, ok && n != ""
}
