package claudetest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// KillStrays kills every process whose environment has HOME=home: what a
// Claude Code run in that home left behind. ← at Claude's prompt while it
// works moves the conversation to the background, and Claude starts a
// daemon for it (claude daemon run, bg-pty-host, the forked session) that
// outlives Claude by design. claudewrap ends it with the run on Linux (see
// ptyhost); this is the net for what a run leaves all the same, which
// would hold a few hundred MB each and write into the home as the test
// removes it. It returns how many it killed; without /proc (macOS) it finds
// none.
func KillStrays(home string) int {
	n := 0
	// Again until a pass finds none: the daemon may start a process as
	// the one before is killed.
	for pass := 0; pass < 5; pass++ {
		k := killPass(home)
		n += k
		if k == 0 {
			break
		}
	}
	return n
}

func killPass(home string) int {
	want := []byte("HOME=" + home + "\x00")
	self := os.Getpid()
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	n := 0
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
