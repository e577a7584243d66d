package vt

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func waitCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func hasLine(want string) func(Snapshot) bool {
	return func(s Snapshot) bool {
		for y := range s.Rows {
			if s.Line(y) == want {
				return true
			}
		}
		return false
	}
}

func TestWaitReturnsWhenPredicateHolds(t *testing.T) {
	e := New(Options{Cols: 20, Rows: 3, Quiet: 5 * time.Millisecond})
	go func() {
		for _, c := range []string{"loa", "ding\r\n", "\x1b[H\x1b[2K", "ready"} {
			e.Write([]byte(c))
		}
	}()
	s, err := e.Wait(waitCtx(t, 5*time.Second), hasLine("ready"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Line(0) != "ready" {
		t.Errorf("returned snapshot:\n%s", s)
	}
}

func TestWaitInitialScreenIsSettled(t *testing.T) {
	e := New(Options{Quiet: time.Hour})
	if _, err := e.Wait(waitCtx(t, 5*time.Second), func(Snapshot) bool { return true }); err != nil {
		t.Fatal(err)
	}
}

func TestWaitForEndOfSyncUpdate(t *testing.T) {
	// An hour of quiet means only the end of the update can settle the screen.
	e := New(Options{Cols: 20, Rows: 3, Quiet: time.Hour})
	e.Write([]byte("\x1b[?2026h" + "half")) // begin synchronized update

	_, err := e.Wait(waitCtx(t, 50*time.Millisecond), func(Snapshot) bool { return true })
	var werr *WaitError
	if !errors.As(err, &werr) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait inside a synchronized update = %v, want a *WaitError for the deadline", err)
	}

	done := make(chan error, 1)
	go func() {
		_, err := e.Wait(waitCtx(t, 5*time.Second), hasLine("half done"))
		done <- err
	}()
	e.Write([]byte(" done" + "\x1b[?2026l")) // end synchronized update
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestWaitAfterResize: the frame a resize cuts to the new size is nothing
// the child drew, and is not judged until the child's next drawing ends
// (or the quiet period passes): a page cut narrower once passed for the
// form gone (random forms run 54).
func TestWaitAfterResize(t *testing.T) {
	e := New(Options{Cols: 20, Rows: 3, Quiet: time.Hour})
	e.Write([]byte("\x1b[?2026h" + "a page, drawn" + "\x1b[?2026l"))
	if _, err := e.Wait(waitCtx(t, 5*time.Second), hasLine("a page, drawn")); err != nil {
		t.Fatalf("the drawn page: %v", err)
	}
	e.Resize(8, 3)
	_, err := e.Wait(waitCtx(t, 50*time.Millisecond), func(Snapshot) bool { return true })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait on the frame cut by a resize = %v, want the deadline", err)
	}
	e.Write([]byte("\x1b[?2026h\x1b[H\x1b[2Ka page" + "\x1b[?2026l"))
	if _, err := e.Wait(waitCtx(t, 5*time.Second), hasLine("a page")); err != nil {
		t.Fatalf("the page drawn at the new size: %v", err)
	}
}

func TestWaitTimeoutCarriesLastScreen(t *testing.T) {
	e := New(Options{Cols: 20, Rows: 3, Quiet: time.Millisecond})
	e.Write([]byte("Do you trust\r\nthis folder?"))
	_, err := e.Wait(waitCtx(t, 50*time.Millisecond), hasLine("never"))
	var werr *WaitError
	if !errors.As(err, &werr) {
		t.Fatalf("Wait = %v, want a *WaitError", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(%v, DeadlineExceeded) = false", err)
	}
	if werr.Last.Line(1) != "this folder?" {
		t.Errorf("Last:\n%s", werr.Last)
	}
	if msg := err.Error(); !strings.Contains(msg, "Do you trust\nthis folder?") || !strings.Contains(msg, "cursor 12,1") {
		t.Errorf("Error() lacks the last screen: %q", msg)
	}
}

func TestWaitUnsettledTimeoutCarriesCurrentScreen(t *testing.T) {
	e := New(Options{Cols: 20, Rows: 3, Quiet: time.Hour})
	e.Write([]byte("busy"))
	_, err := e.Wait(waitCtx(t, 20*time.Millisecond), func(Snapshot) bool { return true })
	var werr *WaitError
	if !errors.As(err, &werr) || werr.Last.Line(0) != "busy" {
		t.Fatalf("Wait = %v, want a *WaitError with the current screen", err)
	}
}

// replyRecorder takes a snapshot from inside its Write, as a replies writer
// that shares the emulator could: it must not deadlock.
type replyRecorder struct {
	mu sync.Mutex
	e  Emulator
	n  int
}

func (r *replyRecorder) Write(p []byte) (int, error) {
	r.e.Snapshot()
	r.mu.Lock()
	r.n += len(p)
	r.mu.Unlock()
	return len(p), nil
}

func TestConcurrentWriteAndSnapshot(t *testing.T) {
	rec := &replyRecorder{}
	e := New(Options{Cols: 40, Rows: 10, Replies: rec, Quiet: time.Millisecond})
	rec.e = e
	stream := []byte(benchStream(5))

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := e.Snapshot()
				_ = s.Text()
				e.Size()
			}
		})
	}
	waited := make(chan error, 1)
	go func() {
		_, err := e.Wait(context.Background(), hasLine("the end"))
		waited <- err
	}()
	for i := range 20 {
		for c := range chunksOf(stream, 7+i) {
			e.Write(c)
		}
		e.Write([]byte("\x1b[6n")) // CPR, answered through rec
		if i == 10 {
			e.Resize(50, 12)
		}
	}
	e.Write([]byte("\x1b[Hthe end\x1b[K"))
	if err := <-waited; err != nil {
		t.Error(err)
	}
	close(stop)
	wg.Wait()
	if rec.n == 0 {
		t.Error("no replies written")
	}
}

func chunksOf(b []byte, n int) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			k := min(n, len(b))
			if !yield(b[:k]) {
				return
			}
			b = b[k:]
		}
	}
}
