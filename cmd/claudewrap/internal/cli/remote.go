package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
)

// NewCmdPending builds `claudewrap pending`.
func NewCmdPending(stdout io.Writer) *cobra.Command {
	var asJSON bool
	var ib InboxOptions
	cmd := &cobra.Command{
		Use:   "pending",
		Short: "List the forms and MCP servers' forms waiting for a person in your running sessions",
		Long: `List the forms that wait for a person in every claudewrap run of yours: the
session, its folder, how long the form has waited, and the whole form
(questions, options with descriptions, multi-select). An MCP server's input
form is listed as form elicitation-N with its server, message and fields
(--on-unmatched wait). --json prints an array of {session, pid, cwd, since,
tool_use_id, questions} for programs, with elicitation: {server, message,
fields, requested_schema} for an MCP server's form.

With an inbox (--inbox, $CLAUDEWRAP_INBOX, or inbox: in your config.yaml), it
lists the forms waiting on every machine whose runs use the same inbox, grouped
by machine; a form's id names its machine, and --json adds id, machine, user,
claude_version, round and state.`,
		Example: `  claudewrap pending
  claudewrap pending --json | jq '.[0].tool_use_id'
  claudewrap pending --inbox tls://inbox-a:4222 --inbox-ca ca.pem --inbox-nkey alice.nk`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, _, on, err := ib.resolve(cmd.Flags())
			if err != nil {
				return err
			}
			if on {
				return pendingInbox(cmd.Context(), stdout, cfg, asJSON, inboxHint(&ib))
			}
			// A session that refused to say is the error, after what the
			// others said.
			forms, err := remote.PendingAll(cmd.Context())
			if perr := printForms(stdout, forms, asJSON); perr != nil {
				return perr
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON for programs")
	inboxFlags(cmd.Flags(), &ib, false, false)
	return cmd
}

// printJSONList prints list as indented JSON, [] when it is empty, with
// the characters a terminal would act on escaped.
func printJSONList[T any](w io.Writer, list []T) {
	if list == nil {
		list = []T{}
	}
	b, _ := json.MarshalIndent(list, "", "  ")
	fmt.Fprintln(w, string(safe.JSON(b)))
}

func printForms(w io.Writer, forms []remote.Form, asJSON bool) error {
	if asJSON {
		printJSONList(w, forms)
		return nil
	}
	if len(forms) == 0 {
		fmt.Fprintln(w, "no question waits")
		return nil
	}
	inSession := map[string]int{}
	for _, f := range forms {
		inSession[f.Session]++
	}
	for _, f := range forms {
		// With several forms waiting in a session, answer needs to be told
		// which: the line given works as written.
		target := "claudewrap answer " + f.Session
		if inSession[f.Session] > 1 {
			target += " --form " + f.ToolUseID
		}
		waited := time.Since(f.Since).Round(time.Second)
		if f.Elicitation != nil {
			printLine(w, "session %s (%s), MCP server %q's form %s, waiting %s: %s", f.Session, f.Cwd, f.Elicitation.Server, f.ToolUseID,
				waited, f.Elicitation.Message)
			printElicitation(w, f, "", target)
			continue
		}
		printLine(w, "session %s (%s), form %s, waiting %s:", f.Session, f.Cwd, f.ToolUseID, waited)
		printQuestions(w, f, "", target)
	}
	return nil
}

// printQuestions prints form f's questions, each line after indent, and
// the command that answers it, target followed by its flags.
func printQuestions(w io.Writer, f remote.Form, indent, target string) {
	decided := map[int]remote.Decided{}
	for _, d := range f.Decided {
		decided[d.Index-1] = d
	}
	for i, q := range f.Questions {
		if d, ok := decided[i]; ok {
			by := fmt.Sprintf("rule %q", d.Rule)
			if d.File != "" {
				by += " (" + d.File + ")"
			}
			printLine(w, "%s  %d. [%s] %s: answered by %s: %s", indent, i+1, q.Header, q.Question, by, d.Answer)
			continue
		}
		kind := "one answer"
		if q.MultiSelect {
			kind = "several answers"
		}
		printLine(w, "%s  %d. [%s] %s (%s)", indent, i+1, q.Header, q.Question, kind)
		for j, o := range q.Options {
			line := fmt.Sprintf("       %d. %s", j+1, o.Label)
			if o.Description != "" {
				line += " — " + o.Description
			}
			if o.Preview != "" {
				line += " (with a preview)"
			}
			printLine(w, "%s%s", indent, line)
		}
	}
	switch open := len(f.Open()); {
	case len(f.Decided) > 0 && open == 1:
		printLine(w, "%s  answer: %s --select LABEL (the one question no rule answers)", indent, target)
	case len(f.Decided) > 0:
		printLine(w, "%s  answer: %s --answers '[{select: A}, …]' (one per question no rule answers)", indent, target)
	default:
		printLine(w, "%s  answer: %s --select LABEL (one question), or --answers '[{select: A}, …]'", indent, target)
	}
}

// printElicitation prints an MCP server's form's fields, each line after
// indent, and the command that answers it, target followed by its flags.
func printElicitation(w io.Writer, f remote.Form, indent, target string) {
	for _, fd := range f.Elicitation.Fields {
		kind := fd.Type
		switch {
		case fd.Type == "array":
			kind = "several of: " + strings.Join(fd.Options, ", ")
		case len(fd.Options) > 0:
			kind = "one of: " + strings.Join(fd.Options, ", ")
		case fd.Type == "boolean":
			kind = "true or false"
		}
		req := ""
		if fd.Required {
			req = ", required"
		}
		printLine(w, "%s  %s (%q): %s%s", indent, fd.Name, fd.Title, kind, req)
	}
	printLine(w, "%s  answer: %s --accept '{FIELD: VALUE, …}', or --decline, or --cancel", indent, target)
}

// NewCmdWait builds `claudewrap wait`.
func NewCmdWait(stdout io.Writer) *cobra.Command {
	var asJSON bool
	var timeout time.Duration
	var ib InboxOptions
	cmd := &cobra.Command{
		Use:   "wait",
		Short: "Wait until a form or an MCP server's form waits for a person in one of your sessions",
		Long: `Block until a form waits for a person in one of your running sessions, then
print the waiting forms (as pending does) and exit 0; exit 1 when --timeout
runs out first. With an inbox, it waits for a form on any machine.`,
		Example: `  claudewrap wait --timeout 10m && notify-send "Claude asks"`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if timeout < 0 {
				return usageErrorf("--timeout must not be negative")
			}
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			cfg, _, on, err := ib.resolve(cmd.Flags())
			if err != nil {
				return err
			}
			if on {
				return waitInbox(ctx, stdout, cfg, asJSON, inboxHint(&ib), timeout)
			}
			for {
				forms, err := remote.PendingAll(ctx)
				if err != nil {
					return err
				}
				if len(forms) > 0 {
					return printForms(stdout, forms, asJSON)
				}
				select {
				case <-ctx.Done():
					return withCode(ExitError, fmt.Errorf("no question waited within %v", timeout))
				case <-time.After(250 * time.Millisecond):
				}
			}
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON for programs")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (exit 1); 0 waits for ever")
	inboxFlags(cmd.Flags(), &ib, false, false)
	return cmd
}

// AnswerOptions are the flags of `claudewrap answer`.
type AnswerOptions struct {
	Session string
	Form    string
	Answers string
	Select  []string
	Index   int
	Type    string
	Notes   string
	Chat    string
	Cancel  bool
	JSON    bool
	// Accept and Decline answer an MCP server's form (--cancel too);
	// AcceptSet says --accept was given.
	Accept    string
	AcceptSet bool
	Decline   bool
	// Inbox names the inbox, when the form is answered through one.
	Inbox InboxOptions
}

// NewCmdAnswer builds `claudewrap answer`.
func NewCmdAnswer(stdout io.Writer) *cobra.Command {
	opts := &AnswerOptions{}
	cmd := &cobra.Command{
		Use:   "answer SESSION|ID [flags]",
		Short: "Answer a waiting form or MCP server's form of a running session, and check what Claude recorded",
		Long: `Answer a form that waits for a person in a running session (see claudewrap
pending), from another terminal, a script or over SSH. The answer is driven on
Claude's screen and verified like a rule's; the command waits for the outcome
and exits 0 only when Claude recorded exactly that (or took the chat or cancel).
Someone else answering first (the person at the screen, the prompt, the
fallback) exits 1, saying so on stderr. An answer that waits its turn behind
another form for two minutes is withdrawn (exit 1): it is never pressed later.

SESSION is the session's number from pending, or Claude's session id (a prefix
of it will do). --answers gives one rules-style answer per question, in order;
for a form of one question the other flags say it. On a form a rule answered in
part, they answer the questions left (pending marks those a rule answered); a
rule's answer stands, and an answer that would replace it is refused.

An MCP server's input form (pending shows its server, message and fields;
its id is elicitation-N) is answered with --accept and its values as a
mapping of field (name or title): value, written as an elicitations: rule's
accept ('{env: staging, confirm: true, regions: [eu, us]}'; '{}' when every
field is optional), or --decline, or --cancel. The values are checked
against the server's schema as a rule's are, and refused before anything is
pressed when they do not fit; the answer is given on Claude's screen and
checked against what Claude reports.

With an inbox (--inbox, $CLAUDEWRAP_INBOX, or inbox: in your config.yaml), ID is
a form's id from pending (MACHINE.SESSION.RANDOM): any machine's form is answered
through the inbox, with the same flags. Exactly one answer takes a form: another
that came first is named (exit 1, taken), and a form that moved on is refused
with the reason.`,
		Example: `  claudewrap answer 4242 --select SQLite
  claudewrap answer 4242 --answers '[{select: MongoDB}, {select: [UI, Auth]}, {type: snake_case}]'
  claudewrap answer 4242 --index 2 --notes "keep it collapsible"
  claudewrap answer 4242 --cancel
  claudewrap answer 4242 --form elicitation-1 --accept '{env: staging, confirm: true}'
  claudewrap answer 4242 --decline
  claudewrap answer --inbox tls://inbox-a:4222 laptop.4242.abcdefghijklmnopqrstuvwxyz --select SQLite`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("answer needs the SESSION the form waits in, or with an inbox the form's ID (claudewrap pending lists them)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Session = args[0]
			opts.AcceptSet = cmd.Flags().Changed("accept")
			indexSet := cmd.Flags().Changed("index")
			cfg, _, on, err := opts.Inbox.resolve(cmd.Flags())
			if err != nil {
				return err
			}
			if on && inboxAnswer(inboxSet(cmd.Flags()), opts.Session) {
				if err := checkAnswerFlags(opts, indexSet); err != nil {
					return err
				}
				return runAnswerInbox(cmd.Context(), stdout, opts, indexSet, cfg)
			}
			return runAnswer(cmd.Context(), stdout, opts, indexSet)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Form, "form", "", "the form's `TOOL_USE_ID`, when the session has several waiting")
	f.StringVar(&opts.Answers, "answers", "", "one answer per question, as `YAML`: '[{select: A}, {select: [B, C]}, {type: text}]'")
	f.StringArrayVar(&opts.Select, "select", nil, "an option's `LABEL` (repeat for a multi-select question)")
	f.IntVar(&opts.Index, "index", 0, "an option by its number `N`, from 1")
	f.StringVar(&opts.Type, "type", "", "your own answer `TEXT` (\"Type something\")")
	f.StringVar(&opts.Notes, "notes", "", "`TEXT` of notes on the option chosen (questions with previews)")
	f.StringVar(&opts.Chat, "chat", "", "\"Chat about this\", with this `MESSAGE`")
	f.BoolVar(&opts.Cancel, "cancel", false, "decline the form (Esc); an MCP server's form: cancel it")
	f.StringVar(&opts.Accept, "accept", "", "an MCP server's form: accept it with these values, a `YAML` mapping of field: value ('{env: staging}')")
	f.BoolVar(&opts.Decline, "decline", false, "an MCP server's form: decline it")
	f.BoolVar(&opts.JSON, "json", false, "print the outcome as JSON")
	inboxFlags(f, &opts.Inbox, true, false)
	return cmd
}

func runAnswer(ctx context.Context, stdout io.Writer, opts *AnswerOptions, indexSet bool) error {
	// Mistakes in the flags alone are told before any session is looked
	// for: they are the same whichever form waits.
	if err := checkAnswerFlags(opts, indexSet); err != nil {
		return err
	}
	s, err := remote.Find(opts.Session)
	if err != nil {
		return withCode(ExitError, err)
	}
	// A session that takes the connection and never replies (stopped,
	// say) is no reason to wait for ever.
	pctx, cancel := context.WithTimeout(ctx, pendingTimeout)
	forms, err := remote.Pending(pctx, s)
	cancel()
	if err != nil {
		return withCode(ExitError, err)
	}
	var f *remote.Form
	for i := range forms {
		if opts.Form == "" || forms[i].ToolUseID == opts.Form {
			if f != nil {
				return usageErrorf("session %s has several forms waiting: say which with --form (see claudewrap pending)", s.ID)
			}
			f = &forms[i]
		}
	}
	if f == nil {
		return withCode(ExitError, fmt.Errorf("no form waits in session %s%s", s.ID, map[bool]string{true: " with id " + opts.Form}[opts.Form != ""]))
	}
	// What the flags say is checked against the form (a usage error)
	// before it is sent.
	var send func() (remote.Outcome, error)
	if f.Elicitation != nil {
		a, err := elicitAnswer(*f, opts, indexSet)
		if err != nil {
			return err
		}
		send = func() (remote.Outcome, error) {
			return remote.AnswerElicitation(ctx, s, f.ToolUseID, remote.FromAnswer, a)
		}
	} else {
		ds, err := decisions(*f, opts, indexSet)
		if err != nil {
			return err
		}
		send = func() (remote.Outcome, error) { return remote.Answer(ctx, s, f.ToolUseID, remote.FromAnswer, ds) }
	}
	o, err := send()
	if err != nil {
		return withCode(ExitError, err)
	}
	if opts.JSON {
		b, _ := json.Marshal(o)
		fmt.Fprintln(stdout, string(safe.JSON(b)))
	}
	if !o.OK() {
		// Said once, on stderr, as every failure is.
		return withCode(ExitError, fmt.Errorf("%s", outcomeLine(o)))
	}
	if !opts.JSON {
		printLine(stdout, "%s", outcomeLine(o))
	}
	return nil
}

// pendingTimeout bounds asking a session what waits in it.
const pendingTimeout = 5 * time.Second

func outcomeLine(o remote.Outcome) string {
	if len(o.Elicited) > 0 {
		msg := o.Result
		if o.Message != "" {
			msg += ": " + o.Message
		}
		return msg + "; Claude reports the MCP form answered " + string(o.Elicited)
	}
	switch o.Result {
	case "verified":
		return "verified: Claude recorded " + answersText(o.Recorded)
	case "cancelled":
		return "cancelled: Claude was told the form was declined"
	case "chatted":
		return "sent: \"Chat about this\"; the message follows when the turn ends"
	}
	msg := o.Result
	if o.Message != "" {
		msg += ": " + o.Message
	}
	if len(o.Recorded) > 0 {
		msg += "; Claude recorded " + answersText(o.Recorded)
	}
	return msg
}

// checkAnswerFlags checks what the answer flags say on their own: exactly
// one way of answering, notes only with an option, --answers that parse.
func checkAnswerFlags(opts *AnswerOptions, indexSet bool) error {
	single := 0
	for _, set := range []bool{len(opts.Select) > 0, indexSet, opts.Type != "", opts.Chat != "", opts.Cancel, opts.AcceptSet, opts.Decline} {
		if set {
			single++
		}
	}
	if opts.AcceptSet || opts.Decline {
		if single > 1 || opts.Answers != "" || opts.Notes != "" {
			return usageErrorf("give only one of --accept, --decline, --cancel for an MCP server's form")
		}
		return nil
	}
	if opts.Answers != "" {
		if single > 0 || opts.Notes != "" {
			return usageErrorf("--answers holds every answer: give it alone")
		}
		if _, err := rules.ParseAnswers("--answers", []byte(opts.Answers)); err != nil {
			return usageErrorf("%v", err)
		}
		return nil
	}
	// Text the screen cannot show is refused whatever the form asks.
	for _, t := range []struct{ flag, text string }{{"--type", opts.Type}, {"--notes", opts.Notes}, {"--chat", opts.Chat}} {
		if t.text == "" {
			continue
		}
		if err := screen.CheckText(t.text); err != nil {
			return usageErrorf("%s: %v", t.flag, err)
		}
	}
	switch {
	case single == 0:
		return usageErrorf("say the answer with one of --select, --index, --type, --chat, --cancel (or --answers for every question; --accept, --decline, --cancel for an MCP server's form)")
	case single > 1:
		return usageErrorf("give only one of --select, --index, --type, --chat, --cancel (or --answers for every question)")
	case opts.Notes != "" && (opts.Chat != "" || opts.Cancel):
		return usageErrorf("--notes go with an option picked (--select or --index), not with --chat or --cancel")
	}
	return nil
}

// decisions turns the flags into one decision per question the form asks
// of a person (those no rule answered), checked against those questions
// as the session will check them (remote.Check): what it would refuse is
// not sent. --answers may give every question's instead, the rules' own
// for theirs, which the session checks.
func decisions(f remote.Form, opts *AnswerOptions, indexSet bool) ([]answer.Decision, error) {
	if err := checkAnswerFlags(opts, indexSet); err != nil {
		return nil, err
	}
	if opts.AcceptSet || opts.Decline {
		return nil, usageErrorf("--accept and --decline answer an MCP server's form; form %s asks questions (see claudewrap pending)", f.ToolUseID)
	}
	// Questions are named by their number in the form, as pending shows them.
	qs, nums := f.OpenQuestions()
	check := f.CheckOpen
	if opts.Answers != "" && len(f.Decided) > 0 {
		if err := f.CountError(answerCount(opts.Answers)); err != nil {
			return nil, usageErrorf("--answers: %v", err)
		}
		if answerCount(opts.Answers) == len(f.Questions) {
			qs, nums = f.Questions, nil
			check = func(ds []answer.Decision) error { return remote.Check(qs, ds) }
		}
	}
	ds, err := flagDecisions(qs, nums, opts, indexSet)
	if err != nil {
		return nil, err
	}
	if err := check(ds); err != nil {
		if opts.Answers != "" {
			return nil, usageErrorf("--answers: %v", err)
		}
		return nil, usageErrorf("%v", err)
	}
	return ds, nil
}

// answerCount is how many answers --answers gives (0 when it does not
// parse: checkAnswerFlags says why).
func answerCount(s string) int {
	as, err := rules.ParseAnswers("--answers", []byte(s))
	if err != nil {
		return 0
	}
	return len(as)
}

// flagDecisions is decisions before remote.Check. nums are the questions'
// numbers in the form (nil: 1, 2, …).
func flagDecisions(qs []answer.Question, nums []int, opts *AnswerOptions, indexSet bool) ([]answer.Decision, error) {
	num := func(i int) int {
		if nums == nil {
			return i + 1
		}
		return nums[i]
	}
	if opts.Answers != "" {
		as, err := rules.ParseAnswers("--answers", []byte(opts.Answers))
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		if len(as) != len(qs) {
			return nil, usageErrorf("--answers: the form asks %s; %s given", plural(len(qs), "question"), plural(len(as), "answer"))
		}
		out := make([]answer.Decision, len(qs))
		for i, a := range as {
			d, err := a.Apply(qs[i])
			if err != nil {
				return nil, usageErrorf("--answers: question %d (%q): %v", num(i), qs[i].Question, err)
			}
			out[i] = d
		}
		return out, nil
	}
	if opts.Chat != "" || opts.Cancel {
		// Both end the whole form, whatever it asks.
		d := answer.Decision{Action: answer.Cancel}
		if opts.Chat != "" {
			d = answer.Decision{Action: answer.Chat, Text: opts.Chat}
		}
		return answer.WholeForm(d, len(qs)), nil
	}
	if len(qs) != 1 {
		if len(nums) > 0 && nums[len(nums)-1] != len(nums) { // rules answered some
			return nil, usageErrorf("%d questions of the form wait for an answer: give --answers with one answer for each (see claudewrap pending)", len(qs))
		}
		return nil, usageErrorf("the form asks %s: give --answers with one answer per question", plural(len(qs), "question"))
	}
	q := qs[0]
	var d answer.Decision
	switch {
	case len(opts.Select) > 0:
		// Exactly as offered, as a rule's select names it.
		for _, l := range opts.Select {
			if q.Index(l) >= 0 {
				continue
			}
			hint := q.Meant(l)
			if hint == "" {
				hint = fmt.Sprintf(" (offered: %q)", q.Labels())
			}
			return nil, usageErrorf("--select: question %d offers no option %q%s", num(0), l, hint)
		}
		d = answer.Decision{Action: answer.Select, Labels: opts.Select}
	case indexSet:
		if opts.Index < 1 || opts.Index > len(q.Options) {
			return nil, usageErrorf("--index %d: the question offers options 1 to %d", opts.Index, len(q.Options))
		}
		d = answer.Decision{Action: answer.Select, Labels: []string{q.Options[opts.Index-1].Label}}
	case opts.Type != "":
		d = answer.Decision{Action: answer.Type, Text: opts.Type}
	}
	d.Notes = opts.Notes
	return []answer.Decision{d}, nil
}

// elicitAnswer turns the flags into an answer to an MCP server's form,
// its values checked against the server's schema as the session will
// check them (rules.ElicitReply): what it would refuse is not sent.
func elicitAnswer(f remote.Form, opts *AnswerOptions, indexSet bool) (remote.ElicitAnswer, error) {
	if err := checkAnswerFlags(opts, indexSet); err != nil {
		return remote.ElicitAnswer{}, err
	}
	var a remote.ElicitAnswer
	switch {
	case opts.AcceptSet:
		a = remote.ElicitAnswer{Action: string(rules.Accept), Values: opts.Accept}
	case opts.Decline:
		a.Action = string(rules.Decline)
	case opts.Cancel:
		a.Action = string(rules.Cancel)
	default:
		return a, usageErrorf("form %s is MCP server %q's: answer it with --accept '{FIELD: VALUE, …}', --decline or --cancel", f.ToolUseID, f.Elicitation.Server)
	}
	if _, err := rules.ElicitReply(f.Elicitation.Schema, a.Action, a.Values, "--accept"); err != nil {
		return a, usageErrorf("%v", err)
	}
	return a, nil
}
