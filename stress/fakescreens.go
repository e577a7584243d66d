package stress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/randscreen"
)

// Shapes are screens nobody picked, drawn by the fake TUI
// (internal/testsupport/fakedialog) in place of Claude Code: dialogs in
// shapes claudewrap has no grammar for (a box with key hints and no menu,
// a menu with no box, a body that scrolls or runs off the top) and screens
// that are no dialog (Claude's prompt with text typed, its / menu, its @
// suggestions, a spinner, a tool's output). Each runs under claudewrap,
// headless. A dialog must be named with its title, options and keys, and
// end the run (blocked) within the dialog grace; a screen that is no
// dialog must never be named.

// ShapesConfig is how RunShapes runs.
type ShapesConfig struct {
	Claudewrap string // the claudewrap binary
	FakeDialog string // the fake TUI's binary
	Dir        string // where each screen's files go
	Parallel   int
	Keep       bool // keep the files of screens read right too
	Logf       func(format string, args ...any)
}

// ShapeVerdict is how one screen was read.
type ShapeVerdict struct {
	Seed   int64  `json:"seed"`
	Shape  string `json:"shape"`
	Dialog bool   `json:"dialog"`
	Right  bool   `json:"right"`
	Why    string `json:"why,omitempty"`
}

// shapeGrace bounds how long after a dialog is named the run may take to
// end: the dialog grace (3 s) and a margin for a loaded machine.
const shapeGrace = 5 * time.Second

// shapeIdle is the idle limit a screen that is no dialog ends the run by.
const shapeIdle = 5 * time.Second

// ShapeSeeds are the n screens' seeds drawn from seed.
func ShapeSeeds(seed uint64, n int) []int64 {
	r := rand.New(rand.NewPCG(seed, 0x5a9e5))
	out := make([]int64, n)
	for i := range out {
		out[i] = r.Int64N(1 << 40)
	}
	return out
}

// RunShapes runs claudewrap on each seed's screen and judges it.
func RunShapes(ctx context.Context, cfg ShapesConfig, seeds []int64) []ShapeVerdict {
	if cfg.Parallel <= 0 {
		cfg.Parallel = 4
	}
	out := make([]ShapeVerdict, len(seeds))
	sem := make(chan struct{}, cfg.Parallel)
	var wg sync.WaitGroup
	for i, seed := range seeds {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = runShape(ctx, cfg, seed)
			if cfg.Logf != nil && !out[i].Right {
				cfg.Logf("shape %d (%s): WRONG: %s", seed, out[i].Shape, out[i].Why)
			}
		}()
	}
	wg.Wait()
	return out
}

func runShape(ctx context.Context, cfg ShapesConfig, seed int64) ShapeVerdict {
	cols, rows := randscreen.Size(seed)
	sc := randscreen.Draw(seed, cols, rows)
	v := ShapeVerdict{Seed: seed, Shape: sc.Shape, Dialog: sc.Dialog}
	dir := filepath.Join(cfg.Dir, fmt.Sprintf("shape-%d", seed))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		v.Why = err.Error()
		return v
	}
	evs := filepath.Join(dir, "events.jsonl")
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, cfg.Claudewrap, "run", "--headless", "--size", fmt.Sprintf("%dx%d", cols, rows),
		"--claude", cfg.FakeDialog, "--events", evs, "--idle-timeout", shapeIdle.String(), "--record", filepath.Join(dir, "screen.cast"),
		"--", "-seed", fmt.Sprint(seed))
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		v.Why = "claudewrap: " + err.Error()
		return v
	}
	b, _ := os.ReadFile(evs)
	v.Right, v.Why = judgeShape(sc, code, b)
	if v.Right && !cfg.Keep {
		os.RemoveAll(dir)
	}
	return v
}

// judgeShape says whether the run read sc as it is, from its exit status
// and its events.
func judgeShape(sc randscreen.Screen, code int, events []byte) (bool, string) {
	var dialogs, blocked []map[string]any
	for _, l := range bytes.Split(events, []byte("\n")) {
		var e map[string]any
		if json.Unmarshal(l, &e) != nil {
			continue
		}
		switch e["event"] {
		case "dialog":
			dialogs = append(dialogs, e)
		case "blocked":
			blocked = append(blocked, e)
		}
	}
	if !sc.Dialog {
		if len(dialogs) > 0 {
			return false, fmt.Sprintf("a screen that is no dialog (%s) was named: %v %q", sc.Shape, dialogs[0]["kind"], dialogs[0]["title"])
		}
		if code != 7 || len(blocked) != 1 || !strings.Contains(fmt.Sprint(blocked[0]["reason"]), "has not changed") {
			return false, fmt.Sprintf("want the run ended by its idle limit (exit 7), got exit %d, blocked %v", code, blocked)
		}
		return true, ""
	}
	if len(dialogs) == 0 {
		return false, "the dialog was never named"
	}
	d := dialogs[0]
	var want []string
	for _, k := range sc.Keys {
		want = append(want, k.Key+" to "+k.Does)
	}
	switch {
	case fmt.Sprint(d["title"]) != sc.Title:
		return false, fmt.Sprintf("title %q, want %q", d["title"], sc.Title)
	case !slices.Equal(strs(d["options"]), sc.Options):
		return false, fmt.Sprintf("options %q, want %q", strs(d["options"]), sc.Options)
	case !slices.Equal(strs(d["keys"]), want):
		return false, fmt.Sprintf("keys %q, want %q", strs(d["keys"]), want)
	case code != 7 || len(blocked) != 1:
		return false, fmt.Sprintf("want the run blocked (exit 7), got exit %d, blocked %v", code, blocked)
	}
	named, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(d["ts"]))
	ended, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(blocked[0]["ts"]))
	if ended.Sub(named) > shapeGrace {
		return false, fmt.Sprintf("the run ended %v after the dialog was named, want within %v", ended.Sub(named), shapeGrace)
	}
	return true, ""
}

// strs is a JSON array of strings as a slice.
func strs(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, x := range a {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// SummarizeShapes is one line on the screens run: how many dialogs were
// named right, and how many screens that are no dialog were left alone.
func SummarizeShapes(vs []ShapeVerdict, took time.Duration) string {
	var dialogs, named, others, left int
	for _, v := range vs {
		if v.Dialog {
			dialogs++
			if v.Right {
				named++
			}
			continue
		}
		others++
		if v.Right {
			left++
		}
	}
	return fmt.Sprintf("screens nobody picked (the fake TUI): %d dialogs, %d named right within the grace; %d screens that are no dialog, %d never named (%s)",
		dialogs, named, others, left, took.Round(time.Second))
}
