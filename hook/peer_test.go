package hook

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// As a child: dial the socket named in the environment and send a hook.
	if sock := os.Getenv("HOOK_TEST_DIAL"); sock != "" {
		// Forward refuses a socket of another user; a hostile process
		// would not ask, so the message goes in raw too.
		if err := Forward(strings.NewReader(pre), sock); err != nil {
			os.Stderr.WriteString("forward: " + err.Error() + "\n")
		}
		c, err := net.Dial("unix", sock)
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		c.Write([]byte(pre))
		c.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestOtherUserRefused: a process of another user is refused even when it
// can reach the socket (here the private directory is opened up on
// purpose). Switching users needs root; without it, the test checks what
// it can: the directory is private.
func TestOtherUserRefused(t *testing.T) {
	s := listen(t)
	dir := filepath.Dir(s.Path())
	if os.Getuid() != 0 {
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("socket directory %v, %v: want 0700", fi.Mode(), err)
		}
		t.Log("not root: only the directory's privacy is checked")
		return
	}
	os.Chmod(dir, 0o755)
	os.Chmod(s.Path(), 0o777)
	// The test binary's own directory is private too: run a copy.
	exe, _ := os.Executable()
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	os.Chmod(filepath.Dir(tmp), 0o755)
	os.Chmod(tmp, 0o755)
	child := filepath.Join(tmp, "hook.test")
	if err := os.WriteFile(child, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(child)
	cmd.Env = append(os.Environ(), "HOOK_TEST_DIAL="+s.Path())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	// The child's write may fail once the server hangs up on it.
	out, _ := cmd.CombinedOutput()
	t.Logf("child as nobody: %s", out)
	if !strings.Contains(string(out), "forward: socket "+s.Path()+" belongs to uid 0") {
		t.Errorf("claudewrap hook sent to another user's socket: %s", out)
	}
	select {
	case m := <-s.Messages():
		if m.Err == nil || !strings.Contains(m.Err.Error(), "uid 65534 refused") {
			t.Fatalf("want the message refused for its uid, got %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no message")
	}
}
