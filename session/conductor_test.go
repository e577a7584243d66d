package session

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/vt"
)

// These tests are scripts for the conductor: events sent one at a time,
// each followed by the effects it must have had. Each step returns once
// the conductor has handled its event (a key's answer, or sync), so
// nothing is polled and nothing depends on timing.

// stillChild is a Claude whose screen never changes and who takes every
// key; the keys are read once the conductor has answered for them.
type stillChild struct {
	em   vt.Emulator
	keys *[]string
}

func (c stillChild) Screen() vt.Emulator           { return c.em }
func (c stillChild) SendKeys(p []byte) error       { *c.keys = append(*c.keys, string(p)); return nil }
func (c stillChild) Redraw() error                 { return nil }
func (c stillChild) SetRows(int) error             { return nil }
func (c stillChild) Signal(os.Signal) error        { return nil }
func (c stillChild) Done() <-chan struct{}         { return nil }
func (c stillChild) Wait() (ptyhost.Status, error) { return ptyhost.Status{}, nil }

// scriptSession is a session whose conductor runs, with no Claude behind
// it but a still screen; keys lists what reached that screen.
func scriptSession(t *testing.T) (s *session, log *testkit.SyncBuffer, keys *[]string) {
	t.Helper()
	log, keys = &testkit.SyncBuffer{}, &[]string{}
	s = newSession(Config{Log: events.New(log), Host: ptyhost.Config{Headless: true, Cols: 80, Rows: 24}})
	c := stillChild{em: vt.New(vt.Options{Cols: 80, Rows: 24}), keys: keys}
	s.ctx, s.child, s.out = context.Background(), c, c
	s.keys = keyboard{s: s}
	s.loop.start()
	t.Cleanup(s.loop.stop)
	return s, log, keys
}

// scriptForm puts form id in the session in state st; cancel stops its
// drive.
func scriptForm(s *session, id string, st state, cancel context.CancelFunc) *form {
	f := &form{state: st, cancel: cancel, driven: make(chan struct{}), posted: make(chan struct{}),
		remote: make(chan remoteAnswer, 1)}
	f.id.Store(&id)
	s.loop.do(func() {
		s.forms[id] = f
	})
	return f
}

// TestConductorLease: the person's key is handled between two of a
// drive's keys. The key pressed before it reaches Claude; the drive's form
// is then the person's, its lease revoked, and its next key is not sent.
func TestConductorLease(t *testing.T) {
	s, log, keys := scriptSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := scriptForm(s, "t1", driving, cancel)
	k := s.lease(ctx)

	if err := k.SendKeys([]byte("\x1b[B")); err != nil {
		t.Fatalf("Down, leased: %v", err)
	}
	if !slices.Equal(*keys, []string{"\x1b[B"}) {
		t.Fatalf("Claude got %q, want the Down", *keys)
	}

	if _, ok := s.loop.typed(false); !ok {
		t.Fatal("the conductor has ended")
	}
	if st := s.stateOf(f); st != handedOver || ctx.Err() == nil {
		t.Fatalf("after the person's key: form %s, lease %v; want handed over, revoked", st, ctx.Err())
	}
	if !strings.Contains(log.String(), `"event":"handed_over"`) {
		t.Errorf("no hand-over said\n%s", log)
	}

	if err := k.SendKeys([]byte("\r")); err == nil || !strings.Contains(err.Error(), "not sent") {
		t.Errorf("Enter after the hand-over: %v, want not sent", err)
	}
	if !slices.Equal(*keys, []string{"\x1b[B"}) {
		t.Errorf("Claude got %q, want only the Down", *keys)
	}
	// Keys that are not leased (Esc to cancel a form nobody can take) are
	// not the lease's to stop.
	if err := s.keys.SendKeys([]byte("\x1b")); err != nil || len(*keys) != 2 {
		t.Errorf("Esc, not leased: %v, Claude got %q", err, *keys)
	}
}

// TestConductorOutcomes: what came of a form is told to the answers from
// elsewhere waiting on it; a hand-over only to those that began to wait
// before the form's last hand-over, and a cancel the answer did not ask
// for as a failure.
func TestConductorOutcomes(t *testing.T) {
	s, _, _ := scriptSession(t)
	f := scriptForm(s, "t1", handedOver, func() {})
	before := s.await("t1", f, false)
	s.loop.do(func() { s.loop.handed(f) })
	since := s.await("t1", f, true)
	s.loop.send(outcomeSaid{"t1", remote.Outcome{Result: "taken", Message: "handed to the person: navigation failed"}, true})
	s.loop.sync()
	if o := before.last("none"); o.Result != "taken" {
		t.Errorf("the answer waiting before the hand-over: %+v, want taken", o)
	}
	if o := since.last("none"); o.Message != "none" {
		t.Errorf("the answer waiting since the hand-over heard %+v", o)
	}

	again := s.await("t1", f, false)
	s.loop.send(outcomeSaid{"t1", remote.Outcome{Result: "cancelled", Message: "the turn was interrupted"}, false})
	s.loop.sync()
	if o := again.last("none"); o.Result != "failed" || !strings.Contains(o.Message, "cancelled before the answer was recorded") {
		t.Errorf("a cancel the answer did not ask for: %+v, want failed", o)
	}
	if o := since.last("none"); o.Result != "cancelled" {
		t.Errorf("a cancel the answer asked for: %+v, want cancelled", o)
	}
	if o := before.last("none"); o.Result != "failed" {
		t.Errorf("a cancel the answer did not ask for: %+v, want failed", o)
	}

	s.unawait("t1", before)
	s.unawait("t1", since)
	s.unawait("t1", again)
	s.loop.send(outcomeSaid{"t1", remote.Outcome{Result: "verified"}, false})
	s.loop.sync()
	for _, w := range []*waiter{before, since, again} {
		if o := w.last("none"); o.Message != "none" {
			t.Errorf("an answer no longer waiting heard %+v", o)
		}
	}
}

// TestConductorReport: the report's changes are made in the order sent,
// and read after every change sent before the read; of two reasons for
// one outcome the first stays, and a run is blocked once.
func TestConductorReport(t *testing.T) {
	s, _, _ := scriptSession(t)
	s.because(ExitNavigation, "the screen did not confirm a step")
	s.because(ExitNavigation, "a later failure")
	s.flag(func(r *Report) { r.Interrupted = true })
	if !s.interrupted() {
		t.Error("interrupted, but the report does not say so")
	}
	if !s.loop.block("a dialog nobody answers") || s.loop.block("a screen that waits for ever") {
		t.Error("blocked twice, or not at all")
	}
	r := s.loop.readReport()
	if !r.Navigation || r.Why[ExitNavigation] != "the screen did not confirm a step" || r.Blocked != "a dialog nobody answers" {
		t.Errorf("report %+v", r)
	}
	s.loop.stop()
	if r := s.loop.readReport(); r.Blocked != "a dialog nobody answers" {
		t.Errorf("the report left by the loop: %+v", r)
	}
}
