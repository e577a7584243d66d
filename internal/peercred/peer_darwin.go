package peercred

import "golang.org/x/sys/unix"

// Peer is the user and the process at the other end of a Unix socket
// (LOCAL_PEERCRED, what getpeereid(3) reads, and LOCAL_PEERPID).
func Peer(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, 0, err
	}
	pid, err = unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		return 0, 0, err
	}
	return int(cred.Uid), pid, nil
}

// ParentOf is a process's parent (sysctl kern.proc.pid).
func ParentOf(pid int) (int, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, err
	}
	return int(kp.Eproc.Ppid), nil
}

// Program is the command name of process pid (sysctl kern.proc.pid's
// p_comm, at most 16 bytes); "" when it cannot be read.
func Program(pid int) string {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return ""
	}
	b := kp.Proc.P_comm[:]
	n := 0
	for n < len(b) && b[n] != 0 {
		n++
	}
	return string(b[:n])
}

// Name is process pid's command name (as Program).
func Name(pid int) string { return Program(pid) }
