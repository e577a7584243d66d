//go:build linux && cgo

package ptyhost

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// relayOnPipes starts a relay thread reading a pipe (standing for the PTY)
// and writing to another (the person's terminal, unless headless). It
// returns the pipe's write end and what reached the person's side.
func relayOnPipes(t *testing.T, headless bool) (*cRelay, *os.File, <-chan []byte) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close() })
	// The thread's read blocks, as on the PTY: a copy in blocking mode.
	fd, err := unix.FcntlInt(inR.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	inR.Close()
	if err != nil {
		t.Fatal(err)
	}
	var out *os.File
	seen := make(chan []byte, 1)
	if !headless {
		outR, outW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		out = outW
		go func() {
			b, _ := io.ReadAll(outR)
			outR.Close()
			seen <- b
		}()
	}
	r, err := startRelay(fd, out, !headless)
	if out != nil {
		out.Close() // the thread writes to its own copy
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.close)
	return r, inW, seen
}

// takeUntil takes from r, from now on, until want has come; the result
// waits (within a deadline) on the returned function.
func takeUntil(t *testing.T, r *cRelay, want []byte) func() []byte {
	t.Helper()
	got := make(chan []byte, 1)
	go func() {
		var all []byte
		buf := make([]byte, relayCap)
		for !bytes.HasSuffix(all, want) {
			n, err := r.take(buf)
			all = append(all, buf[:n]...)
			if n == 0 || err != nil {
				break
			}
		}
		got <- all
	}()
	return func() []byte {
		t.Helper()
		select {
		case b := <-got:
			return b
		case <-time.After(10 * time.Second):
			t.Fatalf("take never gave %q", want)
			return nil
		}
	}
}

// TestRelayTailAfterABurst: bytes written right after a burst, with the
// output then still and the PTY open, still reach Go. The thread does not
// wake Go at a pause during a burst (a poll per read cost a tenth of the
// throughput), so take must look again on its own: after a long burst, and
// after one that ends less than relayWakeAt past the burst's start, which
// no full buffer wakes Go for. The person's side is a pipe Go made
// non-blocking, as another program may leave a terminal: the thread waits
// for room rather than drop bytes.
func TestRelayTailAfterABurst(t *testing.T) {
	for _, c := range []struct {
		size     int
		headless bool
	}{{4 << 20, false}, {burstBytes + relayWakeAt/2, false}, {4 << 20, true}} {
		headless := c.headless
		r, in, seen := relayOnPipes(t, headless)
		stream := bytes.Repeat([]byte("0123456789abcdef"), c.size/16)
		stream = append(stream, "the tail"...)
		took := takeUntil(t, r, []byte("the tail"))
		if _, err := in.Write(stream[:len(stream)-8]); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Write(stream[len(stream)-8:]); err != nil {
			t.Fatal(err)
		}
		if got := took(); !bytes.Equal(got, stream) {
			t.Fatalf("headless=%v: Go took %d bytes, want %d", headless, len(got), len(stream))
		}
		in.Close()
		buf := make([]byte, 16)
		if n, err := r.take(buf); n != 0 || err != nil {
			t.Fatalf("headless=%v: after EOF take = %d, %v; want 0, nil", headless, n, err)
		}
		if headless {
			continue
		}
		select {
		case b := <-seen:
			if !bytes.Equal(b, stream) {
				t.Fatalf("the person saw %d bytes, want %d", len(b), len(stream))
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the person's side never closed")
		}
	}
}

// TestRelayStopOnAPTY: stop makes the thread's read of a PTY return
// although nothing else writes to it, so that the thread ends and lets go
// of its copies (of the PTY, whose close hangs up the child's side, and of
// the person's terminal), and what it read to wake it is not shown.
func TestRelayStopOnAPTY(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close() // the child's side stays open, as a grandchild may hold it
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	goPTY, r, err := startOn(ptmx, outW)
	outW.Close()
	ptmx.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer goPTY.Close()
	defer r.close()
	seen := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(outR)
		seen <- b
	}()
	r.stop()
	select {
	case b := <-seen:
		if len(b) != 0 {
			t.Fatalf("the person saw %q after stop", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the thread still reads the PTY after stop")
	}
}

// TestRelayStop: stop ends take at once though the PTY stays open, and
// nothing read after it reaches the person.
func TestRelayStop(t *testing.T) {
	r, in, seen := relayOnPipes(t, false)
	took := takeUntil(t, r, []byte("before"))
	if _, err := in.Write([]byte("before")); err != nil {
		t.Fatal(err)
	}
	took()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		buf := make([]byte, 16)
		for {
			if n, _ := r.take(buf); n == 0 {
				return
			}
		}
	}()
	r.stop()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("take went on after stop")
	}
	if _, err := in.Write([]byte("after")); err != nil {
		t.Fatal(err)
	}
	in.Close() // the thread ends at this read, and closes its copy of the person's side
	select {
	case b := <-seen:
		if string(b) != "before" {
			t.Fatalf("the person saw %q, want %q", b, "before")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the thread never ended after stop")
	}
	r.close()
	r.stop() // after close too, stop is harmless
}
