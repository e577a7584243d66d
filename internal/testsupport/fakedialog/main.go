// Command fakedialog is a small TUI for the tests: it draws the random
// screen of a seed (package randscreen: a dialog in a shape nobody picked,
// or a screen that is no dialog) on its terminal, at the terminal's size,
// waits for a key, and prints which key it got on a line of its own
// ("key: Enter"), then exits 0. The stress harness and end-to-end tests
// run claudewrap on it as they would on Claude Code. It is test support,
// never part of a release.
//
//	fakedialog -seed N [-log FILE] [-describe]
//
// -log appends the key's name to FILE as a line. -describe prints what the
// screen must be read as, as JSON, and exits without drawing. With no
// terminal on its output it draws at the seed's own size (randscreen.Size).
// It does not redraw on a resize.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"golang.org/x/term"

	"github.com/claudewrap/claudewrap/internal/testsupport/randscreen"
)

func main() {
	seed := flag.Int64("seed", 1, "the seed of the screen to draw")
	logPath := flag.String("log", "", "append the key's name to this file")
	describe := flag.Bool("describe", false, "print what the screen must be read as (JSON) and exit")
	// claudewrap gives Claude Code its hooks with --settings; a stand-in
	// for Claude takes the flag and has no use for it.
	flag.String("settings", "", "what claudewrap gives Claude Code (ignored)")
	flag.Parse()
	if err := run(*seed, *logPath, *describe); err != nil {
		fmt.Fprintln(os.Stderr, "fakedialog:", err)
		os.Exit(1)
	}
}

// description is what -describe prints: the screen without its output.
type description struct {
	Seed    int64            `json:"seed"`
	Cols    int              `json:"cols"`
	Rows    int              `json:"rows"`
	Shape   string           `json:"shape"`
	Dialog  bool             `json:"dialog"`
	Title   string           `json:"title,omitempty"`
	Body    string           `json:"body,omitempty"`
	Options []string         `json:"options,omitempty"`
	Focus   int              `json:"focus"`
	Keys    []randscreen.Key `json:"keys,omitempty"`
	Cut     bool             `json:"cut,omitempty"`
}

func run(seed int64, logPath string, describe bool) error {
	cols, rows := randscreen.Size(seed)
	out := int(os.Stdout.Fd())
	if term.IsTerminal(out) {
		if c, r, err := term.GetSize(out); err == nil && c > 0 && r > 0 {
			cols, rows = c, r
		}
	}
	sc := randscreen.Draw(seed, cols, rows)
	if describe {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(description{Seed: sc.Seed, Cols: sc.Cols, Rows: sc.Rows, Shape: sc.Shape, Dialog: sc.Dialog,
			Title: sc.Title, Body: sc.Body, Options: sc.Options, Focus: sc.Focus, Keys: sc.Keys, Cut: sc.Cut})
	}
	in := int(os.Stdin.Fd())
	if term.IsTerminal(in) {
		old, err := term.MakeRaw(in)
		if err != nil {
			return err
		}
		defer func() { _ = term.Restore(in, old) }()
	}
	if _, err := os.Stdout.Write(sc.Output); err != nil {
		return err
	}
	buf := make([]byte, 64)
	n, err := os.Stdin.Read(buf)
	if err != nil {
		return fmt.Errorf("read a key: %w", err)
	}
	name := keyName(buf[:n])
	if logPath != "" {
		f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(f, name)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(os.Stdout, "\r\nkey: %s\r\n", name)
	return err
}

// keys are the names of the sequences a terminal sends for its keys.
var keys = map[string]string{
	"\r": "Enter", "\n": "ctrl+j", "\x1b": "Esc", "\t": "Tab", "\x1b[Z": "shift+Tab", " ": "Space",
	"\x7f": "Backspace", "\b": "Backspace",
	"\x1b[A": "Up", "\x1b[B": "Down", "\x1b[C": "Right", "\x1b[D": "Left",
	"\x1bOA": "Up", "\x1bOB": "Down", "\x1bOC": "Right", "\x1bOD": "Left",
	"\x1b[5~": "PgUp", "\x1b[6~": "PgDn", "\x1b[H": "Home", "\x1b[F": "End", "\x1b[3~": "Delete",
}

// keyName names the key whose bytes came in one read: "Enter", "ctrl+c",
// "shift+Tab", the text of a printable key, or the bytes quoted.
func keyName(p []byte) string {
	s := string(p)
	if name, ok := keys[s]; ok {
		return name
	}
	if len(p) == 1 && p[0] >= 1 && p[0] <= 26 {
		return "ctrl+" + string(rune('a'+p[0]-1))
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return fmt.Sprintf("%q", s)
		}
	}
	return s
}
