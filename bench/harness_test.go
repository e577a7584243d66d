//go:build bench

package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// Settings from the environment; `make bench` sets the defaults below.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	if v == "0" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return def
	}
	return d
}

// wanted reports whether section is in $BENCH_ONLY (all when unset).
func wanted(section string) bool {
	only := os.Getenv("BENCH_ONLY")
	if only == "" {
		return true
	}
	for _, s := range strings.Split(only, ",") {
		if strings.TrimSpace(s) == section {
			return true
		}
	}
	return false
}

var (
	childOnce sync.Once
	childPath string
	childErr  error
	childOut  []byte
)

// benchchild builds bench/benchchild once and returns its path.
func benchchild(t testing.TB) string {
	t.Helper()
	childOnce.Do(func() {
		dir, err := os.MkdirTemp("", "benchchild-")
		if err != nil {
			childErr = err
			return
		}
		childPath = filepath.Join(dir, "benchchild")
		cmd := exec.Command("go", "build", "-o", childPath, "./bench/benchchild")
		cmd.Dir = claudetest.Root(t)
		childOut, childErr = cmd.CombinedOutput()
	})
	if childErr != nil {
		t.Fatalf("build benchchild: %v\n%s", childErr, childOut)
	}
	return childPath
}

// terminal is a program started on a fresh PTY that stands for the person's
// terminal: its stdin, stdout and stderr, and its controlling terminal.
type terminal struct {
	cmd   *exec.Cmd
	ptmx  *os.File
	start time.Time
	done  chan struct{}
}

func startOnTerminal(t testing.TB, cols, rows int, dir string, env []string, name string, args ...string) *terminal {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(tty, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// Pdeathsig: a benchmark killed from outside leaves nothing running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGTERM}
	tm := &terminal{cmd: cmd, ptmx: ptmx, done: make(chan struct{})}
	tm.start = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	go func() { cmd.Wait(); close(tm.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-tm.done
		ptmx.Close()
	})
	return tm
}

// drain reads the terminal to the end (EIO once every holder of the other
// side has gone) and reports how many bytes came and when the last did.
func (tm *terminal) drain(limit time.Duration) (n int64, end time.Time, err error) {
	deadline := time.Now().Add(limit)
	if err := tm.ptmx.SetReadDeadline(deadline); err != nil {
		return 0, time.Time{}, err
	}
	buf := make([]byte, 32<<10)
	for {
		k, rerr := tm.ptmx.Read(buf)
		n += int64(k)
		if rerr != nil {
			end = time.Now()
			if os.IsTimeout(rerr) {
				return n, end, fmt.Errorf("output did not end within %s (%d bytes read)", limit, n)
			}
			return n, end, nil
		}
	}
}

// readUntil reads until the output so far contains want, or the deadline.
func (tm *terminal) readUntil(want []byte, limit time.Duration) ([]byte, error) {
	_ = tm.ptmx.SetReadDeadline(time.Now().Add(limit))
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(got, want) {
		k, err := tm.ptmx.Read(buf)
		got = append(got, buf[:k]...)
		if err != nil {
			return got, fmt.Errorf("waiting for %q: %w; got %q", want, err, tail(got, 300))
		}
	}
	return got, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// wait waits for the program to exit.
func (tm *terminal) wait(limit time.Duration) error {
	select {
	case <-tm.done:
		return nil
	case <-time.After(limit):
		tm.cmd.Process.Kill()
		return fmt.Errorf("%s did not exit within %s", filepath.Base(tm.cmd.Path), limit)
	}
}

// quietEnv is the environment for the claudewrap binary in passthrough: no
// rules file of the person's is picked up.
func quietEnv(t testing.TB) (dir string, env []string) {
	dir = t.TempDir()
	env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "TERM=xterm-256color", "LANG=C.UTF-8")
	return dir, env
}
