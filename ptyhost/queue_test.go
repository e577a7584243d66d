package ptyhost

import (
	"bytes"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// gatedWriter records what it is given, first waiting until open is closed.
type gatedWriter struct {
	open chan struct{}
	mu   sync.Mutex
	got  bytes.Buffer
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	<-w.open
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.got.Write(p)
}

func (w *gatedWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.got.Bytes())
}

// waitFor polls cond until it holds, failing after a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestOutQueueOrder pushes chunks of random sizes while a reader drains them
// and checks that every byte arrives once, in order.
func TestOutQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	q := newOutQueue(1 << 20)
	w := &gatedWriter{open: make(chan struct{})}
	close(w.open)
	done := make(chan struct{})
	go func() { defer close(done); drainTo(q, w) }()
	src := make([]byte, 16<<20)
	for i := range src {
		src[i] = byte(i * 7 / 5)
	}
	want := src[:0:0]
	for rest := src; len(rest) > 0; {
		p := rest[:min(len(rest), rng.IntN(3*queueChunk/2))]
		rest = rest[len(p):]
		want = append(want, p...)
		q.push(p)
	}
	q.close()
	<-done
	if !bytes.Equal(w.bytes(), want) {
		t.Fatalf("drained %d bytes, want %d, or in another order", len(w.bytes()), len(want))
	}
}

// TestOutQueueBudget checks that push takes bytes at once up to the budget
// while the reader is stuck, waits past it, and goes on when the reader does.
func TestOutQueueBudget(t *testing.T) {
	const budget = 1000
	q := newOutQueue(budget)
	w := &gatedWriter{open: make(chan struct{})}
	done := make(chan struct{})
	go func() { defer close(done); drainTo(q, w) }()

	for range 10 {
		q.push(bytes.Repeat([]byte("a"), budget/10)) // all of the budget, none waiting
	}
	pushed := make(chan struct{})
	go func() { q.push([]byte("b")); close(pushed) }()
	waitFor(t, "push to wait for room", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.waits > 0
	})
	select {
	case <-pushed:
		t.Fatal("push over the budget did not wait")
	default:
	}
	close(w.open)
	<-pushed
	q.push(bytes.Repeat([]byte("c"), 3*budget)) // more than the budget at once
	q.close()
	<-done
	want := bytes.Repeat([]byte("a"), budget)
	want = append(want, 'b')
	want = append(want, bytes.Repeat([]byte("c"), 3*budget)...)
	if !bytes.Equal(w.bytes(), want) {
		t.Fatalf("drained %q", w.bytes())
	}
}

// drainTo drains q into w, never waiting for quiet.
func drainTo(q *outQueue, w io.Writer) {
	q.drain(func(p []byte, _ int) { _, _ = w.Write(p) }, func() bool { return false }, nil)
}

// TestOutQueueWakes: outside a burst, drain is woken when the pusher
// signals (it has nothing more to read for now); during one, once skipAt
// bytes have gathered. Either way it then gets every byte. The queue's
// clock stands still but when the test moves it, so that a slow machine
// cannot end a burst early.
func TestOutQueueWakes(t *testing.T) {
	q := newOutQueue(64 << 20)
	q.holdBursts = true
	clock := &testClock{t: time.Now()}
	q.now = clock.now
	w := &gatedWriter{open: make(chan struct{})}
	close(w.open)
	done := make(chan struct{})
	go func() { defer close(done); drainTo(q, w) }()

	q.push([]byte("small"))
	if !q.wantsSignal() {
		t.Fatal("a push below a chunk left nothing fresh")
	}
	q.signal()
	if q.wantsSignal() {
		t.Error("signal left bytes fresh")
	}
	waitFor(t, "the signalled bytes", func() bool { return string(w.bytes()) == "small" })

	big := bytes.Repeat([]byte("b"), skipAt)
	q.push(big)
	if q.wantsSignal() {
		t.Error("a burst asks for a signal")
	}
	waitFor(t, "skipAt bytes, unsignalled", func() bool { return len(w.bytes()) == len("small")+skipAt })

	// Held back while the burst lasts, taken once it is over.
	q.push(bytes.Repeat([]byte("c"), burstBytes))
	if q.wantsSignal() {
		t.Error("a burst asks for a signal")
	}
	if n := len(w.bytes()); n != len("small")+skipAt {
		t.Errorf("drained %d bytes during the burst, want the %d before it", n, len("small")+skipAt)
	}
	clock.add(3 * rateWindow)
	waitFor(t, "the end of the burst", func() bool { return len(w.bytes()) == len("small")+skipAt+burstBytes })
	q.close()
	<-done
}

// testClock is a clock that moves only when told.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
