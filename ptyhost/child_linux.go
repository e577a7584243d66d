package ptyhost

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// child is Claude under a supervisor: claudewrap's own binary run again
// (supervise_linux.go), a child subreaper that starts Claude, passes
// signals on, and kills every process Claude started once Claude has
// exited or claudewrap is gone, however it went (SIGKILL included). The
// supervisor is in a session of its own, with no controlling terminal:
// Claude leads its own session on the PTY as it would without it, and gets
// the PTY's signals (Ctrl-C, SIGWINCH) straight from the kernel.
type child struct {
	cmd *exec.Cmd // the supervisor
	// life is the write end of the supervisor's lifeline: when it closes
	// (closeLife, or claudewrap's death), the supervisor kills everything.
	life     *os.File
	lifeOnce sync.Once
	// report is the supervisor's report: "started", or "error <reason>";
	// then "exit <wait status>" for Claude's end.
	report *os.File
	rd     *bufio.Reader
}

// startChild starts cfg's program on tty under a supervisor, and waits for
// the supervisor to say whether it started.
func startChild(cfg Config, tty *os.File) (*child, error) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		lifeR.Close()
		lifeW.Close()
		return nil, err
	}
	// /proc/self/exe is this binary even if its file was replaced since.
	cmd := &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        append([]string{supervisorName, cfg.Path}, cfg.Args...),
		Env:         cfg.Env,
		Dir:         cfg.Dir,
		Stdin:       tty,
		Stdout:      tty,
		Stderr:      tty,
		ExtraFiles:  []*os.File{lifeR, repW}, // fds 3 and 4
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	err = cmd.Start()
	lifeR.Close()
	repW.Close()
	if err != nil {
		lifeW.Close()
		repR.Close()
		return nil, err
	}
	c := &child{cmd: cmd, life: lifeW, report: repR, rd: bufio.NewReader(repR)}
	line, _ := c.rd.ReadString('\n')
	if line == "started\n" {
		return c, nil
	}
	c.closeLife()
	_ = cmd.Wait()
	repR.Close()
	reason, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "error ")
	if !ok {
		reason = "the supervisor ended before it started it (" + cmd.ProcessState.String() + ")"
	}
	return nil, errors.New(reason)
}

// signal sends sig to Claude through the supervisor; SIGKILL kills Claude
// and every process it started.
func (c *child) signal(sig os.Signal) error {
	if sig == syscall.SIGKILL {
		c.closeLife()
		return nil
	}
	return c.cmd.Process.Signal(sig)
}

func (c *child) closeLife() { c.lifeOnce.Do(func() { c.life.Close() }) }

// wait waits for the supervisor, which exits once Claude has and nothing
// Claude started is left, and reports how Claude ended.
func (c *child) wait() (Status, error) {
	err := c.cmd.Wait()
	c.closeLife()
	rest, _ := io.ReadAll(c.rd)
	c.report.Close()
	if n, ok := strings.CutPrefix(strings.TrimSpace(string(rest)), "exit "); ok {
		if ws, perr := strconv.ParseUint(n, 10, 32); perr == nil {
			return statusOf(syscall.WaitStatus(ws)), nil
		}
	}
	// The supervisor itself was killed before it could say.
	return exitStatus(c.cmd.ProcessState, err)
}

// end does nothing: the supervisor has ended everything before it exited.
func (c *child) end() {}
