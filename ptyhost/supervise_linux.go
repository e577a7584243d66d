package ptyhost

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervisorName is the supervisor's argv[0]: a binary that links ptyhost
// (claudewrap, and the tests' binaries) runs as the supervisor when started
// under that name, before its main or TestMain, so that every one of them
// can start a Host.
const supervisorName = "claudewrap-supervisor"

func init() {
	if len(os.Args) > 0 && os.Args[0] == supervisorName {
		// syscall.Exit: the supervisor has nothing to flush, and a build
		// with the race detector would wait a second in os.Exit.
		syscall.Exit(supervise(os.Args[1:]))
	}
}

// endWait bounds how long the supervisor waits for the processes it killed
// to go (one in uninterruptible sleep dies only when its I/O ends).
const endWait = 5 * time.Second

// supervise runs the program args names on the terminal it was given as
// stdin, stdout and stderr, as the leader of a session of its own with that
// terminal, and returns once it has exited and every process it started
// has ended. It is a child subreaper: a process whose parent dies (a
// daemon's double fork, `nohup setsid cmd &`) becomes its child, so that
// none gets away. Fd 3 is its lifeline: when claudewrap closes it, or dies,
// everything is killed. Fd 4 is its report (see child). Signals it gets are
// passed on to the program; its exit status is the program's (128+N for
// signal N), and the report has the exact wait status.
func supervise(args []string) int {
	var st syscall.Stat_t
	if len(args) == 0 || syscall.Fstat(3, &st) != nil || syscall.Fstat(4, &st) != nil {
		fmt.Fprintln(os.Stderr, supervisorName+": run by claudewrap only")
		return 2
	}
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	life, report := os.NewFile(3, "life"), os.NewFile(4, "report")
	fail := func(err error) int {
		fmt.Fprintf(report, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return 127
	}
	// Where a sandbox refuses it, the descendants still attached to the
	// tree at the end are killed all the same.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	// Caught, not ignored: the program starts with the default handlers.
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT,
		syscall.SIGUSR1, syscall.SIGUSR2)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Pdeathsig: should the supervisor itself be killed, so is the program.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	fmt.Fprint(report, "started\n")
	lost := make(chan struct{})
	go func() {
		var b [1]byte
		_, _ = life.Read(b[:]) // EOF: claudewrap let go, or died
		close(lost)
	}()

	r := reaper{pid: cmd.Process.Pid}
wait:
	for !r.done {
		select {
		case sig := <-sigs:
			if sig == syscall.SIGCHLD {
				r.reap()
			} else {
				_ = syscall.Kill(r.pid, sig.(syscall.Signal))
			}
		case <-lost:
			break wait // the program is killed with the rest
		}
	}
	r.endAll(sigs)
	if !r.done {
		return 128 + int(syscall.SIGKILL)
	}
	fmt.Fprintf(report, "exit %d\n", uint32(r.status))
	return statusOf(r.status).Code
}

// reaper reaps the supervisor's children, the program (pid) among them.
type reaper struct {
	pid    int
	done   bool // the program has exited, with status
	status syscall.WaitStatus
}

// reap reaps every child that has ended. It reports false once there are
// no children left at all: as a subreaper, no descendants either.
func (r *reaper) reap() (children bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return false // ECHILD
		case pid <= 0:
			return true
		case pid == r.pid:
			r.done, r.status = true, ws
		}
	}
}

// endAll kills every descendant until none is left, or endWait has passed.
// A process forked between a look and the kill is found at the next look:
// its parent's death made it the supervisor's.
func (r *reaper) endAll(sigs <-chan os.Signal) {
	deadline := time.NewTimer(endWait)
	defer deadline.Stop()
	for {
		for _, pid := range descendants(os.Getpid()) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if !r.reap() {
			return
		}
		// Look again when a child ends, or a little later for a
		// grandchild's end, which the supervisor is not told of.
		select {
		case <-sigs:
		case <-time.After(10 * time.Millisecond):
		case <-deadline.C:
			return
		}
	}
}

// descendants lists the live (not zombie) processes below root, from /proc.
func descendants(root int) []int {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	kids := map[int][]int{}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid …; comm may hold anything, the last ')'
		// ends it.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		kids[ppid] = append(kids[ppid], pid)
	}
	var out []int
	for next := kids[root]; len(next) > 0; {
		pid := next[0]
		next = append(next[1:], kids[pid]...)
		out = append(out, pid)
	}
	return out
}
