package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/screen"
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
		Use:   "replay FILE.cast",
		Short: "Feed a recording through the emulator; print the screen and the form on it",
		Args:  cobra.ExactArgs(1),
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
	f, err := os.Open(opts.File)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	defer f.Close()
	snap, err := replay(f, opts.At)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("%s: %w", opts.File, err))
	}
	fmt.Fprintln(opts.Stdout, snap.Text())
	fmt.Fprintf(opts.Stdout, "\n--- %dx%d, cursor %d,%d ---\n", snap.Cols, snap.Rows, snap.Cursor.X, snap.Cursor.Y)
	if form, err := screen.Recognize(snap); err != nil {
		fmt.Fprintln(opts.Stdout, err)
	} else {
		fmt.Fprint(opts.Stdout, form)
	}
	return nil
}

// replay feeds a recording through a fresh emulator and returns the screen.
func replay(r io.Reader, at float64) (screen.Snapshot, error) {
	h, evs, err := cast.Read(r)
	if err != nil {
		return screen.Snapshot{}, err
	}
	em := screen.New(screen.Options{Cols: h.Width, Rows: h.Height})
	if err := cast.Play(evs, at, em); err != nil {
		return screen.Snapshot{}, err
	}
	return em.Snapshot(), nil
}
