package peercred

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Peer is the user and the process at the other end of a Unix socket
// (SO_PEERCRED: who connected, as the kernel recorded it).
func Peer(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, 0, err
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// ParentOf is a process's parent, from /proc/PID/stat: the fourth field,
// after the command name in parentheses (which may itself hold spaces and
// parentheses, hence the last ')').
func ParentOf(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: no parent", pid)
	}
	return strconv.Atoi(f[1])
}

// Program is the program process pid runs, as the kernel names it: the
// path of its executable, else its command name; "" when neither can be
// read.
func Program(pid int) string {
	if p, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil {
		return p
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Name is the name process pid was started under (its argv[0]); "" when
// it cannot be read.
func Name(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	name, _, _ := strings.Cut(string(b), "\x00")
	return name
}
