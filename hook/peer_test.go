package hook

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// As a child: forward a hook, as `claudewrap hook` does, and print what
	// Forward said. Orphaned first when asked: its parent shell exits, and
	// it waits to be adopted by someone outside this test's process tree.
	if sock := os.Getenv("HOOK_TEST_FORWARD"); sock != "" {
		if sh := os.Getenv("HOOK_TEST_ORPHAN_OF"); sh != "" {
			parent, _ := strconv.Atoi(sh)
			deadline := time.Now().Add(10 * time.Second)
			for os.Getppid() == parent && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond) // polling for the reparenting, under a deadline
			}
		}
		err := Forward(strings.NewReader(pre), sock, nil)
		fmt.Fprintf(os.Stdout, "forward: %v\n", err)
		if out := os.Getenv("HOOK_TEST_OUT"); out != "" {
			os.WriteFile(out, []byte(fmt.Sprintf("forward: %v\n", err)), 0o600)
		}
		os.Exit(0)
	}
	// As a child: dial the socket named in the environment and send a hook.
	if sock := os.Getenv("HOOK_TEST_DIAL"); sock != "" {
		// Forward refuses a socket of another user; a hostile process
		// would not ask, so the message goes in raw too.
		if err := Forward(strings.NewReader(pre), sock, nil); err != nil {
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

// TestDescendantAccepted: a hook sent by a child of the listening process
// (as Claude's hooks are) is accepted and acknowledged.
func TestDescendantAccepted(t *testing.T) {
	s := listen(t)
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "HOOK_TEST_FORWARD="+s.Path())
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "forward: <nil>" {
		t.Fatalf("child: %s %v", out, err)
	}
	if m := next(t, s); m.Err != nil || m.Payload.ToolUseID != "toolu_1" {
		t.Fatalf("want the child's message, got %+v", m)
	}
}

// TestStrangerRefused: a process of the same user that is not a
// descendant of the listening process (here an orphan adopted elsewhere) is
// refused, and told so; nothing it sent is delivered.
func TestStrangerRefused(t *testing.T) {
	s := listen(t)
	exe, _ := os.Executable()
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command("/bin/sh", "-c", `HOOK_TEST_ORPHAN_OF=$$ "$0" &`, exe)
	cmd.Env = append(os.Environ(), "HOOK_TEST_FORWARD="+s.Path(), "HOOK_TEST_OUT="+out)
	// No pipes: the orphan would hold them open, and Run wait for it.
	if err := cmd.Run(); err != nil {
		t.Fatalf("sh: %v", err)
	}
	m := next(t, s)
	if m.Err == nil || !strings.Contains(m.Err.Error(), "not a process of the Claude this run started") {
		t.Fatalf("want the stranger refused, got %+v", m)
	}
	deadline := time.Now().Add(10 * time.Second)
	var said []byte
	for len(said) == 0 && time.Now().Before(deadline) {
		said, _ = os.ReadFile(out)
		time.Sleep(10 * time.Millisecond) // polling for the orphan's file, under a deadline
	}
	if !strings.Contains(string(said), "refused: hook message from pid") {
		t.Errorf("the stranger was not told: %q", said)
	}
}

func TestDescends(t *testing.T) {
	if err := descends(os.Getpid(), os.Getpid()); err != nil {
		t.Errorf("self: %v", err)
	}
	if err := descends(os.Getpid(), os.Getppid()); err != nil {
		t.Errorf("from the parent: %v", err)
	}
	if err := descends(os.Getppid(), os.Getpid()); err == nil {
		t.Error("the parent taken for a descendant")
	}
	if err := descends(1<<30, os.Getpid()); err == nil || !strings.Contains(err.Error(), "cannot be checked") {
		t.Errorf("a process that does not exist: %v", err)
	}
}

// TestStaleFoldersRemoved: the private folder a run killed outright left
// (its hook socket and Claude's settings) is removed when the next run
// starts; a live run's, another name's and a file are left alone.
func TestStaleFoldersRemoved(t *testing.T) {
	base, err := os.MkdirTemp("", "hk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	t.Setenv("TMPDIR", base)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(base, fmt.Sprintf("claudewrap-%d-123", gone.Process.Pid))
	live := filepath.Join(base, fmt.Sprintf("claudewrap-%d-456", os.Getpid()))
	other := filepath.Join(base, "claudewrap-x-1")
	for _, d := range []string{dead, live, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dead, SettingsFile), []byte("{}"), 0o600)
	s, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead run's folder was left: %v", err)
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}
