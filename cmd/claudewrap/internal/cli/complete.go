package cli

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/remote"
)

// completeTimeout bounds asking the running sessions while the shell
// waits for a completion.
const completeTimeout = 2 * time.Second

// completeAnswer makes the shell complete answer's SESSION with the
// running sessions' ids, --form with the ids of the forms waiting in that
// session, and --select with the labels of that form's open question.
func completeAnswer(cmd *cobra.Command) {
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		sessions, err := remote.Sessions()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, s := range sessions {
			if strings.HasPrefix(s.ID, toComplete) {
				out = append(out, completion(s.ID, s.Cwd))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	_ = cmd.RegisterFlagCompletionFunc("form", func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, f := range waitingForms(c, args) {
			if strings.HasPrefix(f.ToolUseID, toComplete) {
				out = append(out, completion(f.ToolUseID, formSummary(f)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("select", func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		forms := waitingForms(c, args)
		if id, _ := c.Flags().GetString("form"); id != "" {
			forms = slices.DeleteFunc(forms, func(f remote.Form) bool { return f.ToolUseID != id })
		}
		if len(forms) != 1 || forms[0].Elicitation != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		qs, _ := forms[0].OpenQuestions()
		if len(qs) != 1 {
			return nil, cobra.ShellCompDirectiveNoFileComp // --answers says those
		}
		given, _ := c.Flags().GetStringArray("select")
		var out []string
		for _, o := range qs[0].Options {
			if strings.HasPrefix(o.Label, toComplete) && !slices.Contains(given, o.Label) && completable(o.Label) {
				out = append(out, completion(o.Label, o.Description))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}

// waitingForms are the forms waiting in the session args name, or in every
// session when they name none yet.
func waitingForms(c *cobra.Command, args []string) []remote.Form {
	ctx, cancel := context.WithTimeout(c.Context(), completeTimeout)
	defer cancel()
	if len(args) == 0 {
		forms, _ := remote.PendingAll(ctx)
		return forms
	}
	s, err := remote.Find(args[0])
	if err != nil {
		return nil
	}
	forms, _ := remote.Pending(ctx, s)
	return forms
}

// formSummary describes a waiting form beside its id: its first question,
// or the MCP server that asks.
func formSummary(f remote.Form) string {
	switch {
	case f.Elicitation != nil:
		return "MCP server " + f.Elicitation.Server + ": " + f.Elicitation.Message
	case len(f.Questions) > 0:
		return f.Questions[0].Question
	}
	return ""
}

// completion is a value and its description as cobra gives them to the
// shell: a tab apart, the description on one line with what a terminal
// would act on escaped (it may come from Claude).
func completion(value, description string) string {
	if description == "" {
		return value
	}
	return value + "\t" + safe.Line(description)
}

// completable reports whether a label can be offered to the shell as it
// is: one that holds a tab, a line break or anything else a terminal acts
// on is left out, since completing it would type something else.
func completable(label string) bool {
	return label != "" && safe.Line(label) == label
}
