//go:build unix

package ptyfile

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestPollable: a master made blocking by Fd() is served by the poller
// again once Pollable has it: a read with nothing to read ends at its
// deadline (a blocking one would wait for input). SetSize resizes it and
// leaves it so.
func TestPollable(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	ptmx.Fd()
	p, err := Pollable(ptmx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	read := func() {
		t.Helper()
		if err := p.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
			t.Fatalf("a deadline refused: %v", err)
		}
		got := make(chan error, 1)
		go func() {
			_, err := p.Read(make([]byte, 16))
			got <- err
		}()
		select {
		case err := <-got:
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("read with nothing to read: %v, want the deadline", err)
			}
		case <-time.After(5 * time.Second):
			tty.Write([]byte("x")) // let the read end
			t.Fatal("a read past its deadline: the master is blocking")
		}
	}
	read()
	if err := SetSize(p, 123, 45); err != nil {
		t.Fatal(err)
	}
	if rows, cols, err := pty.Getsize(tty); err != nil || cols != 123 || rows != 45 {
		t.Fatalf("size %dx%d (%v), want 123x45", cols, rows, err)
	}
	read()
}
