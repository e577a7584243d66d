//go:build linux && cgo

package ptyhost

/*
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// cw_relay is the state shared by the relay thread and Go. out_mu is held
// while the thread writes to the person's terminal, so that cw_stop can
// wait for a write in progress; mu guards what follows it.
typedef struct {
	int in, out, note; // the PTY (blocking), the person's terminal or -1, an eventfd
	pthread_mutex_t out_mu;
	int stopped; // atomic
	pthread_mutex_t mu;
	pthread_cond_t room;
	char *buf;
	size_t len, cap, wake_at, read_size;
	int waiting; // Go sleeps on note until bytes come
	int done, err; // the read ended, with errno (0 at EOF)
	int refs;      // the thread and Go
	int64_t last_read; // when bytes were last read; 0 before any
	// Burst detection, the thread's alone: bytes read in the current rate
	// window, from window_at, and in the one before (as outQueue's).
	int hold_bursts;
	size_t window, before, burst_bytes;
	int64_t window_at, window_ns;
} cw_relay;

static int64_t cw_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// cw_burst counts n bytes read at now and reports whether the output is in
// a burst.
static int cw_burst(cw_relay *r, size_t n, int64_t now) {
	if (!r->hold_bursts) return 0;
	int64_t d = now - r->window_at;
	if (d >= r->window_ns) {
		r->before = d >= 2 * r->window_ns ? 0 : r->window;
		r->window = 0;
		r->window_at = now;
	}
	r->window += n;
	return r->window + r->before >= r->burst_bytes;
}

static void cw_release(cw_relay *r) {
	pthread_mutex_lock(&r->mu);
	int last = --r->refs == 0;
	pthread_mutex_unlock(&r->mu);
	if (!last) return;
	free(r->buf);
	free(r);
}

static void cw_notify(cw_relay *r) {
	uint64_t one = 1;
	ssize_t rc;
	do rc = write(r->note, &one, sizeof one); while (rc < 0 && errno == EINTR);
}

static int cw_readable(int fd) {
	struct pollfd p = {fd, POLLIN, 0};
	return poll(&p, 1, 0) > 0;
}

static void *cw_run(void *arg) {
	cw_relay *r = arg;
	char *tmp = malloc(r->read_size);
	for (;;) {
		ssize_t n = tmp ? read(r->in, tmp, r->read_size) : -1;
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0) {
			int e = n == 0 ? 0 : tmp ? errno : ENOMEM;
			pthread_mutex_lock(&r->mu);
			r->done = 1;
			r->err = e;
			r->waiting = 0;
			cw_notify(r);
			pthread_mutex_unlock(&r->mu);
			break;
		}
		pthread_mutex_lock(&r->out_mu);
		if (__atomic_load_n(&r->stopped, __ATOMIC_SEQ_CST)) {
			pthread_mutex_unlock(&r->out_mu);
			break;
		}
		if (r->out >= 0) {
			for (char *p = tmp; p < tmp + n;) {
				ssize_t w = write(r->out, p, tmp + n - p);
				if (w < 0 && errno == EINTR) continue;
				if (w < 0 && errno == EAGAIN) {
					// A terminal another program left non-blocking.
					struct pollfd pw = {r->out, POLLOUT, 0};
					poll(&pw, 1, -1);
					continue;
				}
				if (w <= 0) break; // the person's terminal is gone: the emulator still gets it all
				p += w;
			}
		}
		pthread_mutex_unlock(&r->out_mu);
		pthread_mutex_lock(&r->mu);
		while (r->len > 0 && r->len + n > r->cap && !r->done)
			pthread_cond_wait(&r->room, &r->mu);
		if (r->done) { // Go gave up on the relay
			pthread_mutex_unlock(&r->mu);
			break;
		}
		memcpy(r->buf + r->len, tmp, n);
		r->len += n;
		r->last_read = cw_now();
		int burst = cw_burst(r, n, r->last_read);
		int wake = r->waiting, full = r->len >= r->wake_at;
		pthread_mutex_unlock(&r->mu);
		// Go is woken when the output pauses, or when enough has gathered:
		// not for every read, which would cost a Go thread's wake-up each.
		// During a burst the pause is not looked for: poll(2) on a PTY
		// waits for the kernel's flush work, which costs a tenth of the
		// throughput; Go looks again every window instead (take).
		if (wake && (full || (!burst && !cw_readable(r->in)))) {
			pthread_mutex_lock(&r->mu);
			if (r->waiting) {
				r->waiting = 0;
				cw_notify(r);
			}
			pthread_mutex_unlock(&r->mu);
		}
	}
	free(tmp);
	// The descriptors are the thread's own copies: nobody else uses them.
	close(r->in);
	if (r->out >= 0) close(r->out);
	close(r->note);
	cw_release(r);
	return NULL;
}

static cw_relay *cw_start(int in, int out, int note, size_t cap, size_t wake_at, size_t read_size,
                          int hold_bursts, size_t burst_bytes, int64_t window_ns, int *err) {
	cw_relay *r = calloc(1, sizeof *r);
	if (r) r->buf = malloc(cap);
	if (!r || !r->buf) {
		free(r);
		*err = ENOMEM;
		return NULL;
	}
	r->in = in, r->out = out, r->note = note, r->cap = cap, r->wake_at = wake_at, r->refs = 2;
	r->read_size = read_size;
	r->hold_bursts = hold_bursts, r->burst_bytes = burst_bytes, r->window_ns = window_ns;
	pthread_mutex_init(&r->mu, NULL);
	pthread_mutex_init(&r->out_mu, NULL);
	pthread_cond_init(&r->room, NULL);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	// The thread starts with every signal blocked: they are Go's to take.
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	*err = pthread_create(&t, &attr, cw_run, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (*err) {
		free(r->buf);
		free(r);
		return NULL;
	}
	return r;
}

// cw_take copies up to n pending bytes to dst. With none pending, it
// returns 0 and Go is to wait on note, unless the read has ended (*done).
static size_t cw_take(cw_relay *r, char *dst, size_t n, int *done, int *err, int *burst) {
	pthread_mutex_lock(&r->mu);
	if (n > r->len) n = r->len;
	memcpy(dst, r->buf, n);
	memmove(r->buf, r->buf + n, r->len - n);
	r->len -= n;
	if (n > 0) pthread_cond_signal(&r->room);
	*done = r->done && r->len == 0;
	*err = r->err;
	// While output is recent a burst may start (or be on) without a wake
	// at its end: Go looks again every window. Two windows after the last
	// read, the next read starts with no burst (see cw_burst), so the
	// thread wakes Go at its pause, or at wake_at before a burst begins.
	*burst = r->hold_bursts && r->last_read && cw_now() - r->last_read < 2 * r->window_ns;
	r->waiting = n == 0 && !*done;
	pthread_mutex_unlock(&r->mu);
	return n;
}

// cw_stop makes the thread drop whatever it reads from now on. It waits
// for a write to the person's terminal in progress, a second at most: one
// to a terminal that does not read may still land after it returns.
static void cw_stop(cw_relay *r) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 1;
	int locked = pthread_mutex_timedlock(&r->out_mu, &ts) == 0;
	__atomic_store_n(&r->stopped, 1, __ATOMIC_SEQ_CST);
	if (locked) pthread_mutex_unlock(&r->out_mu);
	pthread_mutex_lock(&r->mu);
	r->done = 1;
	pthread_cond_signal(&r->room);
	pthread_mutex_unlock(&r->mu);
}

// cw_free is Go letting go: a thread still running ends at its next read,
// or at once if it waits for room.
static void cw_free(cw_relay *r) {
	pthread_mutex_lock(&r->mu);
	r->done = 1;
	pthread_cond_signal(&r->room);
	pthread_mutex_unlock(&r->mu);
	cw_release(r);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/claudewrap/claudewrap/internal/ptyfile"
)

// cRelay copies the child's output to the person's terminal from a thread
// of its own, one the Go runtime does not know of: a relay in Go wakes the
// runtime's poller and its monitor (sysmon) for each 4 KB read, and Go has
// no setting for either (BENCH.md: 0.75 of a bare PTY's throughput on two
// cores, against 0.84 for this thread). The thread blocks in read(2) on a
// descriptor the poller never sees, writes to the person, and hands the
// bytes to Go in large pieces, waking it when the output pauses or a piece
// is full, never per read.
type cRelay struct {
	note *os.File // the eventfd the thread signals; Go's poller serves it
	pty  *os.File // Go's descriptor of the PTY, to wake the thread at stop; nil in tests

	mu     sync.Mutex // keeps stop off a relay close has released
	r      *C.cw_relay
	closed bool
}

const (
	// relayWakeAt bytes gathered wake Go: a quarter of relayCap, so that
	// the thread seldom waits for room.
	relayWakeAt = relayCap / 4
	// relayRead is the most one read of the thread takes (a PTY gives 4 KB).
	relayRead = 64 << 10
)

// A Go asleep with no deadline must be woken before a burst can begin
// (see cw_take): the buffer reaches relayWakeAt before it is full or a
// burst's bytes have come. These fail to build otherwise.
var (
	_ [burstBytes - relayWakeAt - 1]struct{}
	_ [relayCap - relayWakeAt - relayRead]struct{}
	_ [burstBytes - relayRead - 1]struct{}
)

// startRelay starts the thread reading in (which it closes) and writing to
// out (a dup of it; -1 for none).
func startRelay(in int, out *os.File, holdBursts bool) (*cRelay, error) {
	outFd := -1
	if out != nil {
		var derr error
		sc, err := out.SyscallConn()
		if err == nil {
			err = sc.Control(func(fd uintptr) { outFd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) })
		}
		if err == nil && derr != nil {
			err = fmt.Errorf("dup the terminal: %w", derr)
		}
		if err != nil {
			closeAll(in)
			return nil, err
		}
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		closeAll(in, outFd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	cfd, err := unix.FcntlInt(uintptr(efd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		closeAll(in, outFd, efd)
		return nil, fmt.Errorf("dup the eventfd: %w", err)
	}
	var cerr C.int
	hold := C.int(0)
	if holdBursts {
		hold = 1
	}
	r := C.cw_start(C.int(in), C.int(outFd), C.int(cfd), relayCap, relayWakeAt, relayRead,
		hold, burstBytes, C.int64_t(rateWindow.Nanoseconds()), &cerr)
	if r == nil {
		closeAll(in, outFd, efd, cfd)
		return nil, fmt.Errorf("start the relay thread: %w", syscall.Errno(cerr))
	}
	return &cRelay{r: r, note: os.NewFile(uintptr(efd), "relay")}, nil
}

func closeAll(fds ...int) {
	for _, fd := range fds {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
}

// take fills p with pending bytes, waiting for some. It returns 0 and the
// read's error (nil at EOF) once the relay has ended and all was taken.
// During a burst the thread does not wake Go at the burst's end, so take
// looks again every rateWindow until the burst is over.
func (c *cRelay) take(p []byte) (int, error) {
	var ev [8]byte
	for {
		var done, errno, burst C.int
		n := C.cw_take(c.r, (*C.char)(unsafe.Pointer(&p[0])), C.size_t(len(p)), &done, &errno, &burst)
		if n > 0 {
			return int(n), nil
		}
		if done != 0 {
			if errno != 0 {
				return 0, syscall.Errno(errno)
			}
			return 0, nil
		}
		var deadline time.Time
		if burst != 0 {
			deadline = time.Now().Add(rateWindow)
		}
		if err := c.note.SetReadDeadline(deadline); err != nil {
			return 0, err
		}
		if _, err := c.note.Read(ev[:]); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, err
		}
	}
}

// stop ends the relay without waiting for the child's side to close:
// take returns, and the thread drops whatever it reads from now on and
// ends at its next read, which stop brings about by writing a byte on the
// child's side (the thread's copy of the PTY would otherwise keep it open,
// so that closing ours would not hang it up). It may come after close.
func (c *cRelay) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	C.cw_stop(c.r)
	var one [8]byte
	one[0] = 1
	_, _ = c.note.Write(one[:])
	if c.pty != nil {
		poke(c.pty)
	}
}

// poke writes a byte to the child's side of the PTY (opened from the
// master: TIOCGPTPEER, Linux 4.13), so that a read of the master returns.
func poke(pty *os.File) {
	sc, err := pty.SyscallConn()
	if err != nil {
		return
	}
	_ = sc.Control(func(fd uintptr) {
		peer, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, unix.TIOCGPTPEER, unix.O_WRONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC)
		if errno != 0 {
			return
		}
		_, _ = unix.Write(int(peer), []byte{'\r'})
		_ = unix.Close(int(peer))
	})
}

// close releases Go's hold on the relay; the thread frees it once its read
// returns.
func (c *cRelay) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	_ = c.note.Close()
	C.cw_free(c.r)
}

// relayPTY readies the PTY master f for a relay thread that reads it and
// writes to out (nil: headless). Go keeps a descriptor in blocking mode
// that the poller never sees, for keys and sizes (its writes have no
// deadline: see Host.wait), and the thread reads its own. Where the thread
// cannot start, readLoop reads the PTY itself, as without cgo. f is closed.
func relayPTY(f *os.File, out *os.File) (*os.File, outRelay, error) {
	p, r, err := startOn(f, out)
	if err != nil {
		p, err := ptyfile.Pollable(f)
		return p, nil, err
	}
	_ = f.Close()
	return p, r, nil
}

func startOn(f *os.File, out *os.File) (*os.File, *cRelay, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("dup the pty: %w", err)
	}
	rfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		_ = unix.Close(fd)
		return nil, nil, fmt.Errorf("dup the pty: %w", err)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		closeAll(fd, rfd)
		return nil, nil, fmt.Errorf("pty blocking: %w", err)
	}
	r, err := startRelay(rfd, out, out != nil)
	if err != nil {
		_ = unix.Close(fd)
		return nil, nil, err
	}
	r.pty = os.NewFile(uintptr(fd), f.Name())
	return r.pty, r, nil
}
