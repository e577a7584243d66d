package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/ptyhost"
)

// RunOptions are the flags of `claudewrap run`.
type RunOptions struct {
	Stdin          *os.File
	Stdout, Stderr io.Writer

	Claude     string
	ClaudeArgs []string
	Headless   bool
	Cols, Rows int
	Events     string
	Record     string
}

// notYet lists run flags whose behaviour arrives with later work: setting
// one is an error rather than being silently ignored.
var notYet = []string{"rules", "on-unmatched", "answer-timeout", "exit-after-turn", "dry-run"}

// NewCmdRun builds `claudewrap run`. runF replaces the run function in tests.
func NewCmdRun(stdin *os.File, stdout, stderr io.Writer, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	var size string
	cmd := &cobra.Command{
		Use:   "run [flags] [-- claude args...]",
		Short: "Start claude in a pseudo-terminal and answer its questions",
		Long: `Start Claude Code in a pseudo-terminal that claudewrap owns.

In a terminal, Claude is shown exactly as if it ran on its own. With --headless
(automatic when stdin is not a terminal) it draws only on claudewrap's emulated
screen. Everything after -- goes to claude unchanged.`,
		Example: `  claudewrap run -- "fix the flaky test"
  claudewrap run --headless --record session.cast -- "hello"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, name := range notYet {
				if cmd.Flags().Changed(name) {
					return usageErrorf("--%s is not implemented yet", name)
				}
			}
			opts.ClaudeArgs = args
			if !cmd.Flags().Changed("headless") && !term.IsTerminal(int(opts.Stdin.Fd())) {
				opts.Headless = true
			}
			c, r, err := parseSize(size)
			if err != nil {
				return usageErrorf("--size: %v", err)
			}
			opts.Cols, opts.Rows = c, r
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
	f.StringVar(&opts.Claude, "claude", "", "Claude Code binary (default $CLAUDEWRAP_CLAUDE, else claude on PATH)")
	f.StringArray("rules", nil, "rule `file`, repeatable (default ./.claudewrap.yaml, then $XDG_CONFIG_HOME/claudewrap/rules.yaml)")
	f.BoolVar(&opts.Headless, "headless", false, "draw Claude only on the virtual screen (automatic when stdin is not a terminal)")
	f.StringVar(&size, "size", "120x40", "virtual terminal size `COLSxROWS` when headless")
	f.String("on-unmatched", "", "policy for questions no rule answers: passthrough, ask, fallback, cancel, fail")
	f.Duration("answer-timeout", 0, "how long passthrough/ask wait for a person before the fallback answer")
	f.Bool("exit-after-turn", false, "end Claude and exit when it finishes its turn")
	f.StringVar(&opts.Events, "events", "", "JSON-lines event log `file` (- for stdout; headless default is stdout)")
	f.StringVar(&opts.Record, "record", "", "write an asciicast v2 recording to `FILE.cast`")
	f.Bool("dry-run", false, "decide and log, press nothing")
	return cmd
}

func parseSize(s string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		cols, err1 := strconv.Atoi(c)
		rows, err2 := strconv.Atoi(r)
		if err1 == nil && err2 == nil && cols >= 20 && rows >= 5 && cols <= 1000 && rows <= 1000 {
			return cols, rows, nil
		}
	}
	return 0, 0, fmt.Errorf("want COLSxROWS between 20x5 and 1000x1000, got %q", s)
}

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
	path, err := findClaude(opts.Claude)
	if err != nil {
		return withCode(ExitStart, err)
	}

	evName := opts.Events
	if evName == "" && opts.Headless {
		evName = "-"
	}
	var log *events.Log
	switch evName {
	case "":
	case "-":
		log = events.New(opts.Stdout)
	default:
		f, err := os.OpenFile(evName, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return usageErrorf("--events: %v", err)
		}
		defer f.Close()
		log = events.New(f)
	}

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
	if opts.Record != "" {
		f, err := os.Create(opts.Record)
		if err != nil {
			return usageErrorf("--record: %v", err)
		}
		defer f.Close()
		// The header's size is the starting size; the host records it as an
		// "r" event too, which covers passthrough terminals of another size.
		rec, err := cast.NewWriter(f, opts.Cols, opts.Rows)
		if err != nil {
			return fmt.Errorf("--record: %w", err)
		}
		cfg.Tap = rec
	}

	log.Emit("start", events.Fields{"claude": path, "args": opts.ClaudeArgs, "headless": opts.Headless})
	h, err := ptyhost.Start(cfg)
	if err != nil {
		log.Emit("error", events.Fields{"message": err.Error()})
		log.Emit("exit", events.Fields{"code": int(ExitStart)})
		if errors.Is(err, ptyhost.ErrStart) {
			return withCode(ExitStart, err)
		}
		return withCode(ExitError, err)
	}
	st, werr := h.Wait()
	if werr != nil {
		log.Emit("error", events.Fields{"message": werr.Error()})
	}
	fields := events.Fields{"code": st.Code}
	if st.Signal != 0 {
		fields["signal"] = st.Signal.String()
	}
	log.Emit("exit", fields)
	if st.Code != 0 {
		return withCode(ExitCode(st.Code), nil)
	}
	return werr
}
