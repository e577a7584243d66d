package peercred

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestAncestry: a child's ancestry is itself, then this process, then this
// process's own ancestors up to the first process; a gone process has none.
func TestAncestry(t *testing.T) {
	c := exec.Command("sleep", "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	chain, err := Ancestry(c.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) < 3 || chain[0] != c.Process.Pid || chain[1] != os.Getpid() || chain[len(chain)-1] > 1 && !slices.Contains(chain, os.Getppid()) {
		t.Errorf("ancestry of a child: %v (this process %d)", chain, os.Getpid())
	}
	if p := Program(c.Process.Pid); filepath.Base(p) != "sleep" {
		t.Errorf("the child's program is %q, want sleep", p)
	}
	c.Process.Kill()
	c.Wait()
	if chain, err := Ancestry(c.Process.Pid); err == nil {
		t.Errorf("a gone process has an ancestry: %v", chain)
	}
}
