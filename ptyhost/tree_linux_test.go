package ptyhost

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNothingOutlivesTheRun: a process the child started that left its
// session and ignores the hang-up (`nohup setsid sleep 1000 &`) is gone
// once the run ends: when the child exits, and when the wrapper itself is
// killed outright (SIGKILL), after which it can do nothing: killing the
// child's process group, which such a process left, would not be enough.
func TestNothingOutlivesTheRun(t *testing.T) {
	t.Run("the child exits", func(t *testing.T) {
		h := startHost(t, helperConfig(t, "daemon", "exit"))
		waitScreen(t, h.Screen(), "daemon")
		var daemon, child int
		text := h.Screen().Snapshot().Text()
		fmt.Sscanf(text[strings.Index(text, "daemon"):], "daemon %d of %d", &daemon, &child)
		born := started(daemon)
		t.Cleanup(func() { syscall.Kill(daemon, syscall.SIGKILL) })
		if st := waitDone(t, h); st.Code != 0 {
			t.Errorf("status %+v, want 0", st)
		}
		waitGone(t, "the daemon", daemon, born)
	})
	t.Run("the wrapper is killed", func(t *testing.T) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		wrapper := exec.Command(exe)
		wrapper.Env = append(os.Environ(), "PTYHOST_HELPER=host")
		out, err := wrapper.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := wrapper.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { wrapper.Process.Kill(); wrapper.Wait() })
		said := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(out).ReadString('\n')
			said <- line
		}()
		var line string
		select {
		case line = <-said:
		case <-time.After(10 * time.Second):
			t.Fatal("the wrapper never said its processes")
		}
		var daemon, child, super int
		if n, _ := fmt.Sscanf(line, "daemon %d child %d wrapper %d", &daemon, &child, &super); n != 3 {
			t.Fatalf("the wrapper said %q", line)
		}
		t.Cleanup(func() {
			for _, pid := range []int{daemon, child} {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		born := map[int]string{daemon: started(daemon), child: started(child), super: started(super)}
		if err := wrapper.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		wrapper.Wait()
		waitGone(t, "the daemon", daemon, born[daemon])
		waitGone(t, "the child", child, born[child])
		waitGone(t, "the child's supervisor", super, born[super])
	})
}

// started is pid's start time from /proc, "" when it is gone.
func started(pid int) string {
	if st, ok := procStat(pid); ok && len(st) > 19 {
		return st[19]
	}
	return ""
}

// procStat returns the fields of /proc/pid/stat after the command name:
// [0] is the state, [19] the start time.
func procStat(pid int) ([]string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(b[i+1:])), true
}

// waitGone waits until pid, started at born, is gone or a zombie waiting to
// be reaped.
func waitGone(t *testing.T, what string, pid int, born string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		st, ok := procStat(pid)
		if !ok || st[0] == "Z" || st[19] != born {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) outlived the run, state %s", what, pid, st[0])
		}
		time.Sleep(20 * time.Millisecond) // polling /proc under a deadline
	}
}
