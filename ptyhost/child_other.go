//go:build !linux

package ptyhost

import (
	"os"
	"os/exec"
	"syscall"
)

// child is Claude, started as claudewrap's own child, the leader of its
// own session and process group with the PTY as its controlling terminal.
// Where the kernel has neither a subreaper nor a parent-death signal
// (macOS), this is what can be done: its process group is killed when it
// has exited (end), and if claudewrap is killed outright, Claude and its
// session get the hang-up of the PTY closing. A process that left the
// group (setsid, a job-control shell's jobs) and ignores the hang-up
// outlives the run.
type child struct{ cmd *exec.Cmd }

// startChild starts cfg's program on tty.
func startChild(cfg Config, tty *os.File) (*child, error) {
	cmd := exec.Command(cfg.Path, cfg.Args...)
	cmd.Env, cmd.Dir = cfg.Env, cfg.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &child{cmd: cmd}, nil
}

func (c *child) signal(sig os.Signal) error { return c.cmd.Process.Signal(sig) }

// wait waits for Claude to exit.
func (c *child) wait() (Status, error) {
	err := c.cmd.Wait()
	return exitStatus(c.cmd.ProcessState, err)
}

// end kills what is left of Claude's process group: a hook command still
// running, a job that ignores the hang-up.
func (c *child) end() { _ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) }
