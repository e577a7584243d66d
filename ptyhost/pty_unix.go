//go:build unix

package ptyhost

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pollable returns the PTY master as a file the runtime's poller serves, so
// that reads and writes honour deadlines and Close: creack/pty's ioctls
// call Fd(), which leaves the descriptor in blocking mode, and a read then
// blocks in the kernel for as long as any process holds the PTY open. f is
// closed. Nothing may call Fd() on the result.
func pollable(f *os.File) (*os.File, error) {
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

// setSize sets the PTY's window size without Fd() (see pollable).
func setSize(f *os.File, cols, rows int) error {
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

// readable reports whether a read of rc would find data now, without
// waiting.
func readable(rc syscall.RawConn) bool {
	ready := false
	_ = rc.Control(func(fd uintptr) {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, 0)
		ready = err == nil && n > 0
	})
	return ready
}
