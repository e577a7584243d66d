//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/claudetest"
	"github.com/claudewrap/claudewrap/stress"
)

// sampleSeed and sampleForms fix the random-form sample `make test` runs on
// every pinned version (`make stress` runs as many as asked, any seed).
const (
	sampleSeed  = 20261123
	sampleForms = 30
)

// TestStressSample answers a fixed sample of random forms (see package
// stress) on every pinned Claude Code version, judged by what Claude
// recorded. No answer may be wrong; at most one form per version may go
// unanswered (each is cancelled and reported, with a bug report).
func TestStressSample(t *testing.T) {
	bin := claudetest.Claudewrap(t)
	plan := stress.Generate(sampleSeed, sampleForms)
	for _, version := range claudetest.PinnedVersions() {
		t.Run("claude-"+version, func(t *testing.T) {
			claude := claudetest.Binary(t, version)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			dir := t.TempDir()
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
				t.Errorf("%d forms asked, %d right, %d wrong, %d not answered:\n%s",
					tally.Asked, tally.Right, tally.Wrong, tally.Failed, strings.Join(bad, "\n"))
			}
			for _, b := range bad {
				t.Log(b)
			}
			report("Claude Code %s: %d random forms (seed %d): %d right, %d wrong, %d not answered",
				version, tally.Asked, sampleSeed, tally.Right, tally.Wrong, tally.Failed)
		})
	}
}
