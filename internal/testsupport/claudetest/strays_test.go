package claudetest

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestKillStrays: a process whose HOME is the home is killed, one with
// another HOME is not (without /proc, none is found).
func TestKillStrays(t *testing.T) {
	home, other := t.TempDir(), t.TempDir()
	start := func(h string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = append(os.Environ(), "HOME="+h)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	stray, kept := start(home), start(other)
	n := KillStrays(home)
	if runtime.GOOS != "linux" {
		if n != 0 {
			t.Fatalf("killed %d without /proc", n)
		}
		return
	}
	if n != 1 {
		t.Fatalf("killed %d, want the one process of that home", n)
	}
	done := make(chan error, 1)
	go func() { done <- stray.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("the stray exited by itself")
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the stray still runs")
	}
	if err := syscall.Kill(kept.Process.Pid, 0); err != nil {
		t.Errorf("the other home's process was killed: %v", err)
	}
}
