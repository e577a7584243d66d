//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/stress"
)

// sampleSeed fixes the random-form sample run on every pinned version
// (`make stress` runs as many as asked, any seed).
const sampleSeed = 20261123

// sampleSize is how many forms the sample has: 30, or
// CLAUDEWRAP_SAMPLE_FORMS (`make test` asks for fewer).
func sampleSize(t *testing.T) int {
	v := os.Getenv("CLAUDEWRAP_SAMPLE_FORMS")
	if v == "" {
		return 30
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("CLAUDEWRAP_SAMPLE_FORMS=%q: want a number of forms, 1 or more", v)
	}
	return n
}

// TestStressSample answers a fixed sample of random forms (see package
// stress) on every pinned Claude Code version, judged by what Claude
// recorded. No answer may be wrong; at most one form per version may go
// unanswered (each is cancelled and reported, with a bug report).
func TestStressSample(t *testing.T) {
	bin := claudetest.Claudewrap(t)
	sampleForms := sampleSize(t)
	plan := stress.Generate(sampleSeed, sampleForms)
	for _, version := range claudetest.PinnedVersions() {
		t.Run("claude-"+version, func(t *testing.T) {
			claude := claudetest.Binary(t, version)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			dir := keepDir(t)
			vs, err := stress.Run(ctx, stress.Config{
				Claudewrap: bin,
				Claude:     func(string) (string, error) { return claude, nil },
				Versions:   []string{version},
				Parallel:   2,
				Dir:        dir,
				Logf:       func(f string, a ...any) { t.Logf(f, a...) },
			}, plan)
			if err != nil {
				t.Fatal(err)
			}
			sum := stress.Summarize(vs)
			tally := sum.Total
			var bad []string
			for _, v := range vs {
				if v.Outcome == stress.Wrong || v.Outcome == stress.Failed {
					bad = append(bad, fmt.Sprintf("%s %s %dx%d [%s]: %s (files: %s)", v.Outcome, v.Case, v.Cols, v.Rows,
						strings.Join(v.Classes, ","), v.Detail, filepath.Base(v.Dir)))
				}
			}
			if tally.Wrong > 0 || tally.Failed > 1 || tally.Asked < sampleForms/2 {
				t.Errorf("%d forms asked, %d right, %d wrong, %d not answered, %d left to the person, who typed:\n%s",
					tally.Asked, tally.Right, tally.Wrong, tally.Failed, tally.Theirs, strings.Join(bad, "\n"))
			}
			for _, b := range bad {
				t.Log(b)
			}
			report("Claude Code %s: %d random forms (seed %d): %d right, %d wrong, %d not answered, %d left to the person, who typed",
				version, tally.Asked, sampleSeed, tally.Right, tally.Wrong, tally.Failed, tally.Theirs)
		})
	}
}

// dialogSeed and sampleDialogs fix the random-dialog sample: five sessions
// with a Bash command denied and a Read beside the folder allowed in
// accept-edits mode, plan approval with a plan file approved and denied (at
// 79 and at 80 columns, where the plan's question wraps), and a Bash
// command left to a person nobody is (`make stress DIALOGS=n` runs as many
// as asked).
const (
	dialogSeed    = 3
	sampleDialogs = 6
)

// TestStressDialogs answers the random-dialog sample (see
// stress.GenerateDialogs) on every pinned Claude Code version, judged by
// the tool_results Claude recorded: the tool ran, was refused with the
// rule's message, the plan approved, or nothing ran where no rule decides.
// None may be wrong; at most one may go unanswered, as in TestStressSample.
func TestStressDialogs(t *testing.T) {
	bin := claudetest.Claudewrap(t)
	plan := stress.Plan{Seed: dialogSeed, Sessions: stress.GenerateDialogs(dialogSeed, sampleDialogs)}
	for _, version := range claudetest.PinnedVersions() {
		t.Run("claude-"+version, func(t *testing.T) {
			vs := runOne(t, bin, claudetest.Binary(t, version), version, plan, false)
			d := stress.Summarize(vs).Dialogs
			if d == nil {
				t.Fatal("no dialog was judged")
			}
			for _, v := range vs {
				if v.Outcome == stress.Wrong || v.Outcome == stress.Failed {
					t.Logf("%s %s %dx%d [%s]: %s (files: %s)", v.Outcome, v.Case, v.Cols, v.Rows, strings.Join(v.Classes, ","), v.Detail, v.Dir)
				}
			}
			if d.Total.Wrong > 0 || d.Total.Failed > 1 || d.Total.Asked < sampleDialogs-1 {
				t.Errorf("%d dialogs asked, %d right, %d wrong, %d not answered", d.Total.Asked, d.Total.Right, d.Total.Wrong, d.Total.Failed)
			}
			report("Claude Code %s: %d random dialogs (seed %d): %d right, %d wrong, %d not answered",
				version, d.Total.Asked, dialogSeed, d.Total.Right, d.Total.Wrong, d.Total.Failed)
		})
	}
}

// TestTallPage answers the random forms that claudewrap could not answer
// before, on every pinned version: a page taller than a short screen whose
// wanted option 1 is above the screen's top, where Claude does not scroll
// (stress-7480-s024-50x16 on every version, stress-0268-s036-43x20 on
// 2.1.299 and later), and notes that leave no form in sight
// (stress-1176-s034-44x16, 2.1.321 and later). Headless, claudewrap makes the terminal taller
// for it (twice as tall: the run's recording shows the size), answers on
// the page shown whole, and gives the rows back. Judged by what Claude
// recorded, like every random form.
func TestTallPage(t *testing.T) {
	bin := claudetest.Claudewrap(t)
	type pick struct {
		seed    uint64
		session string
		grown   string // the recording's size while the form was answered
		// cut is the oldest pinned version on which the page is cut with
		// option 1 above the top (older ones draw it so that it fits).
		cut string
	}
	picks := []pick{{6070619087335327480, "s024", "50x32", "2.1.197"}, {11851546580518840268, "s036", "43x40", "2.1.299"},
		// Notes wrapped in a narrow preview column push every option off
		// the screen: no form in sight after the notes are typed.
		{12353519114840221176, "s034", "44x32", "2.1.321"}}
	for _, version := range claudetest.PinnedVersions() {
		t.Run("claude-"+version, func(t *testing.T) {
			claude := claudetest.Binary(t, version)
			for _, p := range picks {
				plan := stress.GenerateWith(p.seed, 150, stress.Plain) // these seeds' forms, from before emoji sequences
				plan.Sessions = slices.DeleteFunc(plan.Sessions, func(s stress.Session) bool { return s.Name != p.session })
				if len(plan.Sessions) != 1 {
					t.Fatalf("seed %d has no session %s", p.seed, p.session)
				}
				vs := runOne(t, bin, claude, version, plan, true)
				if len(vs) != len(plan.Sessions[0].Cases) {
					t.Fatalf("seed %d %s: %d verdicts for %d forms", p.seed, p.session, len(vs), len(plan.Sessions[0].Cases))
				}
				for _, v := range vs {
					if v.Outcome != stress.Right {
						t.Errorf("seed %d %s: %s %s: %s", p.seed, p.session, v.Outcome, v.Case, v.Detail)
					}
				}
				rec, err := os.ReadFile(filepath.Join(vs[0].Dir, "run.cast"))
				if err != nil {
					t.Fatal(err)
				}
				grown := strings.Contains(string(rec), `"r", "`+p.grown+`"`)
				if !grown && patchOf(version) >= patchOf(p.cut) {
					t.Errorf("seed %d %s: the recording never shows the terminal at %s", p.seed, p.session, p.grown)
				}
				report("Claude Code %s: a page taller than the screen (seed %d %s): %d forms right; terminal made taller: %t",
					version, p.seed, p.session, len(vs), grown)
			}
		})
	}
}

// TestTerminalReplies answers random forms on a person's terminal that
// answers Claude's queries as an xterm does and is resized while the forms
// are answered (seed 1764123500, session s022: five forms; and s026, whose
// terminal answers as a kitty does), on every pinned version. 2.1.299 and
// later ask the terminal for its cell's size (CSI 16 t) again after a
// resize; claudewrap took the reply for the person typing and handed the
// form over (random forms run 46: 40 forms on those four versions); the
// test fails there unless such a reply came while a form was open. On older
// versions it is a check that nothing else moved. Judged by what Claude
// recorded, like every random form: none handed over as typed by the
// person, none wrong, at most one not answered for another reason (as in
// TestStressSample).
func TestTerminalReplies(t *testing.T) {
	bin := claudetest.Claudewrap(t)
	const seed = 1764123500
	plan := stress.GenerateWith(seed, 150, stress.Replies)
	plan.Sessions = slices.DeleteFunc(plan.Sessions, func(s stress.Session) bool { return s.Name != "s022" && s.Name != "s026" })
	if len(plan.Sessions) != 2 || !plan.Sessions[0].Terminal || plan.Sessions[0].Replies != stress.Xterm || plan.Sessions[1].Replies != stress.Kitty {
		t.Fatalf("seed %d no longer gives s022 and s026 on an xterm and a kitty: %+v", seed, plan.Sessions)
	}
	for _, version := range claudetest.PinnedVersions() {
		t.Run("claude-"+version, func(t *testing.T) {
			vs := runOne(t, bin, claudetest.Binary(t, version), version, plan, false)
			resized, replied, failed := 0, 0, 0
			for _, v := range vs {
				switch {
				case v.Outcome == stress.Right, v.Outcome == stress.NotAsked:
				case v.Outcome == stress.Failed && !strings.Contains(v.Detail, "the person typed"):
					// Like the random-form sample, one form a version may go
					// unanswered for another reason, reported: CI once saw
					// 2.1.321 record nothing after a submit met a resize.
					failed++
					t.Logf("seed %d %s: %s %s: %s", seed, v.Session, v.Outcome, v.Case, v.Detail)
				default:
					t.Errorf("seed %d %s: %s %s: %s", seed, v.Session, v.Outcome, v.Case, v.Detail)
				}
				resized += v.Resized
				replied += v.Replied
			}
			if failed > 1 {
				t.Errorf("%d forms not answered", failed)
			}
			if len(vs) != plan.Forms() {
				t.Errorf("%d verdicts for %d forms", len(vs), plan.Forms())
			}
			// Else the run proves nothing: no reply came while a form was
			// being answered (2.1.266 and older never ask after a resize).
			if patchOf(version) >= 299 && replied == 0 {
				t.Errorf("no reply to Claude's queries while a form was open (%d resizes landed)", resized)
			}
			if t.Failed() {
				return
			}
			report("Claude Code %s: %d random forms on an xterm's and a kitty's terminal, resized mid-form (%d resizes landed, %d replies to Claude's queries while a form was open): none handed over for a reply, %d not answered",
				version, len(vs), resized, replied, failed)
		})
	}
}

// runOne runs a few picked sessions of random forms on one version, one at
// a time, within 5 minutes; keep keeps their files (the recording) for the
// test to read.
func runOne(t *testing.T, bin, claude, version string, plan stress.Plan, keep bool) []stress.Verdict {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	vs, err := stress.Run(ctx, stress.Config{
		Claudewrap: bin,
		Claude:     func(string) (string, error) { return claude, nil },
		Versions:   []string{version},
		Parallel:   1,
		Dir:        keepDir(t),
		Keep:       keep,
		Logf:       func(f string, a ...any) { t.Logf(f, a...) },
	}, plan)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// keepDir is a new folder for random-form sessions that outlives a failed
// test: under .cache/e2e-keep/TEST/ (git-ignored; CI's clean clone keeps
// it too), so that a failure's recording, events and bug report can be read
// afterwards. It is removed when the test passes; stress removes the
// folders of sessions that went right.
func keepDir(t *testing.T) string {
	t.Helper()
	base := filepath.Join(claudetest.Root(t), ".cache", "e2e-keep", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, "run")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// stress.Run removes the folders of sessions whose forms were all
		// right: what is left is a form not answered (which the sample
		// allows one of), kept for a golden screen even when the test passes.
		left, _ := filepath.Glob(filepath.Join(dir, "*", "*", "run.cast"))
		if !t.Failed() && len(left) == 0 {
			os.RemoveAll(dir)
			os.Remove(base) // if empty
		} else {
			t.Logf("the files of sessions not all right are kept in %s", dir)
		}
	})
	return dir
}

// patchOf is the last number of a Claude Code version ("2.1.299": 299);
// every pinned version is 2.1.x.
func patchOf(version string) int {
	n, _ := strconv.Atoi(version[strings.LastIndexByte(version, '.')+1:])
	return n
}
