package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

// init limits the size of the files this binary writes when it stands
// for claudewrap with CLI_TEST_FILE_SIZE_LIMIT set: writes past the limit
// fail with EFBIG, as on a full disk (Go ignores the SIGXFSZ that comes
// with them).
func init() {
	if v := os.Getenv("CLI_TEST_FILE_SIZE_LIMIT"); v != "" && os.Getenv("CLI_TEST_AS") == "claudewrap" {
		n, _ := strconv.ParseUint(v, 10, 64)
		unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: n, Max: n})
	}
}

// TestLostOutputIsNotSuccess: a run whose event log or recording could not
// be written (a file size limit of 0, as a full disk would) does not exit
// 0, and says why on stderr.
func TestLostOutputIsNotSuccess(t *testing.T) {
	for _, flag := range []string{"--events", "--record"} {
		t.Run(flag, func(t *testing.T) {
			exe, _ := os.Executable()
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(exe, "run", "--headless", "--claude", fakeClaudeScript(t), flag, out, "--", "exit", "0")
			cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap", "CLI_TEST_FILE_SIZE_LIMIT=0")
			var stderr testkit.SyncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			if code := exitCode(t, cmd); code != int(ExitError) {
				t.Errorf("exit %d, want %d; stderr %q", code, ExitError, stderr.String())
			}
			if !strings.Contains(stderr.String(), "file too large") {
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
