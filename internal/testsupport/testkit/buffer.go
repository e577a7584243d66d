package testkit

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// SyncBuffer collects what a process writes (a person's terminal, a log)
// while the test reads it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitFor waits until the buffer holds want, failing the test with what it
// holds after d.
func (b *SyncBuffer) WaitFor(t testing.TB, want string, d time.Duration) string {
	t.Helper()
	return b.WaitForN(t, want, 1, d)
}

// WaitForN waits until the buffer holds want n times.
func (b *SyncBuffer) WaitForN(t testing.TB, want string, n int, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for strings.Count(b.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %q %d times within %v; saw %q", want, n, d, b.String())
		}
		time.Sleep(5 * time.Millisecond) // polling a buffer under a deadline
	}
	return b.String()
}
