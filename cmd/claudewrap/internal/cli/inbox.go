package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/inbox"
	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/web"
)

// The commands that answer, with an inbox: every machine's forms, and
// answering any of them through a claim.

// pendingInbox lists the forms waiting on every machine.
func pendingInbox(ctx context.Context, stdout io.Writer, cfg inbox.Config, asJSON bool, hint string) error {
	c, err := dialInbox(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, pendingTimeout)
	defer cancel()
	forms, err := c.Forms(ctx)
	if err != nil {
		return withCode(ExitError, err)
	}
	return printInboxForms(stdout, forms, asJSON, hint)
}

// waitInbox waits until a form waits on any machine, then lists them.
func waitInbox(ctx context.Context, stdout io.Writer, cfg inbox.Config, asJSON bool, hint string, timeout time.Duration) error {
	c, err := dialInbox(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	forms, err := c.WaitForms(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return withCode(ExitError, fmt.Errorf("no question waited within %v: %w", timeout, err))
		}
		return withCode(ExitError, err)
	}
	return printInboxForms(stdout, forms, asJSON, hint)
}

// inboxHint is how the answer command names the inbox in the lines
// pending prints: as the command line named it, or nothing when the
// environment or the config file do.
func inboxHint(o *InboxOptions) string {
	if !o.flagged {
		return ""
	}
	return " --inbox " + o.URL
}

// printInboxForms prints the forms of every machine: JSON for programs
// (each form as the inbox holds it: what pending --json shows, with its
// id, machine, user, claude_version, round, state), else grouped by
// machine, each with the command that answers it.
func printInboxForms(w io.Writer, forms []inbox.Form, asJSON bool, hint string) error {
	if asJSON {
		printJSONList(w, forms)
		return nil
	}
	if len(forms) == 0 {
		fmt.Fprintln(w, "no question waits in the inbox")
		return nil
	}
	machine := ""
	for i, f := range forms {
		if i == 0 || f.Machine != machine {
			machine = f.Machine
			printLine(w, "%s:", machine)
		}
		where := fmt.Sprintf("%s, %s", f.User, f.Cwd)
		if f.ClaudeVersion != "" {
			where += ", Claude Code " + f.ClaudeVersion
		}
		state := "waiting " + time.Since(f.Since).Round(time.Second).String()
		if f.State == inbox.Answering {
			state = "being answered by " + f.By
		}
		target := "claudewrap answer" + hint + " " + string(f.ID)
		if f.Elicitation != nil {
			printLine(w, "  MCP server %q's form %s (%s), %s: %s", f.Elicitation.Server, f.ID, where, state, f.Elicitation.Message)
			printElicitation(w, f.Form, "  ", target)
			continue
		}
		printLine(w, "  form %s (%s), %s:", f.ID, where, state)
		printQuestions(w, f.Form, "  ", target)
	}
	return nil
}

// inboxOutcome is answer --json's output for an answer through the
// inbox: the outcome, and who took the form when another did.
type inboxOutcome struct {
	remote.Outcome
	By string `json:"by,omitempty"`
}

// runAnswerInbox answers a form of any machine through the inbox: the
// form as the inbox holds it, the flags checked against it as for a
// local answer, then a claim, which exactly one answer gets.
func runAnswerInbox(ctx context.Context, stdout io.Writer, opts *AnswerOptions, indexSet bool, cfg inbox.Config) error {
	id, err := inbox.ParseFormID(opts.Session)
	if err != nil {
		return usageErrorf("with an inbox, answer takes a form's id (claudewrap pending --inbox lists them): %v", err)
	}
	if opts.Form != "" {
		return usageErrorf("--form: an inbox form's id names the form; give it alone")
	}
	c, err := dialInbox(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	fctx, cancel := context.WithTimeout(ctx, pendingTimeout)
	f, err := c.Form(fctx, id)
	cancel()
	switch {
	case err != nil: // inbox.ErrNoForm among others
		return withCode(ExitError, err)
	case f.State == inbox.Closed:
		return withCode(ExitError, fmt.Errorf("refused: the form moved on: %s", f.Reason))
	}
	reply := inbox.Reply{From: remote.FromAnswer}
	if f.Elicitation != nil {
		a, err := elicitAnswer(f.Form, opts, indexSet)
		if err != nil {
			return err
		}
		reply.Elicit = &a
	} else {
		ds, err := decisions(f.Form, opts, indexSet)
		if err != nil {
			return err
		}
		reply.Answers = ds
	}
	res, err := c.Answer(ctx, id, reply, 0)
	if err != nil {
		return withCode(ExitError, err)
	}
	o := res.Outcome
	if opts.JSON {
		b, _ := json.Marshal(inboxOutcome{o, res.By})
		fmt.Fprintln(stdout, string(safe.JSON(b)))
	}
	if !o.OK() {
		return withCode(ExitError, fmt.Errorf("%s", outcomeLine(o)))
	}
	if !opts.JSON {
		printLine(stdout, "%s", outcomeLine(o))
	}
	return nil
}

// inboxAnswer reports whether answer's SESSION is to be answered through
// the inbox: an inbox flag was given, or one is named elsewhere and
// SESSION is a form's id (MACHINE.SESSION.RANDOM: a session's number or
// Claude's session id has no dot).
func inboxAnswer(flagged bool, session string) bool {
	return flagged || strings.Count(session, ".") == 2
}

// inboxForms is the serve page's view of every machine's forms, through
// the inbox: a form's session is its id in the inbox.
type inboxForms struct{ c *inbox.Conn }

func (s inboxForms) Pending(ctx context.Context) ([]web.Form, error) {
	forms, err := s.c.Forms(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]web.Form, len(forms))
	for i, f := range forms {
		rf := f.Form
		rf.Session = string(f.ID)
		out[i] = web.Form{Form: rf, Machine: f.Machine, User: f.User, ClaudeVersion: f.ClaudeVersion}
	}
	return out, nil
}

func (s inboxForms) answer(ctx context.Context, session string, r inbox.Reply) (remote.Outcome, error) {
	id, err := inbox.ParseFormID(session)
	if err != nil {
		return remote.Outcome{}, err
	}
	res, err := s.c.Answer(ctx, id, r, 0)
	return res.Outcome, err
}

func (s inboxForms) Answer(ctx context.Context, session, _, from string, ds []answer.Decision) (remote.Outcome, error) {
	return s.answer(ctx, session, inbox.Reply{Answers: ds, From: from})
}

func (s inboxForms) AnswerElicitation(ctx context.Context, session, _, from string, a remote.ElicitAnswer) (remote.Outcome, error) {
	return s.answer(ctx, session, inbox.Reply{Elicit: &a, From: from})
}
