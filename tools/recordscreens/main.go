// Command recordscreens records the real Claude Code drawing AskUserQuestion
// forms (and screens that only look like one) into asciicast files under
// testdata/screens/, the material for the form recogniser's golden tests.
//
// Run it from the repository root:
//
//	go run ./tools/recordscreens                      # everything, both pinned versions
//	go run ./tools/recordscreens -only 'three-*'      # recordings whose name matches a glob
//	go run ./tools/recordscreens -versions 2.1.330    # one version
//	go run ./tools/recordscreens -parallel 1          # one Claude Code at a time (default 2)
//
// Each recording starts a fresh sandbox (scratch HOME pre-seeded past the
// first-run dialogs, the fake Messages API playing a scenario from
// testdata/scenarios/), runs the pinned claude with the prompt in a headless
// PTY of each listed size, plays the steps, waits until the screen has been
// still for a moment, and writes testdata/screens/<version>/<name>-<COLS>x<ROWS>.cast.
//
// To add a recording, append an entry to testdata/screens/manifest.yaml:
//
//	recordings:
//	  - name: database-focus-2            # file name stem: lower case and dashes
//	    note: single-select, focus on 2   # what the screen shows, for the README
//	    scenario: testdata/scenarios/database.yaml
//	    prompt: pick a database           # claude's first message
//	    sizes: [100x40]                   # COLSxROWS, one file each
//	    versions: [2.1.330]               # optional; default: every -versions
//	    args: [--permission-mode, default] # optional claude arguments before the prompt
//	    untrusted: true                   # optional: leave the trust dialog up
//	    env: [IS_SANDBOX=1]               # optional: more of Claude's environment
//	    config: {editorMode: vim}          # optional keys of Claude's ~/.claude.json
//	    fullscreen: true                  # optional: Claude's fullscreen renderer
//	    files: {.mcp.json: "{…}"}         # optional: files written into the project folder
//	    steps:
//	      - wait: "❯ 1. PostgreSQL"       # until the screen contains this (60s)
//	      - gone: "ctrl+g"                # until the screen no longer contains this
//	      - keys: [Down]                  # Up Down Left Right Enter Space Tab BTab Esc n 0-9
//	      - text: "We use SQLite"         # typed as one chunk
//	      - settle: true                  # until the screen is still for 300 ms
//	      - stop_at_first: "Which database" # last step only: cut the output right
//	                                      # after this text, without settling
//
// then run the tool with -only and the new name, replay the result with
// `go run ./cmd/claudewrap replay FILE` and add a line to testdata/screens/README.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

const (
	manifestPath = "testdata/screens/manifest.yaml"
	waitLimit    = 60 * time.Second       // each wait step
	stillFor     = 300 * time.Millisecond // no change for this long: settled
	settleLimit  = 15 * time.Second
	keyLimit     = 2 * time.Second // for a key to change the screen
)

// Manifest is testdata/screens/manifest.yaml.
type Manifest struct {
	Recordings []Recording `yaml:"recordings"`
}

// Recording is one entry of the manifest: one screen state, recorded at each
// size on each version.
type Recording struct {
	Name      string         `yaml:"name"`
	Note      string         `yaml:"note"`
	Scenario  string         `yaml:"scenario"`
	Prompt    string         `yaml:"prompt"`
	Sizes     []string       `yaml:"sizes"`
	Versions  []string       `yaml:"versions"`
	Args      []string       `yaml:"args"`
	Untrusted bool           `yaml:"untrusted"`
	Env       []string       `yaml:"env"`
	Config    map[string]any `yaml:"config"`
	// Fullscreen: drawn by Claude's fullscreen renderer ({"tui":
	// "fullscreen"} in its settings.json).
	Fullscreen bool `yaml:"fullscreen"`
	// MCPSchema, if set, runs the MCP test server as "demo" with its deploy
	// tool allowed; the tool asks for input with this requested schema.
	MCPSchema string `yaml:"mcp_schema"`
	// Files are written into the project folder before Claude starts,
	// by path relative to it: a project's .mcp.json, files to complete.
	Files map[string]string `yaml:"files"`
	Steps []Step            `yaml:"steps"`
}

// Step is exactly one of its fields.
type Step struct {
	Wait        string   `yaml:"wait"`
	Gone        string   `yaml:"gone"`
	Keys        []string `yaml:"keys"`
	Text        string   `yaml:"text"`
	Settle      bool     `yaml:"settle"`
	StopAtFirst string   `yaml:"stop_at_first"`
}

var keyBytes = map[string]string{
	"Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C", "Left": "\x1b[D",
	"Enter": "\r", "Space": " ", "Tab": "\t", "BTab": "\x1b[Z", "Esc": "\x1b", "n": "n",
}

func init() {
	for d := '0'; d <= '9'; d++ {
		keyBytes[string(d)] = string(d)
	}
}

// job is one file to write.
type job struct {
	rec        Recording
	version    string
	cols, rows int
}

func (j job) file() string {
	return filepath.Join("testdata", "screens", j.version, fmt.Sprintf("%s-%dx%d.cast", j.rec.Name, j.cols, j.rows))
}

func main() {
	only := flag.String("only", "*", "record only the entries whose `NAME-GLOB` matches")
	parallel := flag.Int("parallel", 2, "how many recordings run at a time")
	versions := flag.String("versions", strings.Join(claudetest.PinnedVersions(), ","), "comma-separated Claude Code `VERSIONS` (default: every pinned one)")
	flag.Parse()
	if err := run(*only, strings.Split(*versions, ","), max(*parallel, 1)); err != nil {
		fmt.Fprintln(os.Stderr, "recordscreens:", err)
		os.Exit(1)
	}
}

func run(only string, versions []string, parallel int) error {
	jobs, err := plan(only, versions)
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		return fmt.Errorf("no recording matches %q", only)
	}
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		sem  = make(chan struct{}, parallel)
	)
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := record(j)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", j.file(), err))
				fmt.Fprintf(os.Stderr, "FAILED %s\n", j.file())
				return
			}
			fmt.Println("wrote", j.file())
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// plan reads the manifest and lists the files to write.
func plan(only string, versions []string) ([]job, error) {
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		return nil, fmt.Errorf("read manifest (run from the repository root): %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", manifestPath, err)
	}
	var jobs []job
	seen := map[string]bool{}
	for _, r := range m.Recordings {
		if err := check(r); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", manifestPath, r.Name, err)
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("%s: %s: duplicate name", manifestPath, r.Name)
		}
		seen[r.Name] = true
		if ok, err := path.Match(only, r.Name); err != nil {
			return nil, fmt.Errorf("-only: %w", err)
		} else if !ok {
			continue
		}
		for _, v := range versions {
			if len(r.Versions) > 0 && !slices.Contains(r.Versions, v) {
				continue
			}
			for _, size := range r.Sizes {
				c, rows, _ := cast.ParseSize(size)
				jobs = append(jobs, job{rec: r, version: v, cols: c, rows: rows})
			}
		}
	}
	return jobs, nil
}

func check(r Recording) error {
	if r.Name == "" || r.Scenario == "" || r.Prompt == "" || len(r.Sizes) == 0 || len(r.Steps) == 0 {
		return errors.New("name, scenario, prompt, sizes and steps are required")
	}
	for _, s := range r.Sizes {
		if _, _, err := cast.ParseSize(s); err != nil {
			return err
		}
	}
	for i, s := range r.Steps {
		n := 0
		for _, set := range []bool{s.Wait != "", s.Gone != "", len(s.Keys) > 0, s.Text != "", s.Settle, s.StopAtFirst != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("step %d: want exactly one of wait, gone, keys, text, stop_at_first", i+1)
		}
		if s.StopAtFirst != "" && i != len(r.Steps)-1 {
			return fmt.Errorf("step %d: stop_at_first must be the last step", i+1)
		}
		for _, k := range s.Keys {
			if _, ok := keyBytes[k]; !ok {
				return fmt.Errorf("step %d: unknown key %q", i+1, k)
			}
		}
	}
	return nil
}

// record makes one recording in a fresh sandbox.
func record(j job) error {
	sc, err := fakeapi.Load(j.rec.Scenario)
	if err != nil {
		return err
	}
	api, err := fakeapi.Start(sc)
	if err != nil {
		return err
	}
	defer api.Close()
	// A path that is the same on every run, as Claude shows it on screen.
	base := filepath.Join(os.TempDir(), "recordscreens", fmt.Sprintf("%s-%s-%dx%d", j.version, j.rec.Name, j.cols, j.rows))
	if err := os.RemoveAll(base); err != nil {
		return err
	}
	defer os.RemoveAll(base)
	home, dir := filepath.Join(base, "home"), filepath.Join(base, "project")
	for _, d := range []string{home, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	trusted := dir
	if j.rec.Untrusted {
		trusted = filepath.Join(base, "elsewhere") // dir itself stays untrusted
	}
	if err := claudetest.Seed(home, trusted); err != nil {
		return err
	}
	if len(j.rec.Config) > 0 {
		if err := claudetest.Configure(home, j.rec.Config); err != nil {
			return err
		}
	}
	for name, content := range j.rec.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("files: %q is not inside the project folder", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	if j.rec.Fullscreen {
		if err := claudetest.Fullscreen(home); err != nil {
			return err
		}
	}
	claude, err := filepath.Abs(filepath.Join(".cache", "claude-code", j.version, "node_modules", ".bin", "claude"))
	if err != nil {
		return err
	}

	args := append(append([]string(nil), j.rec.Args...), j.rec.Prompt)
	if j.rec.MCPSchema != "" {
		mcp, err := mcpArgs(base, j.rec.MCPSchema)
		if err != nil {
			return err
		}
		args = append(args, mcp...) // after the prompt: these flags take several values
	}

	var buf bytes.Buffer
	w, err := cast.NewWriter(&buf, j.cols, j.rows, j.version)
	if err != nil {
		return err
	}
	g := newGate(w, j.rec.Steps[len(j.rec.Steps)-1].StopAtFirst)
	h, err := ptyhost.Start(ptyhost.Config{
		Path:     claude,
		Args:     args,
		Env:      append(claudetest.Env(home, api.URL()), j.rec.Env...),
		Dir:      dir,
		Headless: true,
		Cols:     j.cols,
		Rows:     j.rows,
		Tap:      g,
		Screen:   screen.NewFunc(j.version),
	})
	if err != nil {
		return fmt.Errorf("%w (is Claude Code %s installed? `make claude`)", err, j.version)
	}
	defer func() { _ = h.Signal(syscall.SIGKILL); <-h.Done() }()

	if err := play(h, g, j.rec.Steps); err != nil {
		return err
	}
	g.close()
	if err := w.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(j.file()), 0o755); err != nil {
		return err
	}
	return os.WriteFile(j.file(), buf.Bytes(), 0o644)
}

// mcpArgs are Claude's arguments that run the MCP test server asking for
// schema, its answers logged under base, and allow its tool.
func mcpArgs(base, schema string) ([]string, error) {
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	demo, err := claudetest.BuildMCPDemo(root)
	if err != nil {
		return nil, err
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"demo": map[string]any{
		"command": demo, "args": []string{"-log", filepath.Join(base, "mcp.jsonl"), "-schema", schema}}}})
	if err != nil {
		return nil, err
	}
	return []string{"--mcp-config", string(cfg), "--allowedTools", "mcp__demo__deploy"}, nil
}

// play runs the steps, then waits for the screen to settle unless the last
// step cut the recording short.
func play(h *ptyhost.Host, g *gate, steps []Step) error {
	em := h.Screen()
	for i, s := range steps {
		switch {
		case s.Wait != "":
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			_, err := em.Wait(ctx, func(s vt.Snapshot) bool { return strings.Contains(s.Text(), steps[i].Wait) })
			cancel()
			if err != nil {
				return fmt.Errorf("step %d: waiting for %q: %w", i+1, s.Wait, err)
			}
		case s.Gone != "":
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			_, err := em.Wait(ctx, func(s vt.Snapshot) bool { return !strings.Contains(s.Text(), steps[i].Gone) })
			cancel()
			if err != nil {
				return fmt.Errorf("step %d: waiting for %q to go: %w", i+1, s.Gone, err)
			}
		case len(s.Keys) > 0:
			for _, k := range s.Keys {
				// One key per write, each given time to take effect: 2.1.197
				// ignores several arrow keys that arrive in one read.
				before := em.Snapshot().Seq
				if err := h.SendKeys([]byte(keyBytes[k])); err != nil {
					return fmt.Errorf("step %d: %w", i+1, err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), keyLimit)
				em.Wait(ctx, func(s vt.Snapshot) bool { return s.Seq != before }) // unchanged is fine too
				cancel()
			}
		case s.Text != "":
			if err := h.SendKeys([]byte(s.Text)); err != nil {
				return fmt.Errorf("step %d: %w", i+1, err)
			}
		case s.Settle:
			if err := settle(em); err != nil {
				return fmt.Errorf("step %d: %w", i+1, err)
			}
		case s.StopAtFirst != "":
			select {
			case <-g.cut:
				return nil
			case <-time.After(waitLimit):
				return fmt.Errorf("step %d: %q never appeared in the output; last screen:\n%s", i+1, s.StopAtFirst, em.Snapshot())
			}
		}
	}
	return settle(em)
}

// settle waits until no change has reached the screen for stillFor.
func settle(em vt.Emulator) error {
	deadline := time.Now().Add(settleLimit)
	last := em.Snapshot()
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), stillFor)
		s, err := em.Wait(ctx, func(s vt.Snapshot) bool { return s.Seq != last.Seq })
		cancel()
		if err != nil {
			return nil // nothing changed for stillFor
		}
		last = s
	}
	return fmt.Errorf("the screen never settled within %v; last screen:\n%s", settleLimit, last)
}

// gate passes traffic to the recording until it is closed. With want set,
// it closes itself just after that text appears in the output.
type gate struct {
	tap  ptyhost.Tap
	want []byte
	cut  chan struct{} // closed when want was found

	mu     sync.Mutex
	closed bool
	tail   []byte // the last len(want)-1 bytes of output
}

func newGate(tap ptyhost.Tap, want string) *gate {
	g := &gate{tap: tap, cut: make(chan struct{})}
	if want != "" {
		g.want = []byte(want)
	}
	return g
}

func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
}

func (g *gate) Output(p []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	if g.want == nil {
		g.tap.Output(p)
		return
	}
	buf := append(g.tail, p...)
	if i := bytes.Index(buf, g.want); i >= 0 {
		g.tap.Output(p[:i+len(g.want)-len(g.tail)])
		g.closed = true
		close(g.cut)
		return
	}
	g.tap.Output(p)
	g.tail = append([]byte(nil), buf[max(0, len(buf)-len(g.want)+1):]...)
}

func (g *gate) Input(p []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.tap.Input(p)
	}
}

func (g *gate) Resize(cols, rows int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.tap.Resize(cols, rows)
	}
}
