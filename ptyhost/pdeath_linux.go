package ptyhost

import (
	"os/exec"
	"syscall"
)

// dieWithParent has Linux kill the child when claudewrap dies, even by
// SIGKILL: a Claude that ignores SIGHUP would otherwise live on, orphaned.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
