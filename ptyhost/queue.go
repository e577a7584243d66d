package ptyhost

import (
	"sync"
	"time"
)

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
