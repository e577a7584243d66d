package hook

import (
	"fmt"
	"os"
)

// Exe is the path Claude's hooks run claudewrap by: when exe is this
// very binary, /proc/PID/exe of this process, which still runs it after
// its file is removed or replaced, so that a command of Claude's cannot
// make the hooks fail (and Claude go on unchecked) by removing the binary.
func Exe(exe string) string {
	if self, err := os.Executable(); err != nil || self != exe {
		return exe
	}
	return fmt.Sprintf("/proc/%d/exe", os.Getpid())
}
