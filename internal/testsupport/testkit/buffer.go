package testkit

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// SyncBuffer collects what a process writes (a person's terminal, a log)
// while the test reads it. Its zero value is ready to use.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// grew is closed and replaced on each write (nil until a waiter asks
	// for one), so that a wait wakes on the write rather than a poll.
	grew chan struct{}
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.grew != nil {
		close(b.grew)
		b.grew = nil
	}
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// next is what the buffer holds and a channel closed at its next write.
func (b *SyncBuffer) next() (string, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.grew == nil {
		b.grew = make(chan struct{})
	}
	return b.buf.String(), b.grew
}

// WaitFor waits until the buffer holds want, failing the test with what it
// holds after d.
func (b *SyncBuffer) WaitFor(t testing.TB, want string, d time.Duration) string {
	t.Helper()
	return b.WaitForN(t, want, 1, d)
}

// WaitForN waits until the buffer holds want n times, waking at each
// write.
func (b *SyncBuffer) WaitForN(t testing.TB, want string, n int, d time.Duration) string {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		s, grew := b.next()
		if strings.Count(s, want) >= n {
			return s
		}
		select {
		case <-grew:
		case <-deadline.C:
			t.Fatalf("never saw %q %d times within %v; saw %q", want, n, d, b.String())
		}
	}
}
