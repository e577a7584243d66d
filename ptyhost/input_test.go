package ptyhost

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestUnfinished(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // index of the held part; -1: none
	}{
		{"abc", -1},
		{"\x1b", -1},                          // the Esc key
		{"x\x1b", -1},                         // text, then Esc
		{"\x1b[B", -1},                        // Down
		{"\x1b[?62;22c", -1},                  // DA1, whole
		{"\x1b[?62;22", 0},                    // DA1, cut
		{"\x1b[?62;22c\x1b[6;2", 9},           // DA1 whole, CSI 16 t's reply cut
		{"\x1b[", 0},                          // Alt+[, or a CSI's first half
		{"a\x1b[1;5", 1},                      // Ctrl+Down's first half
		{"\x1b]11;rgb:1e1e/1e1e/1e1e", 0},     // OSC 11 with no terminator yet
		{"\x1b]11;rgb:1e1e/1e1e/1e1e\x1b", 0}, // ST's first half
		{"\x1b]11;rgb:0/0/0\x1b\\", -1},
		{"\x1b]11;rgb:0/0/0\x07", -1},
		{"\x1bP>|xterm(390", 0},                     // XTVERSION's DCS, cut
		{"\x1b]11;x\x1b[A", -1},                     // an Esc that is no ST ends the OSC; Up follows
		{"\x1bOA", -1},                              // SS3 Up
		{"\x1bO", -1},                               // Alt+O, or SS3's first half: a key, not held
		{"\x1b[\r", -1},                             // broken by a control
		{"\x1b[\x1b[?62", 2},                        // broken by the Esc of a report cut
		{"\x1b\x1b[?62", 1},                         // Esc, then a report cut
		{"\x1b]yes\r", -1},                          // Alt+], "yes", Enter: no report holds a control
		{"\x1bPab\x03", -1},                         // Alt+P, "ab", Ctrl-C
		{"\x1b_x\x7f", -1},                          // Alt+_, "x", Backspace
		{"\x1b]" + strings.Repeat("x", seqMax), -1}, // too long to be a report
	} {
		want := tc.want
		if want < 0 {
			want = len(tc.in)
		}
		if got := unfinished([]byte(tc.in)); got != want {
			t.Errorf("unfinished(%q) = %d, want %d", tc.in, got, want)
		}
	}
}

// passed collects what a joiner passes on.
type passed struct {
	mu     sync.Mutex
	chunks []string
	more   chan struct{}
}

func newJoiner(wait time.Duration) (*joiner, *passed) {
	ps := &passed{more: make(chan struct{}, 100)}
	return &joiner{wait: wait, pass: func(p []byte) {
		ps.mu.Lock()
		ps.chunks = append(ps.chunks, string(p))
		ps.mu.Unlock()
		ps.more <- struct{}{}
	}}, ps
}

func (ps *passed) get() []string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]string(nil), ps.chunks...)
}

// waitN waits, under a deadline, for n chunks passed on.
func (ps *passed) waitN(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for len(ps.get()) < n {
		select {
		case <-ps.more:
		case <-deadline:
			t.Fatalf("want %d chunks passed on, got %q", n, ps.get())
		}
	}
	return ps.get()
}

// TestJoinerReportCut: a report a read cut in two is passed on whole, and
// what came before it at once.
func TestJoinerReportCut(t *testing.T) {
	j, ps := newJoiner(time.Hour) // the rest comes first
	j.add([]byte("a\x1b[?62"))
	if got := ps.get(); len(got) != 1 || got[0] != "a" {
		t.Fatalf("passed %q, want only \"a\"", got)
	}
	j.add([]byte(";22c\x1b[6;20;10t"))
	if got := ps.get(); len(got) != 2 || got[1] != "\x1b[?62;22c\x1b[6;20;10t" {
		t.Fatalf("passed %q, want the report whole", got)
	}
	j.add([]byte("\x1b"))
	if got := ps.get(); len(got) != 3 || got[2] != "\x1b" {
		t.Fatalf("passed %q, want the Esc key at once", got)
	}
}

// TestJoinerRestNeverCame: a held start whose rest never comes goes on
// alone after the wait; a timer whose hold was joined does nothing.
func TestJoinerRestNeverCame(t *testing.T) {
	j, ps := newJoiner(20 * time.Millisecond)
	j.add([]byte("\x1b["))
	if got := ps.waitN(t, 1); got[0] != "\x1b[" {
		t.Fatalf("passed %q, want Alt+[ after the wait", got)
	}

	// The first hold's timer fired as the rest was added, and took the
	// lock after: it must not pass the second hold on early.
	j, ps = newJoiner(time.Hour)
	j.add([]byte("\x1b[?1"))
	j.add([]byte("u\x1b]11;rgb")) // joined, then a new hold
	j.flush(1)
	if got := ps.get(); len(got) != 1 || got[0] != "\x1b[?1u" {
		t.Fatalf("passed %q, want the joined report alone", got)
	}
	j.flush(2)
	got := ps.waitN(t, 2)
	if got[0] != "\x1b[?1u" || got[1] != "\x1b]11;rgb" {
		t.Fatalf("passed %q, want the joined report, then the new hold at its own time", got)
	}
}

// TestJoinerDeadlineKept: typing that goes on inside a held sequence (a key
// held down after Alt+[) does not keep it held past its first deadline.
func TestJoinerDeadlineKept(t *testing.T) {
	j, ps := newJoiner(time.Hour)
	j.add([]byte("\x1b[1"))
	j.mu.Lock()
	j.heldAt = j.heldAt.Add(-2 * time.Hour) // held long ago
	j.mu.Unlock()
	j.add([]byte("1;1"))
	if got := ps.get(); len(got) != 1 || got[0] != "\x1b[11;1" {
		t.Fatalf("passed %q, want everything at once: the deadline passed", got)
	}
}
