package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/internal/testsupport/randscreen"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// asMain makes the test binary run fakedialog's main: the tests run it as
// their child on a PTY.
const asMain = "FAKEDIALOG_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child is fakedialog running on a PTY, its output read into an emulator.
type child struct {
	em   vt.Emulator
	ptmx *os.File
	cmd  *exec.Cmd
	done chan error // the exit, once
}

// start runs fakedialog with args on a PTY cols × rows.
func start(t *testing.T, cols, rows int, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asMain+"=1")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		t.Fatal(err)
	}
	c := &child{em: screen.New(screen.Options{Cols: cols, Rows: rows}), ptmx: ptmx, cmd: cmd, done: make(chan error, 1)}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(c.em, ptmx) // ends with an error once the child is gone
	}()
	go func() { c.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = ptmx.Close()
		<-copied
	})
	return c
}

// wait waits until the screen satisfies ok, failing with the last screen
// after a deadline.
func (c *child) wait(t *testing.T, what string, ok func(vt.Snapshot) bool) vt.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s, err := c.em.Wait(ctx, ok)
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
	return s
}

// seedOf is the first seed from 1 whose screen, at its own size, has shape.
func seedOf(t *testing.T, shape func(randscreen.Screen) bool) int64 {
	t.Helper()
	for seed := int64(1); seed < 1000; seed++ {
		if shape(randscreen.New(seed)) {
			return seed
		}
	}
	t.Fatal("no seed below 1000 draws the shape")
	return 0
}

// TestOnAPTY: fakedialog draws its seed's screen on a PTY at the PTY's
// size, the screen is read as randscreen says (a dialog of keys in a box,
// a menu with no frame, a dialog cut at the top, Claude's input box with
// its command menu, which is none), and the key sent is named on the
// screen and in the log.
func TestOnAPTY(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shape func(randscreen.Screen) bool
		key   string
		named string
	}{
		{"box of keys", func(s randscreen.Screen) bool { return s.Shape == "box+keys" }, "\r", "Enter"},
		{"menu with no frame", func(s randscreen.Screen) bool { return strings.HasPrefix(s.Shape, "plain+menu") }, "\x1b[Z", "shift+Tab"},
		{"cut", func(s randscreen.Screen) bool { return s.Cut }, "\x1b", "Esc"},
		{"slash menu", func(s randscreen.Screen) bool { return s.Shape == "slash" }, "\x1b[B", "Down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := seedOf(t, tc.shape)
			cols, rows := randscreen.Size(seed)
			sc := randscreen.Draw(seed, cols, rows)
			want := screen.New(screen.Options{Cols: cols, Rows: rows})
			_, _ = want.Write(sc.Output)
			wantText := want.Snapshot().Text()

			log := filepath.Join(t.TempDir(), "keys.log")
			c := start(t, cols, rows, "-seed", fmt.Sprint(seed), "-log", log)
			snap := c.wait(t, "the seed's screen", func(s vt.Snapshot) bool { return s.Text() == wantText })
			d, ok := screen.ParseDialog(snap)
			var keys []randscreen.Key
			for _, k := range d.Keys {
				keys = append(keys, randscreen.Key{Key: k.Key, Does: k.Does})
			}
			if ok != sc.Dialog || ok && (d.Title != sc.Title || d.Cut != sc.Cut || !slices.Equal(d.Options, sc.Options) ||
				d.Focus != sc.Focus || !slices.Equal(keys, sc.Keys)) {
				t.Fatalf("%s\nread as a dialog %v: %s\n%s", sc, ok, d, snap.Text())
			}
			if _, err := c.ptmx.Write([]byte(tc.key)); err != nil {
				t.Fatal(err)
			}
			c.wait(t, "the key named", func(s vt.Snapshot) bool { return strings.Contains(s.Text(), "key: "+tc.named) })
			select {
			case err := <-c.done:
				if err != nil {
					t.Fatalf("fakedialog: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("fakedialog did not exit after the key")
			}
			if b, err := os.ReadFile(log); err != nil || string(b) != tc.named+"\n" {
				t.Errorf("log %q (%v), want %q", b, err, tc.named+"\n")
			}
		})
	}
}

// TestDescribe: -describe prints what the seed's screen must be read as,
// drawn at the seed's own size when no terminal is there.
func TestDescribe(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-seed", "3", "-describe")
	cmd.Env = append(os.Environ(), asMain+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var d description
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sc := randscreen.New(3)
	if d.Seed != 3 || d.Cols != sc.Cols || d.Rows != sc.Rows || d.Shape != sc.Shape || d.Title != sc.Title ||
		!slices.Equal(d.Options, sc.Options) || d.Focus != sc.Focus {
		t.Errorf("described %+v, want %s", d, sc)
	}
}

// TestKeyName: the names of the keys a terminal sends.
func TestKeyName(t *testing.T) {
	for in, want := range map[string]string{
		"\r": "Enter", "\x1b": "Esc", "\x1b[Z": "shift+Tab", "\x03": "ctrl+c", "\x1b[B": "Down", "\x1bOA": "Up",
		"y": "y", "é": "é", "\x1b[99~": `"\x1b[99~"`,
	} {
		if got := keyName([]byte(in)); got != want {
			t.Errorf("keyName(%q) = %q, want %q", in, got, want)
		}
	}
}
