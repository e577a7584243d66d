package cli

import (
	"os"
	"os/exec"
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
