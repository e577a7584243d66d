package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/internal/safefile"
	"github.com/claudewrap/claudewrap/vt"
)

// File names inside a bundle.
const (
	CastFile   = "form.cast"
	ReportFile = "report.json"
	ScreenFile = "screen.txt"
)

// Recorder keeps a recording of the session in memory, for bug reports. It
// is a ptyhost.Tap, safe for concurrent use. It keeps the bytes as they
// came, with their times, and makes the asciicast only when one is asked
// for (Cast): encoding every byte as it passed would cost a good part of
// passthrough's throughput.
//
// It keeps two generations of at most half its limit each: when the newer
// fills, the older is dropped and a new one starts from a drawing of the
// screen, so at least half the limit of the latest output is always there
// and memory stays flat in a long session.
type Recorder struct {
	mu        sync.Mutex
	start     time.Time
	old       generation // the one before cur; empty until cur first fills
	cur       generation
	limit     int
	snap      func() vt.Snapshot
	installed string // Claude Code's version as its install says, for the header
}

// generation is a stretch of the recording: a drawing of the screen it
// starts from (none for the first), then what came.
type generation struct {
	from    time.Duration // since Recorder.start
	frame   []byte
	version string // the version frame was measured by (vt.Snapshot.Version)
	events  []event
	size    int
	cols    int
	rows    int
}

type event struct {
	at   time.Duration
	kind string // "o", "i", "r"
	data []byte
}

// NewRecorder starts a recording of a cols x rows terminal, keeping about
// limit bytes of it (see [Recorder]), restarting from the screen given by
// [Recorder.SetScreen]. installed is Claude Code's version as its install says
// ("" when unknown): a recording that starts from a drawing of the screen
// shows no banner, so its header names the version the screen was measured
// by ([cast.Header.ClaudeVersion]), this one unless the banner said another.
func NewRecorder(cols, rows, limit int, installed string) *Recorder {
	return &Recorder{limit: limit, start: time.Now(), cur: generation{cols: cols, rows: rows}, installed: installed}
}

// SetScreen gives the recorder the emulated screen to start over from.
func (r *Recorder) SetScreen(snap func() vt.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.snap = snap
}

func (r *Recorder) add(kind string, p []byte) {
	r.cur.events = append(r.cur.events, event{at: time.Since(r.start), kind: kind, data: bytes.Clone(p)})
	r.cur.size += len(p)
}

// Output records bytes Claude wrote.
func (r *Recorder) Output(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add("o", p)
	if r.cur.size > r.limit/2 && r.snap != nil {
		// The screen may lag the bytes just recorded by a few writes: a
		// bug report's recording starts roughly, never wrongly, there.
		s := r.snap()
		r.old = r.cur
		r.cur = generation{from: time.Since(r.start), frame: s.ANSI(), version: s.Version, cols: s.Cols, rows: s.Rows}
	}
}

// Input records keys sent to Claude.
func (r *Recorder) Input(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add("i", p)
}

// Resize records a change of the terminal's size.
func (r *Recorder) Resize(cols, rows int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add("r", []byte(fmt.Sprintf("%dx%d", cols, rows)))
}

// Cast returns the recording so far, as asciicast v2: from the older
// generation's start, when there is one.
func (r *Recorder) Cast() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	first, gens := r.cur, []generation{r.cur}
	if r.old.events != nil || r.old.frame != nil {
		first, gens = r.old, []generation{r.old, r.cur}
	}
	// A drawing shows no banner: the header names the version the screen
	// was measured by, the banner's where the install said nothing.
	version := r.installed
	if first.version != "" {
		version = first.version
	}
	var buf bytes.Buffer
	w, _ := cast.NewWriter(&buf, first.cols, first.rows, version) // writes to memory cannot fail
	if len(first.frame) > 0 {
		w.EventAt(0, "o", first.frame)
	}
	for _, g := range gens {
		for _, e := range g.events {
			w.EventAt(e.at-first.from, e.kind, e.data)
		}
	}
	return buf.Bytes()
}

// Report is what a bundle says about the failure.
type Report struct {
	Time      time.Time         `json:"time"`
	ToolUseID string            `json:"tool_use_id"`
	Questions []answer.Question `json:"questions"`
	// Decisions are the intended answers, one line per question.
	Decisions []string `json:"decisions"`
	// Step, Reason and Keys are askflow's account of where it stopped.
	Step   string `json:"step"`
	Reason string `json:"reason"`
	Keys   int    `json:"keys"`
	// Screen is the last screen seen, as text.
	Screen string `json:"screen"`
	// Size is the terminal's size then, COLSxROWS.
	Size string `json:"size"`
}

// Root returns the folder bundles go in: $XDG_STATE_HOME/claudewrap/bundles,
// with ~/.local/state when XDG_STATE_HOME is unset.
func Root() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("bundle: no state directory: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "claudewrap", "bundles"), nil
}

// Write makes a bundle under root and returns its path. The folder is
// private to the user (a recording may hold anything Claude drew): one that
// another user owns or may change is refused ([safefile.MkdirAll]).
func Write(root string, rep Report, recording []byte) (string, error) {
	name := rep.Time.UTC().Format("20060102T150405.000Z") + "-" + safeName(rep.ToolUseID)
	dir := filepath.Join(root, name)
	if err := safefile.MkdirAll(dir); err != nil {
		return "", fmt.Errorf("bundle: %w", err)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return "", fmt.Errorf("bundle: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{ReportFile, append(b, '\n')}, {CastFile, recording}, {ScreenFile, []byte(rep.Screen + "\n")}} {
		if err := safefile.WriteFile(filepath.Join(dir, f.name), f.data); err != nil {
			return "", fmt.Errorf("bundle: %w", err)
		}
	}
	return dir, nil
}

// safeName keeps letters, digits, '-' and '_' of an id, for a file name.
func safeName(id string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return -1
	}, id)
	if s == "" {
		return "form"
	}
	return s
}

// MaxReport bounds the report a bundle's reader reads: the questions of a
// form (a hook message holds at most 4 MiB), the last screen and a few
// lines, with room to spare.
const MaxReport = 16 << 20

// Read reads the report of the bundle at dir: a regular file of at most
// [MaxReport] bytes.
func Read(dir string) (Report, error) {
	var rep Report
	b, err := safefile.ReadFile(filepath.Join(dir, ReportFile), MaxReport)
	if errors.Is(err, fs.ErrNotExist) {
		return rep, fmt.Errorf("%s is not a bug report: it has no %s", dir, ReportFile)
	}
	if err != nil {
		return rep, err
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return rep, fmt.Errorf("bundle %s: %w", dir, err)
	}
	if len(rep.Questions) == 0 {
		return rep, errors.New("bundle " + dir + ": no questions in " + ReportFile)
	}
	return rep, nil
}
