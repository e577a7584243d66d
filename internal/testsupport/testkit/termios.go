package testkit

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Termios reads the terminal settings of f, the way each OS asks for them,
// so that a test can check a terminal was put in raw mode and restored.
func Termios(f *os.File) (*unix.Termios, error) {
	return unix.IoctlGetTermios(int(f.Fd()), getTermios)
}

// SetTermios sets the terminal settings of f.
func SetTermios(f *os.File, t *unix.Termios) error {
	return unix.IoctlSetTermios(int(f.Fd()), setTermios, t)
}

// Raw puts the terminal f in raw mode (no echo, no line editing, no
// signals, bytes as they come) through f's raw descriptor, so that f stays
// served by the runtime's poller and its deadlines still work (Fd would
// make it blocking).
func Raw(f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	err = sc.Control(func(fd uintptr) {
		t, err := unix.IoctlGetTermios(int(fd), getTermios)
		if err != nil {
			opErr = err
			return
		}
		t.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
		t.Iflag &^= unix.ICRNL | unix.IXON
		t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
		opErr = unix.IoctlSetTermios(int(fd), setTermios, t)
	})
	return errors.Join(err, opErr)
}
