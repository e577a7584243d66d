package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// catchSIGPIPE makes a write to a closed pipe on stdout or stderr fail with
// EPIPE instead of killing claudewrap: `claudewrap run --events - | head`
// must still answer the form, clean up and say what was lost. Claude does
// not inherit this (handlers are reset on exec).
func catchSIGPIPE() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}
