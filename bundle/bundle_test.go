package bundle

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// play replays a recording onto a fresh emulator.
func play(t *testing.T, rec []byte) vt.Snapshot {
	t.Helper()
	h, evs, err := cast.Read(bytes.NewReader(rec))
	if err != nil {
		t.Fatal(err)
	}
	em := screen.New(screen.Options{Cols: h.Width, Rows: h.Height, Version: h.ClaudeVersion()})
	if err := cast.Play(evs, -1, em); err != nil {
		t.Fatal(err)
	}
	return em.Snapshot()
}

// recorded returns a 40x6 emulator of Claude Code version (its
// screen.Options.Version) and a recorder of it, told the install's version
// installed, which write feeds alike.
func recorded(version, installed string) (vt.Emulator, *Recorder, func(string)) {
	em := screen.New(screen.Options{Cols: 40, Rows: 6, Version: version})
	r := NewRecorder(40, 6, 2048, installed)
	r.SetScreen(em.Snapshot)
	return em, r, func(s string) {
		em.Write([]byte(s))
		r.Output([]byte(s))
	}
}

// TestRecorderStartsOverFromTheScreen: past its limit the recorder drops
// what it kept and starts from a drawing of the screen, so the recording
// still replays to the screen as it is.
func TestRecorderStartsOverFromTheScreen(t *testing.T) {
	em, r, write := recorded("", "")
	for i := 0; i < 200; i++ {
		write("\x1b[2J\x1b[H\x1b[1;32mline " + strings.Repeat("x", i%30) + "\x1b[0m\r\n")
	}
	write("\x1b[3;5Hthe end")
	rec := r.Cast()
	if len(rec) > 4096 {
		t.Errorf("recording is %d bytes, past its limit", len(rec))
	}
	got, want := play(t, rec), em.Snapshot()
	if got.Text() != want.Text() {
		t.Errorf("replayed:\n%s\nwant:\n%s", got.Text(), want.Text())
	}
}

// TestRecorderKeepsTheVersion: a recording that starts from a drawing of the
// screen shows no banner, so its header names the version the emulator
// measured spacing marks by: the install's, or the banner's where the
// install said nothing (a Homebrew or wrapper install). Before the limit
// the recording starts at the start: the install's version, or none, with
// the banner in it. Replayed without the version, a Devanagari page on
// 2.1.227 (marks share their letter's cell) would read shifted.
func TestRecorderKeepsTheVersion(t *testing.T) {
	for _, tc := range []struct {
		name, installed, opening, first string
	}{
		{"the install's", "2.1.227", "\x1b[H❯ 1. हिन्दी में\r\n", "2.1.227"},
		{"the banner's", "", " ▐▛███▜▌   Claude Code v2.1.227\r\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			em, r, write := recorded(tc.installed, tc.installed)
			write(tc.opening)
			if h, _, err := cast.Read(bytes.NewReader(r.Cast())); err != nil || h.ClaudeVersion() != tc.first {
				t.Fatalf("before the limit, header %+v (%v): want version %q", h, err, tc.first)
			}
			for i := 0; i < 200; i++ {
				write(fmt.Sprintf("\x1b[2J\x1b[H❯ %d. हिन्दी में │ end\r\n", i))
			}
			rec := r.Cast()
			h, evs, err := cast.Read(bytes.NewReader(rec))
			if err != nil || h.ClaudeVersion() != "2.1.227" {
				t.Fatalf("past the limit, header %+v (%v): want Claude 2.1.227", h, err)
			}
			want := em.Snapshot().Text()
			if got := play(t, rec).Text(); got != want {
				t.Errorf("replayed:\n%s\nwant:\n%s", got, want)
			}
			// The test can fail: the same events measured as the newest draws them.
			newest := screen.New(screen.Options{Cols: h.Width, Rows: h.Height})
			if err := cast.Play(evs, -1, newest); err != nil {
				t.Fatal(err)
			}
			if newest.Snapshot().Text() == want {
				t.Errorf("the page reads the same measured as the newest version: the test proves nothing")
			}
		})
	}
}

// TestRecorderKeepsTheLatest: past the limit, at least half of it of the
// latest output is still in the recording, in order, after the drawing the
// older generation starts from.
func TestRecorderKeepsTheLatest(t *testing.T) {
	_, r, write := recorded("", "")
	var lines []string
	for i := range 300 {
		l := fmt.Sprintf("line %03d\r\n", i)
		write(l)
		lines = append(lines, l)
	}
	_, evs, err := cast.Read(bytes.NewReader(r.Cast()))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, e := range evs[1:] { // after the drawing
		out.WriteString(e.Data)
	}
	latest := strings.Join(lines[len(lines)-1024/len(lines[0]):], "")
	if !strings.HasSuffix(out.String(), latest) {
		t.Errorf("the recording's last %d bytes are not the latest output:\n%q", len(latest), out.String())
	}
	if out.Len() > 2048 {
		t.Errorf("the recording holds %d bytes of output, past its limit", out.Len())
	}
}

func TestWriteRead(t *testing.T) {
	root := t.TempDir()
	rep := Report{
		Time:      time.Date(2026, 11, 23, 10, 15, 0, 0, time.UTC),
		ToolUseID: "toolu_01/../x",
		Questions: []answer.Question{{Question: "Which?", Header: "H", Options: []answer.Option{{Label: "A"}, {Label: "B"}}}},
		Decisions: []string{`select "A"`},
		Step:      "enter", Reason: "Enter had no visible effect", Keys: 3,
		Screen: "the screen", Size: "80x24",
	}
	rec := NewRecorder(80, 24, 1<<20, "")
	rec.Output([]byte("hello"))
	dir, err := Write(root, rep, rec.Cast())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != root || !strings.HasSuffix(dir, "-toolu_01x") {
		t.Errorf("bundle at %s: want a safe name under %s", dir, root)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("bundle folder %v, %v: want 0700", fi.Mode(), err)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.ToolUseID != rep.ToolUseID || back.Reason != rep.Reason || len(back.Questions) != 1 || back.Questions[0].Options[1].Label != "B" {
		t.Errorf("read back %+v", back)
	}
	if got := play(t, mustRead(t, filepath.Join(dir, CastFile))).Text(); got != "hello" {
		t.Errorf("recording replays to %q", got)
	}
	if _, err := Read(root); err == nil || err.Error() != root+" is not a bug report: it has no report.json" {
		t.Errorf("Read of a folder with no report: %v", err)
	}
}

func TestRoot(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if r, err := Root(); err != nil || r != "/state/claudewrap/bundles" {
		t.Errorf("Root() = %q, %v", r, err)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/me")
	if r, err := Root(); err != nil || r != "/home/me/.local/state/claudewrap/bundles" {
		t.Errorf("Root() = %q, %v", r, err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testReport() Report {
	return Report{
		Time:      time.Date(2026, 11, 23, 10, 15, 0, 0, time.UTC),
		ToolUseID: "toolu_01",
		Questions: []answer.Question{{Question: "Which?", Header: "H", Options: []answer.Option{{Label: "A"}, {Label: "B"}}}},
	}
}

// TestWriteRefusesAnotherUsersFolder: bundles are not written into a folder
// another user owns (they could read or replace them), nor into one that
// others may change.
func TestWriteRefusesAnotherUsersFolder(t *testing.T) {
	t.Run("another user's", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "bundles")
		os.Mkdir(root, 0o755)
		testkit.GiveAway(t, root)
		if dir, err := Write(root, testReport(), nil); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Errorf("written to %s (%v), want it refused", dir, err)
		}
	})
	t.Run("open to everyone", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "bundles")
		os.Mkdir(root, 0o700)
		os.Chmod(root, 0o777)
		if dir, err := Write(root, testReport(), nil); err == nil || !strings.Contains(err.Error(), "writable by others") {
			t.Errorf("written to %s (%v), want it refused", dir, err)
		}
	})
}

// TestReadRefuses: a report that is a FIFO is refused, not waited on, and
// one past the limit is refused unread.
func TestReadRefuses(t *testing.T) {
	fifo, big := t.TempDir(), t.TempDir()
	testkit.FIFO(t, filepath.Join(fifo, ReportFile))
	testkit.Sparse(t, filepath.Join(big, ReportFile), MaxReport+1)
	for _, tc := range []struct{ dir, want string }{
		{fifo, "not a regular file (a FIFO)"},
		{big, fmt.Sprintf("%d bytes; at most %d allowed", MaxReport+1, MaxReport)},
	} {
		err := testkit.Within(t, 5*time.Second, "Read", func() error { _, err := Read(tc.dir); return err })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.dir, err, tc.want)
		}
	}
}
