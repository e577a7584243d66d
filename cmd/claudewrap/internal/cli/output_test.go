package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

// runWithOutput runs claudewrap (this binary) headless on the fake claude,
// which exits at once, with flag naming path; it returns the exit status
// and stderr. exitCode's deadline stands for a run that would hang.
func runWithOutput(t *testing.T, flag, path string) (int, string) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "run", "--headless", "--quiet", "--claude", fakeClaudeScript(t), flag, path, "--", "exit", "0")
	cmd.Env = append(os.Environ(), "CLI_TEST_AS=claudewrap")
	var stderr testkit.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	code := exitCode(t, cmd)
	return code, stderr.String()
}

// TestOutputFilesRefused: --events and --record write only a regular file
// of the person's own with one name. Another user's 0666 file planted in a
// sticky directory, a FIFO (read or not), a hard link and a symbolic link
// are refused at start, exit 2, with a one-line reason; nothing reaches
// them, and nothing waits on a FIFO.
func TestOutputFilesRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, path string) (victim string)
		at    string // the file named instead, when not planted
		want  string
	}{
		{"another user's 0666 file", func(t *testing.T, path string) string {
			os.WriteFile(path, []byte("theirs"), 0o666)
			os.Chmod(path, 0o666)
			testkit.GiveAway(t, path)
			return path
		}, "", "owned by uid 65534, not by you"},
		{"a FIFO no one reads", func(t *testing.T, path string) string {
			testkit.FIFO(t, path)
			return ""
		}, "", "not a regular file (a FIFO)"},
		{"a hard link", func(t *testing.T, path string) string {
			victim := path + ".victim"
			os.WriteFile(victim, []byte("keep me"), 0o600)
			if err := os.Link(victim, path); err != nil {
				t.Fatal(err)
			}
			return victim
		}, "", "2 names (hard links)"},
		{"a symbolic link", func(t *testing.T, path string) string {
			victim := path + ".victim"
			os.WriteFile(victim, []byte("keep me"), 0o600)
			if err := os.Symlink(victim, path); err != nil {
				t.Fatal(err)
			}
			return victim
		}, "", "a symbolic link"},
		{"a device", nil, os.DevNull, "not a regular file (a character device)"},
	} {
		for _, flag := range []string{"--events", "--record"} {
			t.Run(tc.name+"/"+flag, func(t *testing.T) {
				path, victim := tc.at, ""
				if tc.plant != nil {
					path = filepath.Join(testkit.StickyDir(t), "out")
					victim = tc.plant(t, path)
				}
				code, stderr := runWithOutput(t, flag, path)
				if code != int(ExitUsage) {
					t.Errorf("exit %d, want %d", code, ExitUsage)
				}
				if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 ||
					!strings.HasPrefix(lines[0], "claudewrap: "+flag+": ") || !strings.Contains(lines[0], tc.want) {
					t.Errorf("stderr %q, want one line on %s saying %q", stderr, flag, tc.want)
				}
				if victim != "" {
					if b, _ := os.ReadFile(victim); string(b) != "theirs" && string(b) != "keep me" {
						t.Errorf("%s was written: %q", victim, b)
					}
				}
			})
		}
	}
}

// TestOutputFIFOReaderGetsNothing: a FIFO someone reads is refused too, and
// its reader gets nothing of the run.
func TestOutputFIFOReaderGetsNothing(t *testing.T) {
	for _, flag := range []string{"--events", "--record"} {
		t.Run(flag, func(t *testing.T) {
			path := filepath.Join(testkit.StickyDir(t), "out")
			read := testkit.FIFOReader(t, path)
			code, stderr := runWithOutput(t, flag, path)
			if code != int(ExitUsage) || !strings.Contains(stderr, "not a regular file (a FIFO)") {
				t.Errorf("exit %d, stderr %q; want %d and the FIFO refused", code, stderr, ExitUsage)
			}
			if got := read(); got != "" {
				t.Errorf("the FIFO's reader got %q", got)
			}
		})
	}
}

// TestOutputFileMadePrivate: a file of the person's own that others could
// read is written, and left 0600.
func TestOutputFileMadePrivate(t *testing.T) {
	for _, flag := range []string{"--events", "--record"} {
		t.Run(flag, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out")
			os.WriteFile(path, []byte("old"), 0o644)
			os.Chmod(path, 0o644)
			if code, stderr := runWithOutput(t, flag, path); code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			fi, err := os.Stat(path)
			if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() == 0 {
				t.Errorf("%v, %v: want a written file, 0600", fi.Mode(), err)
			}
		})
	}
}
