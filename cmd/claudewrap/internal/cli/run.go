package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/claudewrap/claudewrap/ask"
	"github.com/claudewrap/claudewrap/bundle"
	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/inbox"
	"github.com/claudewrap/claudewrap/internal/safefile"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/session"
)

// RunOptions are the flags of `claudewrap run`.
type RunOptions struct {
	Stdin          *os.File
	Stdout, Stderr io.Writer

	Claude     string
	ClaudeArgs []string
	Rules      []string
	Headless   bool
	// Quiet keeps the human lines off stderr (errors and the exit's reason
	// are still said).
	Quiet         bool
	Cols, Rows    int
	OnUnmatched   string
	AnswerTimeout time.Duration
	// NoAnswerTimeout: --answer-timeout 0 was given, which turns the rules'
	// answer_timeout off.
	NoAnswerTimeout bool
	ExitAfterTurn   bool
	// KeepOpen keeps a headless Claude open when its turn ends, which
	// otherwise ends the run as claude -p ends.
	KeepOpen    bool
	Events      string
	Record      string
	DryRun      bool
	Trust       bool
	IdleTimeout time.Duration
	Notify      string
	AnswerVia   string
	// AnswersFromRuns lets other runs' Claude answer this run's forms.
	AnswersFromRuns bool
	// Inbox names the inbox the run publishes its waiting forms to;
	// InboxOn says one is named (by a flag, the environment or the config
	// file), InboxConfig and Machine what it resolved to.
	Inbox       InboxOptions
	InboxOn     bool
	InboxConfig inbox.Config
	Machine     string
}

// NewCmdRun builds `claudewrap run`. runF replaces the run function in tests.
func NewCmdRun(stdin *os.File, stdout, stderr io.Writer, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	var size string
	cmd := &cobra.Command{
		Use:   "run [flags] [-- claude args...]",
		Short: "Start claude in a pseudo-terminal and answer its forms, permission prompts, plan approval, dialogs and MCP servers' forms",
		Long: `Start Claude Code in a pseudo-terminal that claudewrap owns and answer its
AskUserQuestion forms, permission prompts, plan approval, dialogs and MCP
servers' input forms.

In a terminal, Claude is shown exactly as if it ran on its own. With --headless
(automatic when stdin is not a terminal) it draws only on claudewrap's emulated
screen. Everything after -- goes to claude unchanged.

Each question is answered by the first rule that matches it (--rules); one no
rule answers follows --on-unmatched. Keys are sent one at a time, each only
after the screen shows the previous one's effect, and what Claude recorded is
checked against the intent. Exit status: Claude's own (128+N if a signal N
ended it), or 1 another error of claudewrap's (its events or recording could
not be written), 2 usage/rules, 3 Claude could not start, 4 unmatched under
fail, 5 the screen never confirmed a step, 6 Claude recorded something else,
7 a dialog nobody could answer (headless), a screen waiting for ever, or a
permission rule that fails the run, 130 Ctrl-C. Each of claudewrap's own
prints its reason on stderr.

With an inbox (--inbox, $CLAUDEWRAP_INBOX, or inbox: in your config.yaml), the
forms that wait for a person are published there too, for claudewrap pending,
answer and serve on any machine; an inbox unreachable at the start or lost
later is said, the forms answered here meanwhile, and published again once it
is back.`,
		Example: `  claudewrap run -- "fix the flaky test"
  claudewrap run --rules examples/demo.yaml -- "plan the project"
  claudewrap run --headless --exit-after-turn --rules examples/ci.yaml --on-unmatched fail -- "..."
  claudewrap run --headless --record session.cast -- "hello"
  claudewrap run --headless --on-unmatched wait -- "..."     # then: claudewrap pending / answer / serve
  claudewrap run --answer-via hook --rules examples/demo.yaml -- "plan the project"
  claudewrap run --headless --on-unmatched wait --inbox tls://inbox-a:4222 --inbox-ca ca.pem --inbox-nkey laptop.nk -- "..."`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ClaudeArgs = args
			if opts.AnswerTimeout < 0 {
				return usageErrorf("--answer-timeout must not be negative")
			}
			if opts.IdleTimeout < 0 {
				return usageErrorf("--idle-timeout must not be negative (0: no limit)")
			}
			opts.NoAnswerTimeout = cmd.Flags().Changed("answer-timeout") && opts.AnswerTimeout == 0
			if opts.KeepOpen && opts.ExitAfterTurn {
				return usageErrorf("--keep-open and --exit-after-turn ask for opposite things: give one")
			}
			switch opts.AnswerVia {
			case "", session.AnswerViaScreen, session.AnswerViaHook:
			default:
				return usageErrorf("--answer-via %q: want screen or hook", opts.AnswerVia)
			}
			if opts.OnUnmatched != "" {
				if _, err := rules.ParsePolicy(opts.OnUnmatched); err != nil {
					return usageErrorf("--on-unmatched: %v", err)
				}
			}
			if !term.IsTerminal(int(opts.Stdin.Fd())) {
				if cmd.Flags().Changed("headless") && !opts.Headless {
					// Claude would be drawn on a terminal there is not.
					return usageErrorf("--headless=false needs a terminal on stdin to draw Claude on; without one the run is headless")
				}
				opts.Headless = true
			}
			if opts.KeepOpen && !opts.Headless {
				return usageErrorf("--keep-open is for headless runs; at a terminal Claude stays open until you leave it")
			}
			// Headless, nobody can give Claude a next message: its turn
			// over, the run's work is done, as with claude -p.
			if opts.Headless && !opts.KeepOpen {
				opts.ExitAfterTurn = true
			}
			c, r, err := parseSize(size)
			if err != nil {
				return usageErrorf("--size: %v", err)
			}
			opts.Cols, opts.Rows = c, r
			if opts.InboxConfig, opts.Machine, opts.InboxOn, err = opts.Inbox.resolve(cmd.Flags()); err != nil {
				return err
			}
			if opts.InboxOn {
				if err := inbox.Check(opts.InboxConfig); err != nil {
					return usageErrorf("--inbox: %v", err)
				}
			}
			if opts.Claude == "" {
				opts.Claude = os.Getenv("CLAUDEWRAP_CLAUDE")
			}
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Claude, "claude", "", "Claude Code binary `PATH` (default $CLAUDEWRAP_CLAUDE, else claude on PATH)")
	f.StringArrayVar(&opts.Rules, "rules", nil, "rule `FILE`, repeatable (default ./.claudewrap.yaml once allowed with 'claudewrap rules allow', else $XDG_CONFIG_HOME/claudewrap/rules.yaml)")
	f.BoolVar(&opts.Headless, "headless", false, "draw Claude only on the virtual screen (automatic when stdin is not a terminal)")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "say nothing on stderr but errors and the exit's reason (the events still go where --events says)")
	f.StringVar(&size, "size", "120x40", "virtual terminal size `COLSxROWS` when headless (made taller, then given back, for a form that does not fit)")
	f.StringVar(&opts.OnUnmatched, "on-unmatched", "", "`POLICY` for questions no rule answers: passthrough, ask, fallback, wait (claudewrap answer, serve, the person at the screen), cancel, fail (default: the rules' defaults.on_unmatched, else passthrough with Claude on your screen, ask when headless with a terminal, fail with none)")
	f.DurationVar(&opts.AnswerTimeout, "answer-timeout", 0, "how long passthrough, ask and wait wait for a person before the fallback answer (default: the rules' answer_timeout, else none; 0: none)")
	f.BoolVar(&opts.ExitAfterTurn, "exit-after-turn", false, "end Claude and exit when it finishes its turn (headless runs do unless --keep-open)")
	f.BoolVar(&opts.KeepOpen, "keep-open", false, "headless: keep Claude open when its turn ends, for answers and forms to come (the run then ends at --idle-timeout)")
	f.StringVar(&opts.Events, "events", "", "JSON-lines event log `FILE` (- for stdout; default: stdout when headless and stdout is not a terminal)")
	f.StringVar(&opts.Record, "record", "", "write an asciicast v2 recording to `FILE.cast`")
	f.BoolVar(&opts.DryRun, "dry-run", false, "decide and log, press nothing; headless, end at the first form (exit 7, or 4 if unmatched under fail)")
	f.BoolVar(&opts.Trust, "trust", false, "answer Claude's trust-folder dialog \"Yes\" (otherwise it is left to you, or reported as blocked when headless)")
	f.DurationVar(&opts.IdleTimeout, "idle-timeout", 10*time.Minute, "headless: end the run when Claude's screen has not changed for this long with no question open (exit 7; a blink is no change), or when a question that could not be answered because it had not shown yet still has not shown after about this long (exit 5); 0: no limit, nor the check that Claude started its session within 20s")
	f.StringVar(&opts.AnswerVia, "answer-via", "", "`HOW` decided answers reach Claude: screen (driven, focus confirmed; the default) or hook (returned by the PreToolUse hook); verified either way")
	f.BoolVar(&opts.AnswersFromRuns, "answers-from-runs", false, "let the commands of other claudewrap runs' Claude read and answer this run's forms (an orchestrating run); this run's own Claude never may")
	f.StringVar(&opts.Notify, "notify", "", "run `CMD` (with sh -c) with the form as JSON on stdin when a question waits for a person")
	inboxFlags(f, &opts.Inbox, false, true)
	_ = cmd.RegisterFlagCompletionFunc("on-unmatched", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		names := make([]string, len(rules.Policies))
		for i, p := range rules.Policies {
			names[i] = string(p)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// idleLimit turns --idle-timeout, 0 or more, into session.Config.IdleLimit,
// where 0 is the default and a negative value no limit.
func idleLimit(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

func parseSize(s string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		cols, err1 := strconv.Atoi(c)
		rows, err2 := strconv.Atoi(r)
		if err1 == nil && err2 == nil && cols >= minCols && rows >= minRows && cols <= cast.MaxSize && rows <= cast.MaxSize {
			return cols, rows, nil
		}
	}
	return 0, 0, fmt.Errorf("want COLSxROWS between %dx%d and %dx%d, got %q", minCols, minRows, cast.MaxSize, cast.MaxSize, s)
}

// The smallest terminal --size takes: a form (tabs, question, two options,
// Type something, Chat about this, footer) needs this much to show at all.
const (
	minCols = 40
	minRows = 12
)

// findClaude resolves the Claude Code binary to an absolute path.
func findClaude(name string) (string, error) {
	if name == "" {
		p, err := exec.LookPath("claude")
		if err != nil {
			return "", errors.New("claude not found on PATH; install Claude Code or pass --claude PATH (or set CLAUDEWRAP_CLAUDE)")
		}
		name = p
	} else if !strings.Contains(name, string(os.PathSeparator)) {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("claude binary %q not found on PATH", name)
		}
		name = p
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("claude binary %s does not exist", abs)
	case err != nil:
		return "", fmt.Errorf("claude binary: %w", err)
	case fi.IsDir() || fi.Mode()&0o111 == 0:
		return "", fmt.Errorf("claude binary %s is not executable", abs)
	}
	return abs, nil
}

func runRun(opts *RunOptions) (err error) {
	defer catchSIGPIPE()()
	// JSON events go to stdout by default only when a program reads it
	// (headless, stdout not a terminal); a person gets short lines on
	// stderr instead: live when headless, held for the end when Claude draws
	// on their screen.
	evName := opts.Events
	if evName == "" && opts.Headless && !isTerminal(opts.Stdout) {
		evName = "-"
	}
	// The human lines go to stderr whatever it is (a terminal, a CI log, a
	// file), unless --quiet.
	var hum *human
	if !opts.Quiet {
		hum = newHuman(opts.Stderr, !opts.Headless)
	}
	var (
		log *events.Log
		// files are closed at the end, their errors checked: output lost
		// to a full disk must not exit 0.
		files []*os.File
	)
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	switch evName {
	case "":
		log = events.New(nil)
	case "-":
		if !opts.Headless {
			// Claude draws on stdout: JSON there would be written over its
			// picture, and its picture into the JSON.
			return usageErrorf("--events -: stdout is Claude's screen when Claude is drawn on your terminal; name a file (--events FILE), or run with --headless")
		}
		log = events.New(opts.Stdout)
	default:
		f, err := safefile.Create(evName)
		if err != nil && strings.HasPrefix(evName, "/dev/") {
			return usageErrorf("--events: %v (for stdout, --events -)", err)
		}
		if err != nil {
			return usageErrorf("--events: %v", err)
		}
		files = append(files, f)
		log = events.New(f)
	}
	if hum != nil {
		log.Watch(hum.event)
	}
	// A run that cannot start still ends with an exit event, saying why.
	startFailed := func(code ExitCode, err error) error {
		log.Emit("exit", events.Fields{"code": int(code), "reason": err.Error()})
		return withCode(code, err)
	}

	var (
		set     *rules.Set
		ignored []rules.Ignored
	)
	if len(opts.Rules) > 0 {
		set, err = rules.Load(opts.Rules...)
	} else {
		set, ignored, err = rules.LoadDefault()
	}
	// Said whatever stderr is: a repository's rules that do not act must
	// not pass unnoticed.
	for _, ig := range ignored {
		printLine(opts.Stderr, "claudewrap: %s", notActing(ig))
	}
	if err != nil {
		return startFailed(ExitUsage, err)
	}
	ruleFiles := make([]string, len(set.Files))
	for i, f := range set.Files {
		ruleFiles[i] = f.Path
	}
	if len(ruleFiles) == 0 && len(opts.Rules) == 0 && hum != nil {
		fmt.Fprintln(opts.Stderr, "claudewrap: no rules file in force (./.claudewrap.yaml once allowed, or rules.yaml under $XDG_CONFIG_HOME/claudewrap): no question is answered by rules")
	}
	// Said whatever stderr is: rules that cannot act on this terminal must
	// not pass unnoticed either.
	unreadable := ""
	if !opts.Headless {
		unreadable = unreadableTerminal(os.Environ())
		if unreadable != "" {
			printLine(opts.Stderr, "claudewrap: %s", unreadable)
		}
	}
	timeout := opts.AnswerTimeout
	if timeout == 0 && !opts.NoAnswerTimeout {
		timeout = set.Timeout()
	}
	mode := session.Mode{Headless: opts.Headless, Terminal: opts.Stdin != nil && term.IsTerminal(int(opts.Stdin.Fd()))}
	policy, err := mode.Policy(rules.Policy(opts.OnUnmatched), set.Defaults().OnUnmatched, timeout > 0)
	if err != nil {
		return startFailed(ExitUsage, err)
	}
	u := rules.Unmatched{Policy: policy, Timeout: timeout}
	if opts.OnUnmatched != "" {
		u.PolicyFlag = "--on-unmatched"
	}
	if opts.AnswerTimeout > 0 {
		u.TimeoutFlag = "--answer-timeout"
	}
	if err := set.CheckUnmatched(u); err != nil {
		return startFailed(ExitUsage, err)
	}
	// Found after the rules are read, so that a mistake in them is told
	// first, whatever else is missing.
	path, err := findClaude(opts.Claude)
	if err != nil {
		return startFailed(ExitStart, err)
	}
	exe, err := session.SelfPath()
	if err != nil {
		return startFailed(ExitStart, err)
	}
	if policy == rules.Wait {
		// A form that waits for an answer from elsewhere must be reachable
		// by claudewrap answer, or nobody could ever send one.
		if _, err := remote.Dir(); err != nil {
			return startFailed(ExitUsage, fmt.Errorf("--on-unmatched wait: no answer could reach this run: %w; "+
				"set XDG_RUNTIME_DIR to a private folder of yours (mode 0700) and start it again", err))
		}
	}
	var asker session.Asker
	if policy == rules.Ask {
		p, err := ask.Open()
		if err != nil {
			return startFailed(ExitUsage, fmt.Errorf("--on-unmatched ask: %w", err))
		}
		defer p.Close()
		asker = p
	}

	claudeVersion := session.InstalledVersion(path)
	cfg := ptyhost.Config{
		Path:     path,
		Args:     opts.ClaudeArgs,
		Headless: opts.Headless,
		Cols:     opts.Cols,
		Rows:     opts.Rows,
		Stdin:    opts.Stdin,
	}
	if f, ok := opts.Stdout.(*os.File); ok {
		cfg.Stdout = f
	}
	var rec *cast.Writer
	if opts.Record != "" {
		f, err := safefile.Create(opts.Record)
		if err != nil {
			return startFailed(ExitUsage, fmt.Errorf("--record: %w", err))
		}
		files = append(files, f)
		// The header's size is the starting size; the host records it as an
		// "r" event too, which covers passthrough terminals of another size.
		rec, err = cast.NewWriter(f, opts.Cols, opts.Rows, claudeVersion)
		if err != nil {
			return startFailed(ExitError, fmt.Errorf("--record: %w", err))
		}
		cfg.Tap = rec
	}

	cwd, _ := os.Getwd()
	bundles, err := bundle.Root()
	if err != nil {
		bundles = "" // no state directory: no bug reports, everything else works
	}

	start := events.Fields{"claude": path, "args": opts.ClaudeArgs, "headless": opts.Headless,
		"rules": ruleFiles, "on_unmatched": string(policy), "dry_run": opts.DryRun, "exit_after_turn": opts.ExitAfterTurn}
	if len(ignored) > 0 {
		not := make([]events.Fields, len(ignored))
		for i, ig := range ignored {
			not[i] = events.Fields{"file": ig.Path, "reason": notActing(ig)}
		}
		start["rules_not_acting"] = not
	}
	if unreadable != "" {
		start["unreadable"] = unreadable
	}
	// Said at once, whatever stderr is: a Claude Code too old for
	// claudewrap must not fail form after form unexplained.
	unsupported := session.UnsupportedVersion(claudeVersion)
	if unsupported != "" {
		start["unsupported"] = unsupported
		what := "its forms are left to you"
		if opts.Headless {
			what = "headless, the run ends at its first form"
		}
		printLine(opts.Stderr, "claudewrap: %s: %s; install a supported version (npm install -g @anthropic-ai/claude-code@%s)", unsupported, what, session.NewestProven)
	}
	var reach session.Reach
	if opts.InboxOn {
		r, closeInbox, err := startInbox(opts, log, cwd, claudeVersion)
		if err != nil {
			return startFailed(ExitUsage, err)
		}
		defer closeInbox()
		reach = r
	}
	log.Emit("start", start)
	rep, err := session.Run(context.Background(), session.Config{
		Host:            cfg,
		Version:         claudeVersion,
		Exe:             exe,
		Decider:         set,
		Permits:         set,
		Elicits:         set,
		Gate:            set.Denies(),
		AnswersDialogs:  set.AnswersDialogs(),
		Trust:           trustBy(opts.Trust, set),
		Bypass:          bypassBy(set),
		Dialogs:         set,
		StillAllowed:    set.StillAllowed,
		IdleLimit:       idleLimit(opts.IdleTimeout),
		Policy:          policy,
		Asker:           asker,
		AnswerTimeout:   timeout,
		Log:             log,
		ExitAfterTurn:   opts.ExitAfterTurn,
		DryRun:          opts.DryRun,
		Bundles:         bundles,
		Remote:          true,
		AnswersFromRuns: opts.AnswersFromRuns,
		Cwd:             cwd,
		Notify:          firstNonEmpty(opts.Notify, set.Defaults().Notify),
		AnswerVia:       firstNonEmpty(opts.AnswerVia, set.Defaults().AnswerVia, session.AnswerViaScreen),
		SessionName:     strconv.Itoa(os.Getpid()),
		Unsupported:     unsupported,
		Reach:           reach,
	})
	code, err := rep.Exit(err)
	if err != nil {
		log.Emit("error", events.Fields{"message": err.Error()})
	}
	fields := events.Fields{"code": int(code), "claude_code": rep.Claude.Code, "claude_ended": rep.ClaudeEnded()}
	if rep.Claude.Signal != 0 {
		fields["signal"] = rep.Claude.Signal.String()
	}
	if err != nil {
		fields["reason"] = err.Error()
	}
	if len(rep.LastScreen) > 0 {
		fields["screen"] = strings.Join(rep.LastScreen, "\n")
	}
	log.Emit("exit", fields)
	if hum != nil {
		hum.lastScreen(rep.LastScreen)
		hum.summary(code, rep.ClaudeEnded())
	}
	if lost := lostOutput(log, rec, files); lost != nil {
		if code == ExitOK {
			code = ExitError
		}
		err = errors.Join(err, lost)
	}
	if code == ExitOK {
		return nil
	}
	return withCode(code, err)
}

// startInbox connects the run to its inbox (see inbox.DialRun: an inbox
// not reachable yet is no reason not to start) and makes its reach; the
// function it returns closes the connection once the run is over.
func startInbox(opts *RunOptions, log *events.Log, cwd, version string) (*inbox.Reach, func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), runDialTimeout)
	defer cancel()
	c, err := inbox.DialRun(ctx, opts.InboxConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("--inbox: %w", err)
	}
	id := inbox.Identity{Machine: opts.Machine, User: userName(), Session: strconv.Itoa(os.Getpid()), PID: os.Getpid(),
		Cwd: cwd, ClaudeVersion: version}
	return inbox.NewReach(c, id, log), c.Close, nil
}

// runDialTimeout bounds a run's first try to reach its inbox, before it
// starts with the inbox unreachable (it keeps trying).
const runDialTimeout = 5 * time.Second

// userName is the user claudewrap runs as, by name.
func userName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// lostOutput reports the first write error of the event log and of the
// recording, and any error closing their files.
func lostOutput(log *events.Log, rec *cast.Writer, files []*os.File) error {
	var errs []error
	if err := log.Err(); err != nil {
		errs = append(errs, fmt.Errorf("events lost: %w", err))
	}
	if rec != nil {
		if err := rec.Err(); err != nil {
			errs = append(errs, fmt.Errorf("recording cut short: %w", err))
		}
	}
	for _, f := range files {
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, fmt.Errorf("close %s: %w", f.Name(), err))
		}
	}
	return errors.Join(errs...)
}

// unreadableTerminal says why Claude, drawn on the person's terminal with
// env, draws forms claudewrap cannot read, and what to do; "" when it can.
func unreadableTerminal(env []string) string {
	why := ptyhost.Unreadable(env)
	if why == "" {
		return ""
	}
	return why + ", which claudewrap does not read: the forms and dialogs it would answer on the screen are left to you " +
		"on this terminal (run with TERM=xterm-256color and without NO_COLOR, or with --headless)"
}

// notActing says why a rules file found in the folder does not act, and
// what the person can do about it.
func notActing(ig rules.Ignored) string {
	switch {
	case errors.Is(ig.Why, rules.ErrNotAllowed):
		return fmt.Sprintf("%s is not allowed, so nothing in it acts (trust, bypass, permissions, programs, answers); "+
			"read it, then `claudewrap rules allow` to let it", ig.Path)
	case errors.Is(ig.Why, rules.ErrChanged):
		return fmt.Sprintf("%s changed since you allowed it, so nothing in it acts; "+
			"read it again, then `claudewrap rules allow` to let it", ig.Path)
	case errors.Is(ig.Why, rules.ErrProgramChanged):
		var pe *rules.ProgramError
		what := ig.Why.Error()
		if errors.As(ig.Why, &pe) {
			what = pe.Error()
		}
		return fmt.Sprintf("%s does not act: %s; read it and what it runs, then `claudewrap rules allow` to let it", ig.Path, what)
	}
	var fe *rules.FileError
	if errors.As(ig.Why, &fe) {
		return fmt.Sprintf("%s does not act: %s", ig.Path, fe.Why)
	}
	return fmt.Sprintf("%s does not act: %v", ig.Path, ig.Why)
}

// trustBy is who says to answer Claude's trust dialog "Yes": --trust, or a
// rules file in force; "" for nobody.
func trustBy(flag bool, set *rules.Set) string {
	if flag {
		return "--trust"
	}
	if f := set.Trust(); f != "" {
		return "dialogs.trust in " + f
	}
	return ""
}

// bypassBy is who says to accept Claude's bypass-permissions confirmation:
// a rules file in force (the person's own, or a folder's they allowed);
// "" for nobody. No flag does: the person writes it down.
func bypassBy(set *rules.Set) string {
	if f := set.Bypass(); f != "" {
		return "dialogs.bypass_permissions in " + f
	}
	return ""
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
