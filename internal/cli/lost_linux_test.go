package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testkit"
)

// TestLostOutputIsNotSuccess: a run whose event log or recording could not
// be written (a full disk: Linux's /dev/full) does not exit 0, and says why on stderr.
func TestLostOutputIsNotSuccess(t *testing.T) {
	for _, flag := range []string{"--events", "--record"} {
		t.Run(flag, func(t *testing.T) {
			exe, _ := os.Executable()
			cmd := exec.Command(exe, "run", "--headless", "--claude", fakeClaudeScript(t), flag, "/dev/full", "--", "exit", "0")
			cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
			var stderr testkit.SyncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			if code := exitCode(t, cmd); code != int(ExitError) {
				t.Errorf("exit %d, want %d; stderr %q", code, ExitError, stderr.String())
			}
			if !strings.Contains(stderr.String(), "no space left on device") {
				t.Errorf("stderr %q does not say the output was lost", stderr.String())
			}
		})
	}
}

// TestClosedEventsPipe: events piped into a reader that went away (`--events
// - | head -c 100`) do not kill the run with SIGPIPE: it runs to its end,
// exits 1 and says the events were lost.
func TestClosedEventsPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "run", "--headless", "--claude", fakeClaudeScript(t), "--events", "-", "--", "exit", "0")
	cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
	var stderr testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if code := exitCode(t, cmd); code != int(ExitError) {
		t.Errorf("exit %d, want %d; stderr %q", code, ExitError, stderr.String())
	}
	if !strings.Contains(stderr.String(), "events lost") || !strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("stderr %q does not say the events were lost", stderr.String())
	}
}

// TestOutputFiles: what claudewrap writes is private to the user, and a
// symbolic link to another file is refused, not followed and truncated.
func TestOutputFiles(t *testing.T) {
	dir := t.TempDir()
	f, err := createOutput(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(f.Name()); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	victim := filepath.Join(dir, "precious")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(victim, link)
	if _, err := createOutput(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link to a file: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the link's target was changed: %q", b)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	if _, err := createOutput(dangling); err == nil || !strings.Contains(err.Error(), "symbolic link to nothing") {
		t.Errorf("a link to nothing: %v", err)
	}
	if f, err := createOutput("/dev/stdout"); err != nil {
		t.Errorf("/dev/stdout: %v", err)
	} else {
		f.Close()
	}
}
