package remote

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestInRun: a process whose ancestor is named as a run's supervisor (on
// Linux) is in a run; the test itself is not.
func TestInRun(t *testing.T) {
	if _, ok := InRun(os.Getpid()); ok {
		t.Fatal("the test process is taken for one in a run")
	}
	c := exec.Command("bash", "-c", `exec -a claudewrap-supervisor bash -c 'sleep 30 & echo $$ $!; wait'`)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	var root, child int
	if _, err := fmt.Fscan(out, &root, &child); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	if got, ok := InRun(child); !ok || got != root {
		t.Errorf("InRun(child of the supervisor) = %d, %v; want %d, true", got, ok, root)
	}
}
