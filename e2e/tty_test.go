//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/stress"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// startOnTTY is startInTerminal that keeps the person's side of the PTY open
// (so the test can read its termios) and lets prep set the terminal up before
// claudewrap starts.
func startOnTTY(t *testing.T, version, scenario, prompt string, prep func(tty *os.File, sb *claudetest.Sandbox), args ...string) (*terminalRun, *os.File) {
	t.Helper()
	return startOnTTYAs(t, stress.Mute, version, scenario, prompt, prep, args...)
}

// startOnTTYAs is startOnTTY on a terminal that answers Claude's queries
// as term would (see stress.Answerer).
func startOnTTYAs(t *testing.T, term stress.Term, version, scenario, prompt string, prep func(tty *os.File, sb *claudetest.Sandbox), args ...string) (*terminalRun, *os.File) {
	t.Helper()
	answers := stress.NewAnswerer(term)
	bin := claudetest.Claudewrap(t)
	sb := claudetest.New(t, version, scenario)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	pty.Setsize(tty, &pty.Winsize{Cols: 100, Rows: 40})
	if prep != nil {
		prep(tty, sb)
	}
	tr := &terminalRun{ptmx: ptmx, done: make(chan struct{}), read: make(chan struct{}), sb: sb, events: filepath.Join(t.TempDir(), "events.jsonl"),
		screen: screen.New(screen.Options{Cols: 100, Rows: 40})}
	full := append([]string{"run", "--claude", sb.Claude, "--events", tr.events}, args...)
	full = append(full, "--", prompt)
	tr.cmd = exec.Command(bin, full...)
	tr.cmd.Env, tr.cmd.Dir = sb.Env(), sb.Dir
	tr.cmd.Stdin, tr.cmd.Stdout, tr.cmd.Stderr = tty, tty, tty
	tr.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := tr.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 32*1024)
		for {
			n, err := ptmx.Read(buf)
			tr.mu.Lock()
			tr.shown.Write(buf[:n])
			tr.mu.Unlock()
			tr.screen.Write(buf[:n])
			if r := answers.Answer(buf[:n]); len(r) > 0 {
				ptmx.Write(r) // as the terminal types its reports
			}
			if err != nil {
				close(tr.read)
				return
			}
		}
	}()
	go func() { tr.cmd.Wait(); close(tr.done) }()
	t.Cleanup(func() { tr.cmd.Process.Kill(); <-tr.done })
	checkCtty(t, tr.cmd.Process.Pid, tty)
	return tr, tty
}

// checkCtty fails the test unless pid's controlling terminal is tty. Once
// (CI at 0886d45) two TestAskPromptKeys runs started together failed as if
// one claudewrap had been given the other's terminal: one could not open
// /dev/tty (ENXIO: a root process's TIOCSCTTY takes a terminal from the
// session holding it), the other's terminal showed nothing. This says so
// at the start if it happens again. Only another terminal fails it: none
// (0) is a claudewrap already exiting, and without /proc it checks nothing.
func checkCtty(t *testing.T, pid int, tty *os.File) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Fstat(int(tty.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	rdev := uint64(st.Rdev) // int32 on darwin
	maj, mnr := uint64(unix.Major(rdev)), uint64(unix.Minor(rdev))
	want := mnr&0xff | maj<<8 | (mnr&^0xff)<<12 // as /proc/PID/stat encodes tty_nr
	f, ok := procStat(pid)
	if !ok || len(f) < 5 {
		return // exited and reaped, or no /proc
	}
	if got, _ := strconv.ParseUint(f[4], 10, 64); got != 0 && got != want {
		t.Fatalf("claudewrap (pid %d) has terminal %#x, not the test's %s (%#x)", pid, got, tty.Name(), want)
	}
}

// procStat returns the fields of /proc/pid/stat after the command name:
// [0] is the state, [3] the session id, [19] the start time.
func procStat(pid int) ([]string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(b[i+1:])), true
}
