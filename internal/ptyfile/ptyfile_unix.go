//go:build unix

package ptyfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Pollable returns the PTY master as a file the runtime's poller serves, so
// that reads and writes honour deadlines and Close: once anything has
// called Fd() (creack/pty's ioctls fall back to it where SyscallConn is
// missing, and Pollable itself must), the descriptor is in blocking mode,
// and a read then blocks in the kernel for as long as any process holds
// the PTY open. f is closed when Pollable succeeds, and left to the caller
// when it fails. Nothing may call Fd() on the result.
func Pollable(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("dup the pty: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("pty non-blocking: %w", err)
	}
	name := f.Name()
	_ = f.Close()
	return os.NewFile(uintptr(fd), name), nil
}

// SetSize sets the PTY's window size without Fd() (see Pollable).
func SetSize(f *os.File, cols, rows int) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	if err := sc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
	}); err != nil {
		return err
	}
	return ierr
}
