package session

import (
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/vt"
)

type nopKeys struct{ n int }

func (k *nopKeys) SendKeys([]byte) error { k.n++; return nil }

// TestKeyTime: askflow learns when a key last went to Claude, claudewrap's
// (through its keyboard) or the person's, whichever came later.
func TestKeyTime(t *testing.T) {
	k := &nopKeys{}
	s := newSession(Config{})
	s.out = k
	s.loop.start() // claudewrap's keys are written by the loop
	t.Cleanup(s.loop.stop)
	if !s.keyTime().IsZero() {
		t.Fatal("keyTime before any key is not zero")
	}
	before := time.Now()
	if err := (keyboard{s: s, undo: true}).SendKeys([]byte("\r")); err != nil || k.n != 1 {
		t.Fatalf("SendKeys: %v, %d keys passed on", err, k.n)
	}
	sent := s.keyTime()
	if sent.Before(before) {
		t.Fatalf("keyTime %v is before the key was sent (%v)", sent, before)
	}
	s.loop.do(func() {
		s.lastInput = sent.Add(time.Second)
	})
	if got := s.keyTime(); !got.Equal(sent.Add(time.Second)) {
		t.Errorf("keyTime %v, want the person's later key %v", got, sent.Add(time.Second))
	}
}

// TestLastAskedOther: askflow learns when another form in flight was last
// asked, never the form it drives.
func TestLastAskedOther(t *testing.T) {
	at := time.Now()
	one, two := &form{asked: at}, &form{asked: at.Add(90 * time.Millisecond)}
	s := newSession(Config{})
	s.forms["toolu_1"] = one
	if got := s.lastAskedOther(one); !got.IsZero() {
		t.Fatalf("lastAskedOther with one form in flight: %v, want zero", got)
	}
	s.forms["toolu_2"] = two
	if got := s.lastAskedOther(one); !got.Equal(two.asked) {
		t.Errorf("lastAskedOther(first) = %v, want the second form's arrival %v", got, two.asked)
	}
	if got := s.lastAskedOther(two); !got.Equal(one.asked) {
		t.Errorf("lastAskedOther(second) = %v, want the first form's arrival %v", got, one.asked)
	}
}

// TestTurnAfterHookAnswer: a form answered through the hook is never drawn,
// so, submitted, it does not keep a form asked before it off the screen; a
// form submitted on the screen does, until Claude records it.
func TestTurnAfterHookAnswer(t *testing.T) {
	long := time.Now().Add(-time.Minute) // past aloneWait: f goes shown or not
	for _, viaHook := range []bool{true, false} {
		f := &form{seq: 1, asked: long, state: queued}
		g := &form{seq: 2, asked: long, state: submitted, viaHook: viaHook}
		s := newSession(Config{})
		s.forms = map[string]*form{"toolu_1": f, "toolu_2": g}
		if got := s.turnOnLoop(f, vt.Snapshot{}); got != viaHook {
			t.Errorf("later form submitted (via hook %t): turnOnLoop = %t, want %t", viaHook, got, viaHook)
		}
	}
}
