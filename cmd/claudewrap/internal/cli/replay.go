package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/bundle"
	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/internal/safefile"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// ReplayOptions are the flags of `claudewrap replay`.
type ReplayOptions struct {
	Stdout io.Writer
	File   string
	At     float64 // seconds; negative means the end
}

// NewCmdReplay builds `claudewrap replay`.
func NewCmdReplay(stdout io.Writer, runF func(*ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{Stdout: stdout}
	cmd := &cobra.Command{
		Use:   "replay FILE.cast | BUNDLE-DIR",
		Short: "Feed a recording through the emulator; print the screen and the form on it",
		Long: `Feed a recording through claudewrap's emulator and print the screen, then the
form recognised on it (or why none was).

Given the folder of a bug-report bundle (claudewrap writes one under
$XDG_STATE_HOME/claudewrap/bundles when a form could not be answered, or a chat
message could not be sent), replay its recording and also say, for each
question the hook reported, whether the screen shows it as asked; for a chat
message, what Claude's prompt holds and how often the message shows as sent.`,
		Example: `  claudewrap replay session.cast
  claudewrap replay --at 2.5 session.cast
  claudewrap replay ~/.local/state/claudewrap/bundles/20261123T101500.000Z-toolu_01abc`,
		Args: needArgs(cobra.ExactArgs(1), "one recording: FILE.cast, or a bug report's folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if !cmd.Flags().Changed("at") {
				opts.At = -1
			} else if opts.At < 0 {
				return usageErrorf("--at must not be negative")
			}
			if runF != nil {
				return runF(opts)
			}
			return runReplay(opts)
		},
	}
	cmd.Flags().Float64Var(&opts.At, "at", 0, "show the screen at this many `SECONDS` into the recording (default: the end)")
	return cmd
}

func runReplay(opts *ReplayOptions) error {
	path := opts.File
	var rep *bundle.Report
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		r, err := bundle.Read(path)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		rep, path = &r, filepath.Join(path, bundle.CastFile)
	}
	// Only a regular file: a FIFO would be waited on for ever. A long
	// recording is read as it is played, never held whole.
	f, err := safefile.Open(path)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	defer f.Close()
	snap, err := replay(f, opts.At)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("%s: %w", path, err))
	}
	// The recording is a file from anywhere: what its screen holds, and
	// the form read from it, are shown escaped.
	fmt.Fprintln(opts.Stdout, safe.Text(snap.Text()))
	fmt.Fprintf(opts.Stdout, "\n--- %dx%d, cursor %d,%d ---\n", snap.Cols, snap.Rows, snap.Cursor.X, snap.Cursor.Y)
	form, ferr := screen.Recognize(snap)
	if ferr != nil {
		printLine(opts.Stdout, "%v", ferr)
	} else {
		fmt.Fprint(opts.Stdout, safe.Text(form.String()))
	}
	switch {
	case rep != nil && rep.Step == "message":
		printMessageBundle(opts.Stdout, rep, snap)
	case rep != nil:
		printBundle(opts.Stdout, rep, form)
	}
	return nil
}

// printBundle says what the bundle reports, and whether the replayed screen
// shows each question as the hook asked it.
func printBundle(w io.Writer, rep *bundle.Report, form *screen.Form) {
	fmt.Fprintln(w)
	printLine(w, "--- bug report: form %s, %s: %s (after %s) ---", rep.ToolUseID, rep.Step, rep.Reason, plural(rep.Keys, "key"))
	qs := rep.Questions
	for i, q := range qs {
		d := ""
		if i < len(rep.Decisions) {
			d = " — intended: " + rep.Decisions[i]
		}
		printLine(w, "question %d: %q%s", i+1, q.Question, d)
		switch {
		case form == nil:
			fmt.Fprintln(w, "  no form on the replayed screen")
		case form.Review != nil:
			fmt.Fprintln(w, "  the review page is showing")
		case form.Shows(qs, i):
			fmt.Fprintln(w, "  the screen shows this question as asked")
		default:
			headers := make([]string, len(qs))
			for j, q := range qs {
				headers[j] = q.Header
			}
			why := append(form.Disagreements(q), form.TabDisagreements(headers)...)
			if len(why) == 0 {
				why = []string{"the screen shows another question (tab or text)"}
			}
			for _, line := range why {
				printLine(w, "  %s", line)
			}
		}
	}
}

// printMessageBundle says what the bundle of a chat message reports (sent
// after "Chat about this" on form rep.ToolUseID), and what the replayed
// screen shows of it: Claude's prompt holding it, and Claude's echoes of it
// as sent.
func printMessageBundle(w io.Writer, rep *bundle.Report, snap vt.Snapshot) {
	fmt.Fprintln(w)
	printLine(w, "--- bug report: the chat message after form %s: %s (after %s) ---", rep.ToolUseID, rep.Reason, plural(rep.Keys, "key"))
	if len(rep.Decisions) == 0 {
		return
	}
	printLine(w, "intended: %s", rep.Decisions[0])
	q, ok := strings.CutPrefix(rep.Decisions[0], "chat ")
	text, err := strconv.Unquote(q)
	if !ok || err != nil {
		return
	}
	switch p, ok := screen.Prompt(snap); {
	case !ok:
		fmt.Fprintln(w, "  Claude's prompt is not on the replayed screen")
	case p == "":
		fmt.Fprintln(w, "  Claude's prompt is empty")
	case p == text:
		fmt.Fprintln(w, "  Claude's prompt holds the message")
	default:
		printLine(w, "  Claude's prompt holds %q", p)
	}
	fmt.Fprintf(w, "  shown sent above the prompt: %s\n", plural(screen.Echoes(snap, text), "time"))
}

// replay feeds a recording through a fresh emulator, event by event, and
// returns the screen.
func replay(r io.Reader, at float64) (vt.Snapshot, error) {
	rd, err := cast.NewReader(r)
	if err != nil {
		return vt.Snapshot{}, err
	}
	h := rd.Header
	// The recording's Claude Code version measures spacing marks as they
	// were measured live; its banner, where it shows one, still overrides.
	em := screen.New(screen.Options{Cols: h.Width, Rows: h.Height, Version: h.ClaudeVersion()})
	if err := rd.Play(at, em); err != nil {
		return vt.Snapshot{}, err
	}
	return em.Snapshot(), nil
}
