package cli

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// createOutput opens a file claudewrap writes (the event log, a
// recording): a new or truncated regular file, private to the user
// (recordings hold everything Claude drew), never written through a
// symbolic link to another file. A link to a device or a pipe
// (/dev/stdout) is written as it is.
func createOutput(name string) (*os.File, error) {
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		st, err := os.Stat(name)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s is a symbolic link to nothing (%v); name a file", name, err)
		case st.Mode().IsRegular():
			return nil, fmt.Errorf("%s is a symbolic link to a file; name the file itself", name)
		}
		return os.OpenFile(name, os.O_WRONLY, 0)
	}
	return os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
}

// catchSIGPIPE makes a write to a closed pipe on stdout or stderr fail with
// EPIPE instead of killing claudewrap: `claudewrap run --events - | head`
// must still answer the form, clean up and say what was lost. Claude does
// not inherit this (handlers are reset on exec).
func catchSIGPIPE() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}
