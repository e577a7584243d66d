//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
// command left to a person nobody is; and between them two of the other
// kinds: an MCP server's form (a titled enum and a oneOf, one required)
// accepted by a rule, and the trust dialog answered by a rule, then a
// permission prompt (`make stress DIALOGS=n` runs as many as asked).
const (
	dialogSeed    = 3
	sampleDialogs = 6
)

// TestStressDialogs answers the random-dialog sample (see
// stress.GenerateDialogs) on every pinned Claude Code version, judged by
// the tool_results Claude recorded: the tool ran, was refused with the
// rule's message, the plan approved, or nothing ran where no rule decides;
// the MCP server's form by what the server received, the trust dialog by
// Claude's session starting in a folder it then trusts.
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
		MCPDemo:    claudetest.MCPDemo(t),
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
