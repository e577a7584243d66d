// Command stress runs claudewrap on random AskUserQuestion forms on the real
// Claude Code (see package stress) and prints how many were answered as
// intended, per Claude Code version and per case class.
//
//	go run ./tools/stress -count 300                  # a new random seed, every pinned version
//	go run ./tools/stress -seed 42 -count 20 -versions 2.1.330
//	go run ./tools/stress -seed 42 -count 20 -only NAME  # one session again
//	go run ./tools/stress -count 0 -dialogs 100 -parallel 1  # random dialogs alone
//
// `make stress` runs it with SEED, COUNT and VERSIONS. The seed is printed
// first: run it again with -seed to repeat the very same forms. Sessions
// with a form not answered as intended keep their folder under -out
// (rules, recording, events, bug-report bundle); turn each into a golden
// screen and a test. Exit status 1 when any answer was wrong or fewer than
// -min percent were answered.
package main

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/stress"
)

func main() {
	seed := flag.Uint64("seed", 0, "random seed (0: pick one and print it)")
	count := flag.Int("count", 300, "forms per version")
	shapes := flag.Int("shapes", 0, "screens nobody picked, drawn by the fake TUI (internal/testsupport/fakedialog) in place of Claude Code, once whatever the versions: dialogs in shapes claudewrap has no grammar for, which must be named within the dialog grace, and screens that are no dialog (Claude's / menu, @ suggestions, prompt, spinner), which must never be")
	dialogs := flag.Int("dialogs", 0, "random dialogs per version too: permission prompts under random rules and plan approval (sessions d000…), and after a share of their sessions one of the trust dialog (t…), the bypass confirmation (b…) or an MCP server's input form of a random schema (e…), tallied apart")
	versions := flag.String("versions", strings.Join(claudetest.PinnedVersions(), " "), "Claude Code versions, space- or comma-separated")
	parallel := flag.Int("parallel", 2, "sessions at once (each is a Claude Code process)")
	out := flag.String("out", ".cache/stress", "folder for the sessions' files")
	keep := flag.Bool("keep", false, "keep the files of sessions that went right too")
	minPct := flag.Float64("min", 99.5, "fail when fewer than this percent of the forms asked were answered")
	md := flag.String("md", "", "also write the figures as Markdown to this file")
	via := flag.String("answer-via", "", "answer through the `screen` (default) or the PreToolUse `hook` (an answer path independent of the recogniser)")
	only := flag.String("only", "*", "run only the sessions whose name, as the report prints it, matches this `GLOB`, to repeat a failure")
	gen := flag.Int("generation", int(stress.Latest), "the generator's `generation`, each adding to the one before: 0 no emoji sequences, 1 emoji sequences, 2 headers holding the tab row's marks, 3 white space at the ends of headers and labels, 4 other scripts and invisible characters, 5 answers and notes typed in other scripts, 6 sessions on a resized terminal, 7 that terminal answering Claude's queries as an xterm or a kitty would, 8 the person at it pressing Down now and then, 9 the terminal sending its replies cut in two now and then, 10 the person pressing Up, Left, Right or Esc too, 11 questions whose options are of one family (a shared start, case alone, markdown, no space, punctuation, a tab) and question texts in markdown, 12 some sessions drawn with Claude's fullscreen renderer, 13 some sessions in a colour theme other than Claude's default and some in its vim mode. A seed gives the same forms again with the generation it was drawn with")
	fullscreen := flag.Bool("fullscreen", false, "have Claude draw every session with its fullscreen renderer (`/tui fullscreen`), not only those the generator draws so")
	vim := flag.Bool("vim", false, "turn Claude's vim mode on in every session, not only in those the generator draws so")
	pointer := flag.Bool("pointer", false, "in every session on a terminal, have Claude draw with its fullscreen renderer and the person's pointer move over it throughout (Claude Code "+screen.PointerVersion+" and later)")
	theme := flag.String("theme", "", "have Claude draw every session in this colour `theme` ("+strings.Join(claudetest.Themes, ", ")+"), not only those the generator draws so")
	flag.Parse()
	draws := draws{fullscreen: *fullscreen, theme: *theme, vim: *vim, pointer: *pointer}
	if err := run(*seed, *count, *dialogs, *shapes, strings.Fields(strings.ReplaceAll(*versions, ",", " ")), *parallel, *out, *keep, *minPct, *md, *only, *via, stress.Generation(*gen), draws); err != nil {
		fmt.Fprintln(os.Stderr, "stress:", err)
		os.Exit(1)
	}
}

// draws set what every session gets, whatever the generator drew: Claude's
// fullscreen renderer, a colour theme, its vim mode, the person's pointer.
type draws struct {
	fullscreen bool
	theme      string
	vim        bool
	pointer    bool
}

func run(seed uint64, count, dialogs, shapes int, versions []string, parallel int, out string, keep bool, minPct float64, md, only, via string, gen stress.Generation, all draws) error {
	fullscreen, theme, vim := all.fullscreen, all.theme, all.vim
	if gen < stress.Plain || gen > stress.Latest {
		return fmt.Errorf("-generation %d: want %d to %d", gen, stress.Plain, stress.Latest)
	}
	if via != "" && via != "screen" && via != "hook" {
		return fmt.Errorf("-answer-via %q: want screen or hook", via)
	}
	if theme != "" && !slices.Contains(claudetest.Themes, theme) {
		return fmt.Errorf("-theme %q: want one of %s", theme, strings.Join(claudetest.Themes, ", "))
	}
	if all.pointer {
		for _, v := range versions {
			if !screen.PointerInert(v) {
				return fmt.Errorf("-pointer: Claude Code %s marks the option under the pointer and claudewrap hands the form over; want %s or later", v, screen.PointerVersion)
			}
		}
	}
	if seed == 0 {
		var b [8]byte
		if _, err := crand.Read(b[:]); err != nil {
			return err
		}
		seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	out, err = filepath.Abs(out)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, fmt.Sprint(seed))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin := filepath.Join(dir, "claudewrap")
	build := exec.Command("go", "build", "-o", bin, "./cmd/claudewrap")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build claudewrap (run from the repository root): %w", err)
	}
	mcpdemo := filepath.Join(dir, "mcpdemo")
	if dialogs > 0 {
		build := exec.Command("go", "build", "-o", mcpdemo, "./internal/testsupport/mcpdemo")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build the MCP test server: %w", err)
		}
	}
	var shapeVerdicts []stress.ShapeVerdict
	if shapes > 0 {
		fake := filepath.Join(dir, "fakedialog")
		build := exec.Command("go", "build", "-o", fake, "./internal/testsupport/fakedialog")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build the fake TUI: %w", err)
		}
		started := time.Now()
		shapeVerdicts = stress.RunShapes(context.Background(), stress.ShapesConfig{Claudewrap: bin, FakeDialog: fake, Dir: dir,
			Parallel: 2 * parallel, Keep: keep, Logf: func(f string, a ...any) { fmt.Printf(f+"\n", a...) }}, stress.ShapeSeeds(seed, shapes))
		fmt.Println(stress.SummarizeShapes(shapeVerdicts, time.Since(started)))
	}
	plan := stress.GenerateWith(seed, count, gen)
	plan.Sessions = append(plan.Sessions, stress.GenerateDialogs(seed, dialogs)...)
	if fullscreen {
		plan.AllFullscreen()
	}
	if theme != "" {
		plan.AllTheme(theme)
	}
	if vim {
		plan.AllVim()
	}
	if all.pointer {
		plan.AllPointer()
	}
	var keepSessions []stress.Session
	for _, s := range plan.Sessions {
		ok, err := path.Match(only, s.Name)
		if err != nil {
			return fmt.Errorf("-only: %w", err)
		}
		if ok {
			keepSessions = append(keepSessions, s)
		}
	}
	plan.Sessions = keepSessions
	cmdline := fmt.Sprintf("go run ./tools/stress -seed %d -count %d -versions '%s'", seed, count, strings.Join(versions, " "))
	if shapes > 0 {
		cmdline += fmt.Sprintf(" -shapes %d", shapes)
	}
	if dialogs > 0 {
		cmdline += fmt.Sprintf(" -dialogs %d", dialogs)
	}
	if only != "*" {
		cmdline += fmt.Sprintf(" -only '%s'", only)
	}
	if via != "" && via != "screen" {
		cmdline += " -answer-via " + via
	}
	if fullscreen {
		cmdline += " -fullscreen"
	}
	if theme != "" {
		cmdline += " -theme " + theme
	}
	if vim {
		cmdline += " -vim"
	}
	if all.pointer {
		cmdline += " -pointer"
	}
	cmdline += fmt.Sprintf(" -generation %d", gen) // a later generation gives the seed other forms
	fmt.Printf("seed %d: %d forms and %d dialogs in %d sessions, on Claude Code %s\n  repeat with: %s\n",
		seed, plan.Forms(), plan.Dialogs(), len(plan.Sessions), strings.Join(versions, ", "), cmdline)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	vs, runErr := stress.Run(ctx, stress.Config{
		Claudewrap: bin,
		Claude: func(v string) (string, error) {
			p := filepath.Join(root, ".cache", "claude-code", v, "node_modules", ".bin", "claude")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("version %s of Claude Code is not installed (make claude): %w", v, err)
			}
			return p, nil
		},
		Versions:  versions,
		Parallel:  parallel,
		Dir:       dir,
		Keep:      keep,
		AnswerVia: via,
		MCPDemo:   mcpdemo,
		Logf:      func(f string, a ...any) { fmt.Printf(f+"\n", a...) },
	}, plan)

	if b, err := json.MarshalIndent(vs, "", "  "); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "verdicts.json"), b, 0o644)
	}
	sum := stress.Summarize(vs)
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` (%s, %s, %d sessions at once)\n\n", cmdline, time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		time.Since(start).Round(time.Second), parallel)
	sum.Markdown(&b)
	fmt.Println()
	fmt.Print(b.String())
	if md != "" {
		if err := os.WriteFile(md, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	for _, v := range vs {
		if v.Outcome == stress.Wrong || v.Outcome == stress.Failed {
			fmt.Printf("%s %s on %s %dx%d: %s: %s\n  %s\n", v.Outcome, v.Case, v.Version, v.Cols, v.Rows, strings.Join(v.Classes, ","), v.Detail, v.Dir)
		}
	}
	if runErr != nil {
		return runErr
	}
	for _, v := range shapeVerdicts {
		if !v.Right {
			return fmt.Errorf("screen %d (%s) read wrong: %s", v.Seed, v.Shape, v.Why)
		}
	}
	if d := sum.Dialogs; d != nil {
		switch {
		case d.Total.Wrong > 0:
			return fmt.Errorf("%d dialogs answered wrong", d.Total.Wrong)
		case d.Total.Answered() < minPct:
			return fmt.Errorf("%.1f %% of the dialogs answered, want at least %.1f %%", d.Total.Answered(), minPct)
		}
	}
	switch {
	case sum.Total.Wrong > 0:
		return fmt.Errorf("%d wrong answers", sum.Total.Wrong)
	case sum.Total.Asked > 0 && sum.Total.Answered() < minPct:
		return fmt.Errorf("%.1f %% answered, want at least %.1f %%", sum.Total.Answered(), minPct)
	}
	return nil
}
