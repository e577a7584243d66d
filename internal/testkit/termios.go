package testkit

import (
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
