package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/hook"
)

// HookOptions are the flags of `claudewrap hook`.
type HookOptions struct {
	Stdin io.Reader
	// Stdout is what Claude reads back: a PermissionRequest's decision, or
	// a question's answers (updatedInput, the hook answer strategy).
	Stdout io.Writer
	Stderr io.Writer
	Socket string
	Wait   time.Duration
	// Gate: a tool call the wrapper does not decide is denied (the run's
	// deny rules must hold even when the wrapper cannot answer).
	Gate bool
}

// NewCmdHook builds `claudewrap hook`, which Claude Code runs as a hook
// command. It always exits 0, whatever its flags or arguments (a claudewrap
// installed anew during a run may take other ones than the settings the
// run gave Claude): Claude reads exit 2 as a block. It waits at most the
// --wait the run asked for, and prints on stdout only what claudewrap gave
// for Claude: a PermissionRequest's decision, a question's answers, a
// tool's deny; with --gate, a deny of its own for a tool call the wrapper
// did not decide.
func NewCmdHook(stdin io.Reader, stdout, stderr io.Writer, runF func(*HookOptions) error) *cobra.Command {
	opts := &HookOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	wait := &hookWait{d: &opts.Wait}
	run := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				fmt.Fprintf(opts.Stderr, "claudewrap hook: %v\n", p)
				err = nil // never a failure Claude would act on
			}
		}()
		if opts.Socket == "" {
			opts.Socket = os.Getenv("CLAUDEWRAP_HOOK_SOCKET")
		}
		if wait.bad != "" {
			fmt.Fprintf(opts.Stderr, "claudewrap hook: --wait %q is no duration: waiting up to %v\n", wait.bad, hook.QuestionWait)
		}
		if runF != nil {
			return runF(opts)
		}
		forward := hook.ForwardWaiting
		if opts.Gate {
			forward = hook.ForwardGated
		}
		if err := forward(opts.Stdin, opts.Socket, opts.Stdout, opts.Wait); err != nil {
			fmt.Fprintln(opts.Stderr, "claudewrap hook: "+err.Error())
		}
		return nil
	}
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Forward a Claude Code hook's JSON to the running claudewrap (run by Claude Code)",
		Long: `Run by Claude Code as a hook command: reads the hook's JSON on stdin and
forwards it to the claudewrap run that started Claude. Exits 0 at once when no
wrapper listens, and always exits 0, so it never fails Claude; with --wait it
waits at most that long for the wrapper's answer.`,
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		Hidden:             true, // run by Claude Code, not by people
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				fmt.Fprintf(opts.Stderr, "claudewrap hook: arguments %q left out\n", args)
			}
			return run()
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		fmt.Fprintf(opts.Stderr, "claudewrap hook: %v: forwarded with the flags read before it\n", err)
		return run()
	})
	cmd.Flags().StringVar(&opts.Socket, "socket", "", "the wrapper's hook socket (default $CLAUDEWRAP_HOOK_SOCKET)")
	cmd.Flags().Var(wait, "wait", "how long the wrapper may take to answer (the hook answer strategy)")
	cmd.Flags().BoolVar(&opts.Gate, "gate", false, "deny a tool call the wrapper does not decide (the run has deny rules)")
	return cmd
}

// hookWait is --wait. A value it cannot read (a claudewrap installed anew
// during a run, reading the run's settings) waits hook.QuestionWait, the
// longest a wrapper asks for: waiting longer than the wrapper is harmless,
// since the wrapper's "no answer" ends the wait, but shorter would let the
// wrapper answer a hook gone. It is no flag error, so the flags after it
// are still read.
type hookWait struct {
	d   *time.Duration
	bad string // the value not read, said on stderr
}

func (w *hookWait) String() string {
	if w.d == nil {
		return "0s"
	}
	return w.d.String()
}
func (w *hookWait) Type() string { return "duration" }
func (w *hookWait) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		d, w.bad = hook.QuestionWait, v
	}
	*w.d = d
	return nil
}
