package ptyhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/muesli/cancelreader"

	"github.com/claudewrap/claudewrap/internal/ptyfile"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// Config describes the child and the person's terminal.
type Config struct {
	Path string   // absolute path of the program to run
	Args []string // arguments after the program name
	Env  []string // environment; nil means the current one
	Dir  string

	// Headless keeps the child off the person's terminal: it draws only on
	// the emulated screen, which then answers the child's terminal queries.
	Headless bool
	// Cols and Rows size the PTY when headless (or when Stdout is not a
	// terminal). Zero means 120x40.
	Cols, Rows int
	// Version is the child's Claude Code version, when known, for the
	// emulator (screen.Options.Version).
	Version string

	// Stdin and Stdout are the person's terminal in passthrough. Nil means
	// os.Stdin and os.Stdout.
	Stdin  *os.File
	Stdout *os.File

	// Tap, if set, sees every chunk of the child's output, and every key the
	// wrapper sends (see [Tap]).
	Tap Tap
	// OnInput, if set, is called with each chunk the person types, before it
	// is forwarded to the child. A chunk does not end inside a terminal's
	// report if the rest follows within seqWait (see joiner).
	OnInput func(p []byte)
}

// Tap observes traffic through the host, e.g. to record it. Output is
// called from one goroutine, in order, right after the emulator got the
// same bytes (after the person's terminal did: a Tap never slows them);
// Input and Resize come from whichever goroutine sends keys or resizes
// (the wrapper's and the person's at once), so a Tap must be safe for
// concurrent use.
type Tap interface {
	Output(p []byte)
	Input(p []byte)
	Resize(cols, rows int)
}

// ErrStart wraps every failure to start the child, so callers can map it to
// their "could not start" exit status.
var ErrStart = errors.New("could not start")

// Host is a running child in a PTY.
type Host struct {
	cfg    Config
	child  *child
	ptmx   *os.File
	relay  outRelay // reads ptmx where there is one; else readLoop does
	screen vt.Emulator
	term   *terminal // the person's terminal in passthrough, else nil
	// in reads the person's keys; Cancel stops it once the child is gone,
	// so that no key typed after is taken from the shell or a prompt.
	in     cancelreader.CancelReader
	inDone chan struct{} // closed when copyInput has returned
	inRead atomic.Int64  // reads of the person's terminal, for tests

	input   chan []byte   // everything written to the PTY, in order
	outDone chan struct{} // closed when the output copy has drained
	done    chan struct{} // closed when the child has exited
	status  Status
	waitErr error

	sizeMu sync.Mutex // keeps PTY and emulator resizes together
	closed bool       // the PTY is closed; guarded by sizeMu
	stop   func()     // stops signal handling
	// interrupted is set when the wrapper got SIGINT (Ctrl-C at a terminal
	// not in raw mode) and ended the child for it.
	interrupted atomic.Bool
	// skipped counts the bursts the emulator skipped (see feeder).
	skipped atomic.Int32
	// redrawMu keeps Redraws apart: one begun during another would take
	// the narrower size for the one to give back.
	redrawMu sync.Mutex
}

// Interrupted reports whether the child was ended because the wrapper got
// SIGINT.
func (h *Host) Interrupted() bool { return h.interrupted.Load() }

// Status is how the child ended.
type Status struct {
	Code   int            // exit code, or 128+N for signal N
	Signal syscall.Signal // non-zero when the child died of a signal
}

// Start starts the child. In passthrough the person's terminal is put in raw
// mode until [Host.Wait] returns.
func Start(cfg Config) (*Host, error) {
	if cfg.Stdin == nil {
		cfg.Stdin = os.Stdin
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Cols <= 0 || cfg.Rows <= 0 {
		cfg.Cols, cfg.Rows = 120, 40
	}
	if err := checkExecutable(cfg.Path); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	h := &Host{
		cfg:     cfg,
		input:   make(chan []byte, 64),
		outDone: make(chan struct{}),
		done:    make(chan struct{}),
	}
	// Signals are caught from here on, before the size is read, Claude
	// starts, the terminal goes raw and Claude's output reaches it: a
	// SIGTERM in between killed the wrapper with the terminal left raw,
	// and a resize was lost. They are acted on once the host runs.
	sigs := catchSignals()
	cols, rows := cfg.Cols, cfg.Rows
	if !cfg.Headless {
		t, err := openTerminal(cfg.Stdin, cfg.Stdout)
		if err != nil {
			signal.Stop(sigs)
			return nil, err
		}
		h.term = t
		if c, r, ok := t.size(); ok {
			cols, rows = c, r
		}
	}
	var replies io.Writer
	if cfg.Headless {
		replies = writerFunc(h.reply)
	}
	h.screen = newScreen(screen.Options{Cols: cols, Rows: rows, Replies: replies, Version: cfg.Version})

	ptmx, err := h.startOnPTY(cols, rows)
	if err != nil {
		h.restore()
		signal.Stop(sigs)
		return nil, fmt.Errorf("%w: start %s: %w", ErrStart, cfg.Path, err)
	}
	// Nothing of the child may outlive a failed start: kill it, reap it and
	// close its PTY. The terminal is restored before signals are let go.
	fail := func(err error) (*Host, error) {
		_ = h.child.signal(syscall.SIGKILL)
		_, _ = h.child.wait()
		_ = ptmx.Close()
		if h.in != nil {
			_ = h.in.Close()
		}
		h.restore()
		signal.Stop(sigs)
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	if cfg.Tap != nil {
		cfg.Tap.Resize(cols, rows)
	}
	if h.term != nil {
		if err := h.term.makeRaw(); err != nil {
			return fail(err)
		}
		if h.in, err = cancelreader.NewReader(h.term.in); err != nil {
			return fail(fmt.Errorf("read the terminal: %w", err))
		}
	}
	// The relay thread, if any, starts writing to the person at once: only
	// now that the terminal is in raw mode.
	var out *os.File
	if h.term != nil {
		out = h.term.out
	}
	if h.ptmx, h.relay, err = relayPTY(ptmx, out); err != nil {
		return fail(err)
	}
	if h.in != nil {
		h.inDone = make(chan struct{})
		go h.copyInput()
	}
	h.stop = h.handleSignals(sigs)
	go h.writeLoop()
	go h.readLoop()
	go h.wait()
	return h, nil
}

// startOnPTY opens the PTY at cols x rows and starts the child on it
// (startChild, per OS), returning the PTY's master.
func (h *Host) startOnPTY(cols, rows int) (*os.File, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		ptmx.Close()
		return nil, err
	}
	if h.child, err = startChild(h.cfg, tty); err != nil {
		ptmx.Close()
		return nil, err
	}
	return ptmx, nil
}

// Screen is the emulated copy of the child's terminal.
func (h *Host) Screen() vt.Emulator { return h.screen }

// Done is closed when the child has exited and its output has drained.
func (h *Host) Done() <-chan struct{} { return h.done }

// SendKeys writes keys to the child on behalf of the wrapper, after anything
// already queued. It fails once the child has exited.
func (h *Host) SendKeys(p []byte) error {
	select {
	case <-h.done:
		return errors.New("send keys: claude has exited")
	default:
	}
	if h.cfg.Tap != nil {
		h.cfg.Tap.Input(p)
	}
	h.enqueue(p)
	return nil
}

// Resize sets the size of the PTY and the emulator together.
func (h *Host) Resize(cols, rows int) error {
	_, err := h.resize(cols, rows)
	return err
}

// resize is Resize, returning the screen's Seq once the emulator has the
// new size and before the child is told of it: a change after that Seq is
// the child's draw.
func (h *Host) resize(cols, rows int) (uint64, error) {
	h.sizeMu.Lock()
	defer h.sizeMu.Unlock()
	if h.closed {
		return 0, errors.New("resize: claude has exited")
	}
	if c, r := h.screen.Size(); c == cols && r == rows {
		return h.screen.Snapshot().Seq, nil
	}
	h.screen.Resize(cols, rows)
	seq := h.screen.Snapshot().Seq
	if h.cfg.Tap != nil {
		h.cfg.Tap.Resize(cols, rows)
	}
	if err := ptyfile.SetSize(h.ptmx, cols, rows); err != nil {
		return seq, fmt.Errorf("resize pty: %w", err)
	}
	return seq, nil
}

// Signal sends sig to the child. On Linux, SIGKILL kills the child and
// every process it started (see child).
func (h *Host) Signal(sig os.Signal) error { return h.child.signal(sig) }

// Wait waits for the child to exit and its output to drain, restores the
// person's terminal, and reports how the child ended.
func (h *Host) Wait() (Status, error) {
	<-h.done
	return h.status, h.waitErr
}

// reply queues the emulator's answer to a terminal query, unless the queue
// is full: a child that floods queries and never reads the replies loses
// them, as it would at a real terminal, rather than stall its own output
// (the emulator would wait on the writer, which waits on the child, which
// waits for its output to be read).
func (h *Host) reply(p []byte) {
	b := append([]byte(nil), p...)
	select {
	case h.input <- b:
	default:
	}
}

func (h *Host) enqueue(p []byte) {
	b := append([]byte(nil), p...)
	select {
	case h.input <- b:
	case <-h.done:
	}
}

// writeLoop is the only writer to the PTY, so the person's keys, the
// emulator's replies and the wrapper's keys never interleave mid-sequence and
// a slow child never blocks the output copy.
func (h *Host) writeLoop() {
	for {
		select {
		case p := <-h.input:
			if _, err := h.ptmx.Write(p); err != nil {
				return
			}
		case <-h.done:
			return
		}
	}
}

// newScreen makes the emulator; tests replace it.
var newScreen = screen.New

// outRelay is a thread that reads the PTY and writes to the person's
// terminal itself, outside the Go runtime (see cRelay), and hands Go the
// bytes for the emulator.
type outRelay interface {
	// take fills p, waiting for output; it returns 0 and the read's error
	// (nil at EOF) once the PTY is drained and closed, or after stop.
	take(p []byte) (int, error)
	// stop ends take and drops what is read from then on.
	stop()
	close()
}

// readLoop copies the child's output to the person's terminal, then a
// queue to the emulator and the Tap, so that the person never waits on
// them: bursts pass at the PTY's pace unless the queue's budget fills,
// which in passthrough only a Tap slower than the burst makes it do (the
// emulator skips, see feeder). (The Tap — a recording, the bug-report recorder — encodes every
// byte: on the person's path it cost a quarter of passthrough's
// throughput.) Where there is a relay thread, it does the copy to the
// person and readLoop takes what it read.
func (h *Host) readLoop() {
	q := newOutQueue(queueBudget)
	// Headless, the emulator is all there is: it is never held back.
	q.holdBursts = h.term != nil
	emuDone := make(chan struct{})
	go func() {
		defer close(emuDone)
		f := &feeder{h: h}
		q.drain(f.write, func() bool { return f.skipping }, f.resync)
	}()
	defer func() {
		// The queue is drained before outDone, so the tail written just
		// before exit reaches the emulator although the PTY then says EIO.
		q.close()
		<-emuDone
		close(h.outDone)
	}()
	if h.relay != nil {
		h.takeLoop(q)
	} else {
		h.copyLoop(q)
	}
}

// takeLoop queues what the relay thread read. The thread wakes it at a
// pause in the output (or when a piece is full), so the emulator is
// signalled then, as copyLoop does.
func (h *Host) takeLoop(q *outQueue) {
	defer h.relay.close()
	buf := make([]byte, relayCap)
	for {
		n, err := h.relay.take(buf)
		if n == 0 || err != nil {
			return
		}
		q.push(buf[:n])
		if q.wantsSignal() {
			q.signal()
		}
	}
}

// copyLoop reads the PTY and copies to the person's terminal and the queue.
func (h *Host) copyLoop(q *outQueue) {
	buf := make([]byte, 32*1024)
	rc, rcErr := h.ptmx.SyscallConn()
	for {
		// The emulator is woken when the output pauses (nothing more to
		// read now), not for every read: waking it for each 4 KB a PTY
		// read gives took a fifth of a burst's throughput on two cores.
		// During a burst it is not woken at all (see outQueue).
		if q.wantsSignal() && (rcErr != nil || !readable(rc)) {
			q.signal()
		}
		n, err := h.ptmx.Read(buf)
		if n > 0 {
			p := buf[:n]
			if h.term != nil {
				_, _ = h.term.out.Write(p)
			}
			q.push(p)
		}
		if err != nil {
			// Linux reports EIO once the child side is closed and drained.
			return
		}
	}
}

// feeder writes the queue's bytes to the emulator, then the Tap. In
// passthrough, an emulator that has fallen skipAt behind the person's
// screen stops emulating: on two cores, emulating a long burst took a
// third of its throughput from the person. The rest of the burst goes to
// the Tap and to Skip, which blanks the screen (nothing on it is judged)
// but keeps the private modes, as they were and as the skipped bytes
// switch them: the alternate screen the restore depends on among them. Once the burst is over the child is made
// to draw its whole screen again (Redraw) onto the blank one. Claude Code
// redraws from the top-left corner on a size change, erasing every row
// first. Headless there is nobody to wait for, so the emulator never skips.
type feeder struct {
	h        *Host
	skipping bool // only the drain goroutine touches it
}

func (f *feeder) write(p []byte, behind int) {
	if !f.skipping && f.h.term != nil && behind >= skipAt {
		f.skipping = true
		f.h.skipped.Add(1)
	}
	if f.skipping {
		f.h.screen.Skip(p)
	} else {
		_, _ = f.h.screen.Write(p)
	}
	if f.h.cfg.Tap != nil {
		f.h.cfg.Tap.Output(p)
	}
}

// resync ends skipping: the burst is over, and the child is asked to draw
// again (not from the drain goroutine: Redraw waits for the screen).
func (f *feeder) resync() {
	f.skipping = false
	go func() { _ = f.h.Redraw() }()
}

const (
	// queueBudget bounds the output waiting for the emulator. At 64 MiB a
	// burst far beyond any screenful passes without waiting; past it the
	// read loop waits, which keeps memory in check.
	queueBudget = 64 << 20
	// queueChunk is the size of the queue's buffers: output read in small
	// pieces is gathered into them, so the emulator gets fewer, larger writes.
	queueChunk = 64 << 10
	// burstBytes pushed within a rateWindow or two make a burst: 10 MB/s
	// and more. Claude Code draws a few KB a frame, well below it.
	burstBytes = 1 << 20
	rateWindow = 50 * time.Millisecond
	// skipAt is how much output gathers, unread by the emulator, before it
	// is woken during a burst; in passthrough it then skips (see feeder).
	skipAt = 4 << 20
	// relayCap is what a relay thread holds for Go before it waits for
	// room, and what takeLoop takes at once.
	relayCap = 1 << 20
)

var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, queueChunk); return &b }}

// outQueue is a first-in first-out queue of bytes with one writer and one
// reader. push copies into pooled buffers and waits only while more than
// budget bytes are pending.
//
// The reader is not woken for every push. Outside a burst, the pusher
// wakes it (signal) when it has nothing more to push for now. During a
// burst it is woken only once skipAt bytes have gathered, and it looks
// again every rateWindow for the burst's end.
type outQueue struct {
	mu      sync.Mutex
	notFull sync.Cond
	wake    chan struct{} // holds a token for drain: something to take, or the queue closed
	bufs    []*[]byte     // pending, oldest first; only the last may still grow
	pending int           // bytes in bufs and being written to the emulator
	fresh   int           // bytes pushed since drain was last woken
	budget  int
	closed  bool
	waits   int // times push has waited for room, for tests

	// holdBursts keeps the reader asleep during a burst (see above);
	// unset, a burst is read like any output.
	holdBursts bool

	// The bytes pushed in the current rate window, from windowAt, and in
	// the one before.
	window, before int
	windowAt       time.Time
	now            func() time.Time // time.Now; a test's clock
}

func newOutQueue(budget int) *outQueue {
	q := &outQueue{budget: budget, wake: make(chan struct{}, 1), now: time.Now}
	q.notFull.L = &q.mu
	return q
}

// push appends a copy of p, first waiting while the queue is over budget.
// A p larger than the whole budget is taken once the queue is empty.
func (q *outQueue) push(p []byte) {
	q.mu.Lock()
	for q.pending > 0 && q.pending+len(p) > q.budget {
		q.waits++
		q.wakeLocked()
		q.notFull.Wait()
	}
	q.rotateLocked(q.now())
	q.window += len(p)
	wasEmpty := len(q.bufs) == 0
	q.pending += len(p)
	q.fresh += len(p)
	for len(p) > 0 {
		var b *[]byte
		if n := len(q.bufs); n > 0 && len(*q.bufs[n-1]) < cap(*q.bufs[n-1]) {
			b = q.bufs[n-1]
		} else {
			b = chunkPool.Get().(*[]byte)
			q.bufs = append(q.bufs, b)
		}
		k := min(len(p), cap(*b)-len(*b))
		*b = append(*b, p[:k]...)
		p = p[k:]
	}
	// drain looks again when skipAt bytes have gathered, and when bytes
	// come to an empty queue during a burst: it then watches for the
	// burst's end, when no signal may come.
	if q.pending >= skipAt || wasEmpty && q.burstLocked(q.now()) {
		q.wakeLocked()
	}
	q.mu.Unlock()
}

// rotateLocked starts a new rate window when the current one is over.
func (q *outQueue) rotateLocked(now time.Time) {
	if d := now.Sub(q.windowAt); d >= rateWindow {
		q.before = q.window
		if d >= 2*rateWindow {
			q.before = 0
		}
		q.window, q.windowAt = 0, now
	}
}

func (q *outQueue) burstLocked(now time.Time) bool {
	q.rotateLocked(now)
	return q.holdBursts && q.window+q.before >= burstBytes
}

// wantsSignal reports whether bytes were pushed since drain was last woken
// and, no burst going on, the pusher should wake it once it pauses.
func (q *outQueue) wantsSignal() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fresh > 0 && !q.burstLocked(q.now())
}

// signal wakes drain for what was pushed.
func (q *outQueue) signal() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.wakeLocked()
}

func (q *outQueue) wakeLocked() {
	q.fresh = 0
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// close lets drain return once everything pushed has been written.
func (q *outQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.wakeLocked()
	q.mu.Unlock()
}

// drain writes everything pushed to w, in order, with how many bytes are
// pending counting the ones written, until the queue is closed and empty.
// During a burst it holds back until skipAt bytes are pending or the burst
// is over. While skipping holds, it calls burstOver once a burst is over
// and all was written.
func (q *outQueue) drain(w func(p []byte, behind int), skipping func() bool, burstOver func()) {
	var taken []*[]byte
	timer := time.NewTimer(rateWindow)
	timer.Stop()
	defer timer.Stop()
	for {
		q.mu.Lock()
		n, closed := len(q.bufs), q.closed
		burst := q.burstLocked(q.now())
		if n > 0 && (closed || !burst || q.pending >= skipAt) {
			// Take every buffer, so that push starts a new one rather
			// than growing one being written.
			taken, q.bufs = q.bufs, taken[:0]
			behind := q.pending
			q.fresh = 0
			q.mu.Unlock()
			for i, b := range taken {
				n := len(*b)
				w(*b, behind)
				behind -= n
				*b = (*b)[:0]
				chunkPool.Put(b)
				taken[i] = nil
				q.mu.Lock()
				q.pending -= n
				q.mu.Unlock()
				q.notFull.Signal()
			}
			continue
		}
		q.mu.Unlock()
		switch {
		case n == 0 && closed:
			return
		case n == 0 && !burst && skipping():
			burstOver()
		case n == 0 && !skipping():
			<-q.wake
		default:
			// Bytes held back by a burst, or a skip waiting for its
			// end: look again when woken or after a rateWindow.
			timer.Reset(rateWindow)
			select {
			case <-q.wake:
				timer.Stop()
			case <-timer.C:
			}
		}
	}
}

// drainGrace bounds how long output may keep arriving after the child has
// exited (a grandchild may hold the PTY open).
const drainGrace = 2 * time.Second

func (h *Host) wait() {
	st, err := h.child.wait()
	timer := time.NewTimer(drainGrace)
	select {
	case <-h.outDone:
		timer.Stop()
	case <-timer.C:
		// Unblocks the read (the relay's, or ours: the descriptor is then
		// pollable, see ptyfile.Pollable); what was read so far has been delivered.
		if h.relay != nil {
			h.relay.stop()
		} else {
			_ = h.ptmx.SetReadDeadline(time.Now())
		}
		<-h.outDone
	}
	// A write the child will never read (a grandchild holds the PTY) must
	// not keep the write loop. With a relay (Linux) the descriptor is not
	// pollable and has no deadline: such a write ends with the holder,
	// which the supervisor has killed by now (see child).
	_ = h.ptmx.SetWriteDeadline(time.Now())
	h.sizeMu.Lock()
	_ = h.ptmx.Close()
	h.closed = true
	h.sizeMu.Unlock()
	// Nothing of Claude's outlives it (see child).
	h.child.end()
	h.status, h.waitErr = st, err
	if h.stop != nil {
		h.stop()
	}
	h.stopInput()
	h.restore()
	close(h.done)
}

// stopInput stops reading the person's terminal and waits (bounded) for
// the reader to return.
func (h *Host) stopInput() {
	if h.in == nil {
		return
	}
	h.in.Cancel()
	select {
	case <-h.inDone:
	case <-time.After(time.Second):
	}
	_ = h.in.Close()
}

// restore puts the person's terminal back from the state the child, as
// last emulated, left it in (see terminal.restore).
func (h *Host) restore() {
	if h.term == nil {
		return
	}
	var l left
	if h.screen != nil {
		s := h.screen.Snapshot()
		l = left{alt: s.AltScreen, origin: s.Origin, cursor: s.Cursor}
	}
	h.term.restore(l)
}

func (h *Host) copyInput() {
	defer close(h.inDone)
	j := &joiner{wait: seqWait, pass: func(p []byte) {
		select {
		case <-h.done: // a held sequence's timer, after the end
			return
		default:
		}
		if h.cfg.OnInput != nil {
			h.cfg.OnInput(p)
		}
		h.enqueue(p)
	}}
	buf := make([]byte, 4096)
	for {
		n, err := h.in.Read(buf)
		h.inRead.Add(1)
		if n > 0 {
			j.add(buf[:n])
		}
		if err != nil {
			return
		}
		select {
		case <-h.done:
			return
		default:
		}
	}
}

func exitStatus(ps *os.ProcessState, err error) (Status, error) {
	if ps == nil {
		return Status{Code: 1}, fmt.Errorf("wait for claude: %w", err)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		return statusOf(ws), nil
	}
	return Status{Code: ps.ExitCode()}, nil
}

// statusOf is how a process that ended with ws ended.
func statusOf(ws syscall.WaitStatus) Status {
	if ws.Signaled() {
		return Status{Code: 128 + int(ws.Signal()), Signal: ws.Signal()}
	}
	return Status{Code: ws.ExitStatus()}
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// Redraw has the child draw its whole screen again, by making the terminal
// one column narrower and then giving it back its size: full-screen
// programs redraw on every size change. It waits (a second at most) for the
// child to draw at the narrower size before widening again, so that the
// two changes are not taken for one, and then for the redraw at full size
// to land and go quiet: a key sent while the child is still drawing was
// seen to leave Claude Code 2.1.197's screen garbled. A size change by the
// person meanwhile wins.
func (h *Host) Redraw() error {
	h.redrawMu.Lock()
	defer h.redrawMu.Unlock()
	cols, rows := h.screen.Size()
	if cols < 2 {
		return errors.New("redraw: the terminal is too narrow")
	}
	seq, err := h.resize(cols-1, rows)
	if err != nil {
		return fmt.Errorf("redraw: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = h.screen.Wait(ctx, func(s vt.Snapshot) bool { return s.Seq != seq })
	if c, r := h.screen.Size(); c != cols-1 || r != rows {
		return nil
	}
	if err := h.resizeDrawn(cols, rows); err != nil {
		return fmt.Errorf("redraw: %w", err)
	}
	return nil
}

// SetRows makes the terminal rows tall, its width kept, and waits (a
// second at most) for the child's redraw at that size to land and go
// quiet. Headless, askflow has a page taller than the screen drawn whole
// this way (see askflow.Grower); nobody's terminal holds the size.
func (h *Host) SetRows(rows int) error {
	h.redrawMu.Lock()
	defer h.redrawMu.Unlock()
	cols, _ := h.screen.Size()
	if err := h.resizeDrawn(cols, rows); err != nil {
		return fmt.Errorf("set rows: %w", err)
	}
	return nil
}

// resizeDrawn resizes the terminal and waits for the child's redraw: its
// first output, then quiet (no output for redrawQuiet), a second at most.
func (h *Host) resizeDrawn(cols, rows int) error {
	if c, r := h.screen.Size(); c == cols && r == rows {
		return nil
	}
	seq, err := h.resize(cols, rows)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s, err := h.screen.Wait(ctx, func(s vt.Snapshot) bool { return s.Seq != seq })
	for err == nil {
		qctx, qcancel := context.WithTimeout(ctx, redrawQuiet)
		seq = s.Seq
		s, err = h.screen.Wait(qctx, func(s vt.Snapshot) bool { return s.Seq != seq })
		qcancel()
	}
	return nil
}

// redrawQuiet is how long the screen must stay unchanged after a redraw
// before it is taken as drawn.
const redrawQuiet = 60 * time.Millisecond
