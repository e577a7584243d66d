//go:build unix

package ptyhost

import (
	"syscall"

	"golang.org/x/sys/unix"
)

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
