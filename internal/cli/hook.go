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
	Stdin  io.Reader
	Stdout io.Writer // what Claude reads back: a PermissionRequest's decision
	Stderr io.Writer
	Socket string
	Wait   time.Duration
}

// NewCmdHook builds `claudewrap hook`, which Claude Code runs as a hook
// command. It always exits 0, never blocks Claude for long, and prints on
// stdout only the decision claudewrap gave for a PermissionRequest.
func NewCmdHook(stdin io.Reader, stdout, stderr io.Writer, runF func(*HookOptions) error) *cobra.Command {
	opts := &HookOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Forward a Claude Code hook's JSON to the running claudewrap (run by Claude Code)",
		Long: `Run by Claude Code as a hook command: reads the hook's JSON on stdin and
forwards it to the claudewrap run that started Claude. Exits 0 at once when no
wrapper listens, so it never fails or delays Claude.`,
		Args:   cobra.NoArgs,
		Hidden: true, // run by Claude Code, not by people
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Socket == "" {
				opts.Socket = os.Getenv("CLAUDEWRAP_HOOK_SOCKET")
			}
			if runF != nil {
				return runF(opts)
			}
			if err := hook.ForwardWaiting(opts.Stdin, opts.Socket, opts.Stdout, opts.Wait); err != nil {
				fmt.Fprintln(opts.Stderr, "claudewrap hook: "+err.Error())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Socket, "socket", "", "the wrapper's hook socket (default $CLAUDEWRAP_HOOK_SOCKET)")
	cmd.Flags().DurationVar(&opts.Wait, "wait", 0, "how long the wrapper may take to answer (the hook answer strategy)")
	return cmd
}
