package hook

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// failing fails its first n accepts as a process out of file descriptors
// would.
type failing struct {
	listener
	n atomic.Int32
}

func (f *failing) AcceptUnix() (*net.UnixConn, error) {
	if f.n.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "unix", Err: syscall.EMFILE}
	}
	return f.listener.AcceptUnix()
}

// TestAcceptErrorsDoNotStopTheListener: accept failures (EMFILE) are said
// once and retried with a backoff; hooks sent afterwards still arrive.
// (The listener used to stop for good on its first accept error.)
func TestAcceptErrorsDoNotStopTheListener(t *testing.T) {
	saved := wrapListener
	t.Cleanup(func() { wrapListener = saved })
	wrapListener = func(l listener) listener {
		f := &failing{listener: l}
		f.n.Store(5)
		return f
	}
	s := listen(t)
	m := next(t, s)
	if m.Err == nil || !strings.Contains(m.Err.Error(), "too many open files") {
		t.Fatalf("first message %+v, want the accept error said", m)
	}
	if err := Forward(strings.NewReader(pre), s.Path(), nil); err != nil {
		t.Fatal(err)
	}
	if m := next(t, s); m.Err != nil || m.Payload == nil || m.Payload.ToolUseID != "toolu_1" {
		t.Fatalf("after the errors: %+v, want the hook", m)
	}
}

// TestConnectionsReadAtOnceAreBounded: connections that hold on without
// finishing their message are read maxReading at a time, so a flood of
// them cannot take the memory of maxReading × MaxMessage and more.
func TestConnectionsReadAtOnceAreBounded(t *testing.T) {
	s := listen(t)
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range 3 * maxReading {
		c, err := net.Dial("unix", s.Path())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("{")) // a message begun and never finished
		conns = append(conns, c)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n > maxReading {
			t.Fatalf("%d connections read at once, want at most %d", n, maxReading)
		}
		if n == maxReading || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond) // polling under a deadline
	}
	// The ones waiting are read once others end.
	for _, c := range conns[:maxReading] {
		c.Close()
	}
	for range maxReading {
		if m := next(t, s); m.Err == nil {
			t.Fatalf("an unfinished message was accepted: %+v", m)
		}
	}
}

// TestSocketDirectories: a TMPDIR too long for a socket path falls back to
// /tmp instead of failing with "bind: invalid argument"; directories left by
// killed runs are removed, those of live runs kept.
func TestSocketDirectories(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	s, err := Listen()
	if err != nil {
		t.Fatalf("long TMPDIR: %v", err)
	}
	s.Close()

	base := t.TempDir()
	t.Setenv("TMPDIR", base)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(base, fmt.Sprintf("claudewrap-%d-1", dead.Process.Pid))
	live := filepath.Join(base, fmt.Sprintf("claudewrap-%d-2", os.Getppid()))
	for _, d := range []string{stale, live} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	s = listen(t)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the directory of a dead run is still there (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the directory of a live run was removed: %v", err)
	}
	if !strings.HasPrefix(s.Path(), base) {
		t.Errorf("socket %s not in TMPDIR %s", s.Path(), base)
	}
}

// TestFloodMemoryBounded: a flood of maximal messages from many senders
// at once (here 48 × 4 MiB, all at once) is read maxReading at a time,
// so the heap stays near maxReading × MaxMessage instead of growing with
// the senders (the issue saw 1000 × 4 MB take 4 GB).
func TestFloodMemoryBounded(t *testing.T) {
	s := listen(t)
	go func() {
		for range s.Messages() {
		}
	}()
	msg := append([]byte(`{"hook_event_name":"Stop","pad":"`), bytes.Repeat([]byte("a"), MaxMessage-40)...)
	msg = append(msg, `"}`...)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond): // sampling, not synchronisation
			}
		}
	}()
	var wg sync.WaitGroup
	// 48 senders read at once would hold about 200 MiB before io.ReadAll
	// grows a buffer (445 MiB seen with no bound): well over the limit.
	work := make(chan struct{}, 48)
	for range 48 {
		work <- struct{}{}
	}
	close(work)
	for range 48 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				c, err := net.Dial("unix", s.Path())
				if err != nil {
					t.Error(err)
					return
				}
				c.Write(msg)
				c.Close()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	// Eight readers hold at most about twice their message each while
	// io.ReadAll grows its buffer; the rest is slack for the test's own 4 MiB
	// and the garbage not yet collected.
	limit := uint64(160 << 20)
	t.Logf("peak heap %d MiB (limit %d MiB)", peak.Load()>>20, limit>>20)
	if peak.Load() > limit {
		t.Errorf("peak heap %d MiB over %d MiB", peak.Load()>>20, limit>>20)
	}
}

// slowAccept accepts each connection after delay, as a wrapper starved of
// CPU does.
type slowAccept struct {
	listener
	delay time.Duration
}

func (l slowAccept) AcceptUnix() (*net.UnixConn, error) {
	c, err := l.listener.AcceptUnix()
	time.Sleep(l.delay) // the starved wrapper, not synchronisation
	return c, err
}

// TestRecordWaitsLonger: a PostToolUse, Claude's record of an answer, waits
// past dialTimeout for a wrapper slow to accept it, rather than be lost; a
// Stop still gives up after dialTimeout, so Claude never waits long on it.
func TestRecordWaitsLonger(t *testing.T) {
	saved := wrapListener
	t.Cleanup(func() { wrapListener = saved })
	wrapListener = func(l listener) listener { return slowAccept{l, 2 * dialTimeout} }
	s := listen(t)
	post := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_1",` +
		`"tool_input":{"questions":[{"question":"Q?","header":"H","options":[{"label":"a"},{"label":"b"}]}]},` +
		`"tool_response":{"answers":{"Q?":"a"}}}`
	if err := Forward(strings.NewReader(post), s.Path(), nil); err != nil {
		t.Fatalf("PostToolUse: %v, want it acked after the slow accept", err)
	}
	if m := next(t, s); m.Err != nil || m.Payload == nil || m.Payload.HookEventName != PostToolUse {
		t.Fatalf("got %+v, want the PostToolUse", m)
	}
	start := time.Now()
	if err := Forward(strings.NewReader(`{"session_id":"s","hook_event_name":"Stop"}`), s.Path(), nil); err == nil {
		t.Errorf("Stop acked after %v, want it given up after %v", time.Since(start), dialTimeout)
	}
}
