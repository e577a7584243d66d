//go:build bench

package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// exitRecord is the kernel's account of one thread that exited.
type exitRecord struct {
	tgid, ppid int // its process, and that process's parent
	comm       string
	exe        [2]uint64 // the executable's device and inode
	cpu        time.Duration
}

// exitWatch listens to the kernel's taskstats (generic netlink, root or
// CAP_NET_ADMIN): one record for every thread that exits on this machine,
// with the user and system time it used. Those times are the scheduler
// tick's samples (CONFIG_TICK_CPU_ACCOUNTING), not exact per thread, and
// even out over many.
type exitWatch struct {
	fd   int
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	recs []exitRecord
	err  error // the first error while reading
}

// watchExits starts listening for exits on every online CPU.
func watchExits() (*exitWatch, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_GENERIC)
	if err != nil {
		return nil, fmt.Errorf("netlink socket: %w", err)
	}
	w := &exitWatch{fd: fd, stop: make(chan struct{}), done: make(chan struct{})}
	fail := func(err error) (*exitWatch, error) {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fail(fmt.Errorf("netlink bind: %w", err))
	}
	// Every exit on the machine comes, not only ours: a large buffer, so
	// that a burst is not dropped.
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 16<<20) != nil {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 16<<20)
	}
	tv := unix.NsecToTimeval(int64(200 * time.Millisecond))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fail(err)
	}
	family, err := genlFamily(fd, unix.TASKSTATS_GENL_NAME)
	if err != nil {
		return fail(err)
	}
	cpus, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return fail(err)
	}
	mask := nlAttr(unix.TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, append([]byte(strings.TrimSpace(string(cpus))), 0))
	if err := genlSend(fd, family, unix.TASKSTATS_CMD_GET, mask); err != nil {
		return fail(fmt.Errorf("taskstats register: %w", err))
	}
	go w.read(family)
	return w, nil
}

// read collects records until stop, then for as long as more keep coming.
func (w *exitWatch) read(family uint16) {
	defer close(w.done)
	buf := make([]byte, 1<<20)
	stopping := false
	for {
		select {
		case <-w.stop:
			stopping = true
		default:
		}
		n, _, err := unix.Recvfrom(w.fd, buf, 0)
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
			if stopping {
				return
			}
			continue
		}
		if err != nil {
			w.fail(fmt.Errorf("taskstats read: %w", err)) // ENOBUFS: records were dropped
			continue
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			w.fail(err)
			continue
		}
		for _, m := range msgs {
			switch {
			case m.Header.Type == unix.NLMSG_ERROR && len(m.Data) >= 4:
				if code := int32(binary.NativeEndian.Uint32(m.Data)); code != 0 {
					w.fail(fmt.Errorf("taskstats: %w", unix.Errno(-code)))
				}
			case m.Header.Type == family && len(m.Data) > unix.GENL_HDRLEN:
				w.take(m.Data[unix.GENL_HDRLEN:])
			}
		}
	}
}

func (w *exitWatch) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// take reads the per-thread record of a TASKSTATS_CMD_NEW message; the
// per-process one that may come with it carries no CPU times.
func (w *exitWatch) take(attrs []byte) {
	forAttrs(attrs, func(typ uint16, v []byte) {
		if typ != unix.TASKSTATS_TYPE_AGGR_PID {
			return
		}
		forAttrs(v, func(typ uint16, v []byte) {
			if typ != unix.TASKSTATS_TYPE_STATS {
				return
			}
			var ts unix.Taskstats
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&ts)), unsafe.Sizeof(ts)), v)
			r := exitRecord{tgid: int(ts.Ac_tgid), ppid: int(ts.Ac_ppid), exe: [2]uint64{ts.Ac_exe_dev, ts.Ac_exe_inode},
				cpu: time.Duration(ts.Ac_utime+ts.Ac_stime) * time.Microsecond}
			if r.tgid == 0 {
				r.tgid = int(ts.Ac_pid)
			}
			var comm []byte
			for _, c := range ts.Ac_comm {
				if c == 0 {
					break
				}
				comm = append(comm, byte(c))
			}
			r.comm = string(comm)
			w.mu.Lock()
			w.recs = append(w.recs, r)
			w.mu.Unlock()
		})
	})
}

// close stops listening once the exits already queued are read, and
// returns every record and the first error.
func (w *exitWatch) close() ([]exitRecord, error) {
	close(w.stop)
	<-w.done
	unix.Close(w.fd)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.recs, w.err
}

// genlFamily asks the generic netlink controller for name's family id.
func genlFamily(fd int, name string) (uint16, error) {
	if err := genlSend(fd, unix.GENL_ID_CTRL, unix.CTRL_CMD_GETFAMILY,
		nlAttr(unix.CTRL_ATTR_FAMILY_NAME, append([]byte(name), 0))); err != nil {
		return 0, err
	}
	buf := make([]byte, 1<<16)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return 0, fmt.Errorf("genl family %s: %w", name, err)
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil {
		return 0, err
	}
	for _, m := range msgs {
		if m.Header.Type == unix.NLMSG_ERROR && len(m.Data) >= 4 {
			return 0, fmt.Errorf("genl family %s: %w", name, unix.Errno(-int32(binary.NativeEndian.Uint32(m.Data))))
		}
		if len(m.Data) <= unix.GENL_HDRLEN {
			continue
		}
		var id uint16
		forAttrs(m.Data[unix.GENL_HDRLEN:], func(typ uint16, v []byte) {
			if typ == unix.CTRL_ATTR_FAMILY_ID && len(v) >= 2 {
				id = binary.NativeEndian.Uint16(v)
			}
		})
		if id != 0 {
			return id, nil
		}
	}
	return 0, fmt.Errorf("genl family %s: not in the reply", name)
}

// genlSend sends one generic netlink request to the kernel.
func genlSend(fd int, family uint16, cmd uint8, attrs []byte) error {
	msg := make([]byte, unix.NLMSG_HDRLEN+unix.GENL_HDRLEN, unix.NLMSG_HDRLEN+unix.GENL_HDRLEN+len(attrs))
	msg = append(msg, attrs...)
	binary.NativeEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.NativeEndian.PutUint16(msg[4:], family)
	binary.NativeEndian.PutUint16(msg[6:], unix.NLM_F_REQUEST)
	binary.NativeEndian.PutUint32(msg[8:], 1) // sequence
	msg[unix.NLMSG_HDRLEN] = cmd
	msg[unix.NLMSG_HDRLEN+1] = 1 // version
	return unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
}

// nlAttr is one netlink attribute, padded to four bytes.
func nlAttr(typ uint16, v []byte) []byte {
	b := make([]byte, unix.NLA_HDRLEN, unix.NLA_HDRLEN+len(v)+3)
	binary.NativeEndian.PutUint16(b[0:], uint16(unix.NLA_HDRLEN+len(v)))
	binary.NativeEndian.PutUint16(b[2:], typ)
	b = append(b, v...)
	for len(b)%unix.NLA_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

// forAttrs calls f with each attribute in b, its type's flag bits cleared.
func forAttrs(b []byte, f func(typ uint16, v []byte)) {
	for len(b) >= unix.NLA_HDRLEN {
		l := int(binary.NativeEndian.Uint16(b[0:]))
		if l < unix.NLA_HDRLEN || l > len(b) {
			return
		}
		f(binary.NativeEndian.Uint16(b[2:])&^(unix.NLA_F_NESTED|unix.NLA_F_NET_BYTEORDER), b[unix.NLA_HDRLEN:l])
		l = (l + unix.NLA_ALIGNTO - 1) &^ (unix.NLA_ALIGNTO - 1)
		if l > len(b) {
			return
		}
		b = b[l:]
	}
}
