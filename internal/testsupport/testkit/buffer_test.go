package testkit

import (
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"
)

func TestSyncBufferWaitFor(t *testing.T) {
	var b SyncBuffer
	go func() {
		time.Sleep(20 * time.Millisecond) // a writer that comes late
		b.Write([]byte("hello there"))
	}()
	if got := b.WaitFor(t, "there", 5*time.Second); got != "hello there" {
		t.Errorf("WaitFor returned %q", got)
	}
}

func TestTermiosSeesRawMode(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	before, err := Termios(tty)
	if err != nil {
		t.Fatal(err)
	}
	st, err := term.MakeRaw(int(tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := Termios(tty)
	if err != nil {
		t.Fatal(err)
	}
	if *raw == *before {
		t.Error("raw mode did not show in the termios")
	}
	term.Restore(int(tty.Fd()), st)
	after, _ := Termios(tty)
	if *after != *before {
		t.Error("restored termios differs")
	}
}
