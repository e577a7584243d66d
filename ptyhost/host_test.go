package ptyhost

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/claudewrap/claudewrap/vt"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode string
		args []string
		want Status
	}{
		{"zero", "exit", []string{"0"}, Status{Code: 0}},
		{"seven", "exit", []string{"7"}, Status{Code: 7}},
		{"sigterm", "signal", []string{"15"}, Status{Code: 143, Signal: syscall.SIGTERM}},
		{"sigkill", "signal", []string{"9"}, Status{Code: 137, Signal: syscall.SIGKILL}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHost(t, helperConfig(t, tc.mode, tc.args...))
			if got := waitDone(t, h); got != tc.want {
				t.Errorf("status %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestTailNotLost checks that output written just before exit reaches the
// screen although the PTY reports EIO right after.
func TestTailNotLost(t *testing.T) {
	h := startHost(t, helperConfig(t, "exit", "3"))
	waitDone(t, h)
	if s := h.Screen().Snapshot().Text(); !strings.Contains(s, "bye") {
		t.Errorf("screen lost the tail:\n%s", s)
	}
}

func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := dir + "/claude"
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir + "/missing", notExec, dir} {
		_, err := Start(Config{Path: path, Headless: true})
		if err == nil || !strings.Contains(err.Error(), "could not start") {
			t.Errorf("Start(%s) = %v, want a start error", path, err)
		}
	}
}

// TestHeadlessAnswersDA1 checks the child is not left waiting for a terminal
// reply when nothing but the emulator is there.
func TestHeadlessAnswersDA1(t *testing.T) {
	h := startHost(t, helperConfig(t, "da1"))
	if st := waitDone(t, h); st.Code != 0 {
		t.Fatalf("status %+v; screen:\n%s", st, h.Screen().Snapshot().Text())
	}
	if s := h.Screen().Snapshot().Text(); !strings.Contains(s, `DA1 "\x1b[?`) {
		t.Errorf("screen:\n%s", s)
	}
}

func TestSendKeys(t *testing.T) {
	h := startHost(t, helperConfig(t, "echo"))
	waitScreen(t, h.Screen(), "ready")
	if err := h.SendKeys([]byte("héllo 数\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, h.Screen(), `got "héllo 数"`)
	h.SendKeys([]byte("quit\r"))
	waitDone(t, h)
	if err := h.SendKeys([]byte("x")); err == nil {
		t.Error("SendKeys after exit succeeded")
	}
}

func TestResizeHeadless(t *testing.T) {
	h := startHost(t, helperConfig(t, "echo"))
	waitScreen(t, h.Screen(), "ready")
	if err := h.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, h.Screen(), "size 100x30")
	if c, r := h.Screen().Size(); c != 100 || r != 30 {
		t.Errorf("emulator size %dx%d, want 100x30", c, r)
	}
}

// personTerminal opens a PTY pair standing for the person's terminal: the
// host gets the tty; the test reads what the person would see from ptmx.
func personTerminal(t *testing.T, cols, rows int) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	if err := pty.Setsize(tty, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
	return ptmx, tty
}

// onPersonTerminal is the config of a host running the helper child mode
// with args in passthrough, on a person's terminal of 100x30 whose other
// side, ptmx, the test reads and types on.
func onPersonTerminal(t *testing.T, mode string, args ...string) (cfg Config, ptmx *os.File) {
	t.Helper()
	ptmx, tty := personTerminal(t, 100, 30)
	cfg = helperConfig(t, mode, args...)
	cfg.Headless = false
	cfg.Stdin, cfg.Stdout = tty, tty
	return cfg, ptmx
}

// untilReset reads what the person's terminal gets up to the reset
// sequence written after the child exits, within d.
func untilReset(t *testing.T, ptmx *os.File, d time.Duration) []byte {
	t.Helper()
	got := make(chan []byte, 1)
	go func() {
		var buf bytes.Buffer
		tmp := make([]byte, 64*1024)
		for !bytes.HasSuffix(buf.Bytes(), []byte(resetModes)) {
			n, err := ptmx.Read(tmp)
			buf.Write(tmp[:n])
			if err != nil {
				break
			}
		}
		got <- buf.Bytes()
	}()
	select {
	case out := <-got:
		return out
	case <-time.After(d):
		t.Fatal("the person's terminal never saw the reset after the child's output")
		return nil
	}
}

func TestPassthroughBurst(t *testing.T) {
	cfg, ptmx := onPersonTerminal(t, "burst")
	h := startHost(t, cfg)

	out := untilReset(t, ptmx, 120*time.Second)
	if st := waitDone(t, h); st.Code != 0 {
		t.Fatalf("status %+v", st)
	}
	want := slices.Concat([]byte(pushTitle), burst(), []byte(restoreSeq(left{}, true)))
	if !bytes.Equal(out, want) {
		i := 0
		for i < len(out) && i < len(want) && out[i] == want[i] {
			i++
		}
		t.Fatalf("output differs at byte %d of %d (want %d): got %q", i, len(out), len(want), out[i:min(i+40, len(out))])
	}
}

// A child that dies on the alternate screen (Claude Code's fullscreen
// renderer, killed) leaves the person's terminal there: the restore takes
// it back to the main screen. One that left it itself gets no such
// sequence, which on the main screen would move the cursor.
func TestRestoreLeavesAltScreen(t *testing.T) {
	for _, tc := range []struct {
		how      string
		wantTail string
	}{
		{"kill", leaveAlt + resetMargins + popTitle + resetModes},
		{"leave", "\x1b[?1049l" + resetMargins + popTitle + resetModes},
	} {
		t.Run(tc.how, func(t *testing.T) {
			cfg, ptmx := onPersonTerminal(t, "alt", tc.how)
			h := startHost(t, cfg)
			out := untilReset(t, ptmx, 30*time.Second)
			waitDone(t, h)
			rest, ok := bytes.CutPrefix(out, []byte(pushTitle+"\x1b[?1049hfullscreen\r\n"))
			if !ok || string(rest) != tc.wantTail {
				t.Errorf("the person's terminal got %q, want the child's drawing then %q", out, tc.wantTail)
			}
		})
	}
}

// TestSkipKeepsAltScreen: a switch to the alternate screen inside a burst
// the emulator skipped is still known when the child dies there, so the
// person's terminal is taken back to the main screen.
func TestSkipKeepsAltScreen(t *testing.T) {
	cfg, ptmx := onPersonTerminal(t, "altburst")
	cfg.Screen = func(c, r int, rep io.Writer) vt.Emulator { return slowScreen{plainScreen(c, r, rep)} }
	h := startHost(t, cfg)
	out := untilReset(t, ptmx, 120*time.Second)
	waitDone(t, h)
	if n := h.skipped.Load(); n < 1 {
		t.Fatalf("the emulator never skipped")
	}
	if tail := restoreSeq(left{alt: true}, true); !bytes.HasSuffix(out, []byte(tail)) {
		t.Errorf("the person's terminal ended with %q, want the alternate screen left then the reset (%q)", out[max(0, len(out)-60):], tail)
	}
}

// TestRestoreModes: what a child that died had set on the person's
// terminal is undone, and the cursor stays where the child left it:
// application cursor keys and keypad, autowrap off, a scroll region,
// origin mode, the line-drawing character set, its window title (the
// person's, pushed at the start, is popped).
func TestRestoreModes(t *testing.T) {
	for _, tc := range []struct {
		name, set string
		want      string // in what the restore writes
	}{
		{"cursor keys", "\x1b[?1h", "\x1b[?1l"},
		{"keypad", "\x1b=", "\x1b>"},
		{"autowrap", "\x1b[?7l", "\x1b[?7h"},
		{"scroll region", "\x1b[3;4H\x1b[5;10r", "\x1b7\x1b[r\x1b8"},
		// Rows 5 to 10, row 3 of them is the screen's 7th.
		{"origin", "\x1b[5;10r\x1b[?6h\x1b[3;4H", "\x1b[?6l\x1b[r\x1b[7;4H"},
		{"charset", "\x1b(0\x0e", "\x0f\x1b(B"},
		{"title", "\x1b]0;the child's title\x07", "\x1b[23;0t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ptmx := onPersonTerminal(t, "setdie", tc.set)
			h := startHost(t, cfg)
			out := string(untilReset(t, ptmx, 30*time.Second))
			waitDone(t, h)
			child, tail, ok := strings.Cut(out, "modes\r\n"+tc.set)
			if !ok || child != pushTitle {
				t.Fatalf("the person's terminal got %q; want the title pushed, then the child's %q", out, tc.set)
			}
			if !strings.Contains(tail, tc.want) {
				t.Errorf("the restore wrote %q, want %q in it", tail, tc.want)
			}
			// The cursor, as a terminal (the emulator) has it, is where
			// the child left it, counted from the screen's corner.
			em := vt.New(vt.Options{Cols: 100, Rows: 30})
			io.WriteString(em, child+"modes\r\n"+tc.set)
			at := em.Snapshot()
			io.WriteString(em, tail)
			if after := em.Snapshot(); after.Cursor != at.Cursor || after.Origin {
				t.Errorf("the restore moved the cursor from %v to %v (origin mode %v)", at.Cursor, after.Cursor, after.Origin)
			}
		})
	}
}

func TestPassthroughInputAndRestore(t *testing.T) {
	ptmx, tty := personTerminal(t, 100, 30)
	before, err := testkit.Termios(tty)
	if err != nil {
		t.Fatal(err)
	}
	cfg := helperConfig(t, "echo")
	cfg.Headless = false
	cfg.Stdin, cfg.Stdout = tty, tty
	var (
		mu    sync.Mutex
		typed bytes.Buffer
	)
	cfg.OnInput = func(p []byte) { mu.Lock(); typed.Write(p); mu.Unlock() }
	h := startHost(t, cfg)
	go io.Copy(io.Discard, ptmx)

	waitScreen(t, h.Screen(), "ready")
	raw, _ := testkit.Termios(tty)
	if raw.Lflag&unix.ICANON != 0 {
		t.Error("person's terminal is not in raw mode while the child runs")
	}
	ptmx.Write([]byte("hi\r"))
	waitScreen(t, h.Screen(), `got "hi"`)

	// A resize of the person's terminal reaches the child and the emulator.
	pty.Setsize(tty, &pty.Winsize{Cols: 90, Rows: 20})
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	waitScreen(t, h.Screen(), "size 90x20")
	if c, r := h.Screen().Size(); c != 90 || r != 20 {
		t.Errorf("emulator size %dx%d, want 90x20", c, r)
	}

	ptmx.Write([]byte("quit\r"))
	waitDone(t, h)
	after, err := testkit.Termios(tty)
	if err != nil {
		t.Fatal(err)
	}
	if *after != *before {
		t.Errorf("terminal not restored:\nbefore %+v\nafter  %+v", before, after)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(typed.String(), "hi\r") {
		t.Errorf("OnInput saw %q", typed.String())
	}
}

// stuckScreen is an emulator that takes nothing until open is closed, then
// records what it is fed.
type stuckScreen struct {
	vt.Emulator
	open chan struct{}
	mu   sync.Mutex
	fed  bytes.Buffer
}

func (s *stuckScreen) Write(p []byte) (int, error) {
	<-s.open
	s.mu.Lock()
	s.fed.Write(p)
	s.mu.Unlock()
	return s.Emulator.Write(p)
}

// TestPassthroughEmulatorStuck checks that the person never waits on the
// emulator: a 10 MB burst reaches the person's terminal, unchanged, while the
// emulator takes nothing at all. An emulator that far behind skips the rest
// of the burst: it was fed one run of it, in order (the start, unless the
// machine stalled the burst: a burst that stalls is two bursts, and the
// first may be skipped whole), its screen was reset, and the Tap still got
// every byte.
func TestPassthroughEmulatorStuck(t *testing.T) {
	stuck := &stuckScreen{open: make(chan struct{})}
	cfg, ptmx := onPersonTerminal(t, "burst")
	cfg.Screen = func(c, r int, rep io.Writer) vt.Emulator {
		stuck.Emulator = plainScreen(c, r, rep)
		return stuck
	}
	tap := &outputTap{}
	cfg.Tap = tap
	h := startHost(t, cfg)

	want := burst()

	got := make(chan []byte, 1)
	go func() {
		var buf bytes.Buffer
		tmp := make([]byte, 64*1024)
		for buf.Len() < len(pushTitle)+burstSize {
			n, err := ptmx.Read(tmp)
			buf.Write(tmp[:n])
			if err != nil {
				break
			}
		}
		got <- buf.Bytes()
	}()
	var out []byte
	select {
	case out = <-got:
	case <-time.After(120 * time.Second):
		close(stuck.open)
		t.Fatal("the burst did not reach the person's terminal while the emulator was stuck")
	}
	if !bytes.Equal(out[:min(len(out), len(pushTitle)+burstSize)], append([]byte(pushTitle), want...)) {
		close(stuck.open)
		t.Fatalf("person's terminal got %d bytes that differ from the burst", len(out))
	}
	close(stuck.open)
	go io.Copy(io.Discard, ptmx) // the reset sequence at the end
	if st := waitDone(t, h); st.Code != 0 {
		t.Fatalf("status %+v", st)
	}
	stuck.mu.Lock()
	defer stuck.mu.Unlock()
	if fed := stuck.fed.Bytes(); len(fed) >= len(want) || !bytes.Contains(want, fed) {
		t.Errorf("emulator was fed %d bytes: want one run of the %d of the burst, in order, the rest skipped", len(fed), len(want))
	}
	if n := h.skipped.Load(); n < 1 {
		t.Errorf("the emulator skipped %d times, want at least once", n)
	}
	if !bytes.Equal(tap.bytes(), want) {
		t.Errorf("the Tap got %d bytes that differ from the %d of the burst", len(tap.bytes()), len(want))
	}
}

// outputTap is a Tap that keeps the output.
type outputTap struct {
	mu  sync.Mutex
	out bytes.Buffer
}

func (o *outputTap) Output(p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.out.Write(p)
}

func (o *outputTap) Input([]byte)    {}
func (o *outputTap) Resize(int, int) {}

func (o *outputTap) bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return bytes.Clone(o.out.Bytes())
}

// slowScreen is an emulator that takes 20 ms over every write: it falls
// behind any burst.
type slowScreen struct{ vt.Emulator }

func (s slowScreen) Write(p []byte) (int, error) {
	time.Sleep(20 * time.Millisecond)
	return s.Emulator.Write(p)
}

// TestPassthroughSkipResync: an emulator that falls far behind a burst
// skips it, and once the output pauses the child is made to draw its
// whole screen again, which the emulator then shows exactly: nothing of
// the burst, the redraw at the terminal's own size.
func TestPassthroughSkipResync(t *testing.T) {
	cfg, ptmx := onPersonTerminal(t, "burstredraw")
	cfg.Screen = func(c, r int, rep io.Writer) vt.Emulator { return slowScreen{plainScreen(c, r, rep)} }
	go io.Copy(io.Discard, ptmx)
	h := startHost(t, cfg)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := h.Screen().Wait(ctx, func(s vt.Snapshot) bool {
		return strings.HasPrefix(s.Text(), "redrawn at 100x30")
	})
	if err != nil {
		t.Fatalf("the screen never showed the redraw at full size: %v\n%s", err, s.Text())
	}
	if txt := s.Text(); strings.Contains(txt, "line") || strings.TrimSpace(txt) != "redrawn at 100x30" {
		t.Errorf("screen after the redraw:\n%s\nwant the redraw alone", txt)
	}
	// Once at least: a burst that stalls for a rate window or two (a
	// loaded machine, the race detector) is two bursts, each skipped and
	// followed by a redraw.
	if n := h.skipped.Load(); n < 1 {
		t.Errorf("the emulator never skipped")
	}
}

// TestHeadlessNeverSkips: headless, nobody waits for the output, so the
// emulator is fed every byte however far behind it falls.
func TestHeadlessNeverSkips(t *testing.T) {
	fed := &countingScreen{}
	cfg := helperConfig(t, "burst")
	cfg.Screen = func(c, r int, rep io.Writer) vt.Emulator {
		fed.Emulator = slowScreen{plainScreen(c, r, rep)}
		return fed
	}
	h := startHost(t, cfg)
	// Every byte of the burst through a slow emulator: on a loaded
	// machine under the race detector that takes more than most children.
	if st := waitDoneWithin(t, h, time.Minute); st.Code != 0 {
		t.Fatalf("status %+v", st)
	}
	<-h.outDone
	if n := fed.n.Load(); n != burstSize || h.skipped.Load() != 0 {
		t.Errorf("emulator fed %d bytes, skipped %d times; want all %d, none skipped", n, h.skipped.Load(), burstSize)
	}
}

type countingScreen struct {
	vt.Emulator
	n atomic.Int64
}

func (c *countingScreen) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.Emulator.Write(p)
}

// TestRedrawWaitsForTheFullSizeDraw: Redraw returns only once the child has
// drawn at its restored size, so that the next key meets a drawn screen.
func TestRedrawWaitsForTheFullSizeDraw(t *testing.T) {
	h := startHost(t, helperConfig(t, "slowecho"))
	waitScreen(t, h.Screen(), "ready")
	if err := h.Redraw(); err != nil {
		t.Fatal(err)
	}
	text := h.Screen().Snapshot().Text()
	if !strings.Contains(text, "size 79x24") || !strings.Contains(text, "size 80x24") {
		t.Errorf("Redraw returned before both draws landed; screen:\n%s", text)
	}
	if c, r := h.Screen().Size(); c != 80 || r != 24 {
		t.Errorf("size after Redraw %dx%d, want 80x24", c, r)
	}
}

// TestSetRowsWaitsForTheDraw: SetRows returns once the child has drawn at
// the new height, its width kept, even when the child draws late (the
// emulator's own resize is not the draw); the same height again draws
// nothing.
func TestSetRowsWaitsForTheDraw(t *testing.T) {
	h := startHost(t, helperConfig(t, "slowecho"))
	waitScreen(t, h.Screen(), "ready")
	if err := h.SetRows(48); err != nil {
		t.Fatal(err)
	}
	if text := h.Screen().Snapshot().Text(); !strings.Contains(text, "size 80x48") {
		t.Errorf("SetRows returned before the draw at 80x48 landed; screen:\n%s", text)
	}
	if c, r := h.Screen().Size(); c != 80 || r != 48 {
		t.Errorf("size after SetRows %dx%d, want 80x48", c, r)
	}
	seq := h.Screen().Snapshot().Seq
	if err := h.SetRows(48); err != nil || h.Screen().Snapshot().Seq != seq {
		t.Errorf("SetRows to the same height: %v, screen changed %t", err, h.Screen().Snapshot().Seq != seq)
	}
}

// TestInputStopsWithTheChild: once the child is gone, the host no longer
// reads the person's terminal: a key typed then reaches whoever reads next
// (the shell, a prompt), not a forgotten goroutine.
func TestInputStopsWithTheChild(t *testing.T) {
	cfg, ptmx := onPersonTerminal(t, "echo")
	tty := cfg.Stdin
	h := startHost(t, cfg)
	go io.Copy(io.Discard, ptmx)
	waitScreen(t, h.Screen(), "ready")
	ptmx.Write([]byte("quit\r"))
	waitDone(t, h)

	ptmx.Write([]byte("later\n"))
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 64)
		n, _ := tty.Read(buf)
		got <- string(buf[:n])
	}()
	select {
	case s := <-got:
		if s != "later\n" {
			t.Errorf("the next reader got %q, want %q", s, "later\n")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the key typed after the child exited never reached the next reader")
	}
}

// TestEndsWhenAGrandchildHoldsThePTY: a child that exits leaving a process
// with the PTY open (one that ignores SIGHUP) still ends the host within
// the drain limit: the read is interrupted, not left in the kernel. And the
// grandchild, of the child's process group, does not outlive it.
func TestEndsWhenAGrandchildHoldsThePTY(t *testing.T) {
	h := startHost(t, helperConfig(t, "orphan"))
	waitScreen(t, h.Screen(), "orphaned")
	var orphan int
	text := h.Screen().Snapshot().Text()
	fmt.Sscanf(text[strings.Index(text, "orphaned"):], "orphaned %d", &orphan)
	if orphan <= 0 {
		t.Fatalf("no grandchild pid on the screen:\n%s", text)
	}
	t.Cleanup(func() { syscall.Kill(orphan, syscall.SIGKILL) })
	select {
	case <-h.Done():
	case <-time.After(drainGrace + 10*time.Second):
		t.Fatalf("the host waits for good on a PTY a grandchild holds")
	}
	if st, err := h.Wait(); err != nil || st.Code != 0 {
		t.Errorf("status %+v, %v", st, err)
	}
	// Gone, or a zombie waiting for init to reap it.
	for deadline := time.Now().Add(5 * time.Second); ; {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", orphan))
		if err != nil || strings.Contains(string(b), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild %d outlived the host: %s", orphan, b)
		}
		time.Sleep(20 * time.Millisecond) // polling /proc under a deadline
	}
}

// TestQueryFloodDoesNotDeadlock: a child that floods terminal queries and
// never reads the replies runs to its end: replies it does not read are
// dropped rather than stall the output copy.
func TestQueryFloodDoesNotDeadlock(t *testing.T) {
	h := startHost(t, helperConfig(t, "flood"))
	select {
	case <-h.Done():
	case <-time.After(30 * time.Second):
		t.Fatalf("a query flood deadlocked the host; screen:\n%s", h.Screen().Snapshot().Text())
	}
	if st, err := h.Wait(); err != nil || st.Code != 0 {
		t.Errorf("status %+v, %v", st, err)
	}
}

// TestPassthroughReportCut: a terminal's report that the read cuts in two
// (its first half read alone) reaches OnInput, and the child, whole.
func TestPassthroughReportCut(t *testing.T) {
	defer func(w time.Duration) { seqWait = w }(seqWait)
	seqWait = time.Minute // the second half is read in time however slow the machine
	cfg, ptmx := onPersonTerminal(t, "echo")
	var (
		mu     sync.Mutex
		chunks []string
	)
	cfg.OnInput = func(p []byte) { mu.Lock(); chunks = append(chunks, string(p)); mu.Unlock() }
	h := startHost(t, cfg)
	go io.Copy(io.Discard, ptmx)
	waitScreen(t, h.Screen(), "ready")

	reads := h.inRead.Load()
	ptmx.Write([]byte("\x1b[?62"))
	deadline := time.Now().Add(5 * time.Second)
	for h.inRead.Load() == reads { // the host has read the first half alone
		if time.Now().After(deadline) {
			t.Fatal("the host never read the first half")
		}
		time.Sleep(time.Millisecond)
	}
	ptmx.Write([]byte(";22c\r"))
	waitScreen(t, h.Screen(), `got "\x1b[?62;22c"`)
	mu.Lock()
	if !slices.Contains(chunks, "\x1b[?62;22c\r") {
		t.Errorf("OnInput saw %q, want the report whole", chunks)
	}
	mu.Unlock()
	ptmx.Write([]byte("quit\r"))
	waitDone(t, h)
}

// TestHeadlessTerm: headless, the child draws only on the emulated screen:
// a TERM that would have Claude draw without colours or in ASCII (none,
// dumb, linux) becomes xterm-256color, what the emulator is, and NO_COLOR
// and FORCE_COLOR=0 go; another TERM is the person's and is kept.
func TestHeadlessTerm(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, "TERM=xterm-256color NO_COLOR= FORCE_COLOR="},
		{[]string{"TERM=dumb"}, "TERM=xterm-256color NO_COLOR= FORCE_COLOR="},
		{[]string{"TERM=linux", "NO_COLOR=1"}, "TERM=xterm-256color NO_COLOR= FORCE_COLOR="},
		{[]string{"TERM=xterm-kitty", "FORCE_COLOR=0"}, "TERM=xterm-kitty NO_COLOR= FORCE_COLOR="},
		{[]string{"TERM=xterm", "FORCE_COLOR=3"}, "TERM=xterm NO_COLOR= FORCE_COLOR=3"},
	} {
		cfg := helperConfig(t, "term")
		env := slices.DeleteFunc(cfg.Env, func(kv string) bool {
			return strings.HasPrefix(kv, "TERM=") || strings.HasPrefix(kv, "NO_COLOR=") || strings.HasPrefix(kv, "FORCE_COLOR=")
		})
		cfg.Env = append(env, tc.env...)
		h := startHost(t, cfg)
		waitDone(t, h)
		<-h.outDone
		if got := strings.TrimSpace(h.Screen().Snapshot().Text()); got != tc.want {
			t.Errorf("%q: the child saw %q, want %q", tc.env, got, tc.want)
		}
	}
}
