package session

import (
	"testing"
	"time"
)

type nopKeys struct{ n int }

func (k *nopKeys) SendKeys([]byte) error { k.n++; return nil }

// TestKeyTime: askflow learns when a key last went to Claude, claudewrap's
// (through stampedKeys) or the person's, whichever came later.
func TestKeyTime(t *testing.T) {
	s := &session{}
	if !s.keyTime().IsZero() {
		t.Fatal("keyTime before any key is not zero")
	}
	k := &nopKeys{}
	before := time.Now()
	if err := (stampedKeys{s, k}).SendKeys([]byte("\r")); err != nil || k.n != 1 {
		t.Fatalf("SendKeys: %v, %d keys passed on", err, k.n)
	}
	sent := s.keyTime()
	if sent.Before(before) {
		t.Fatalf("keyTime %v is before the key was sent (%v)", sent, before)
	}
	s.mu.Lock()
	s.lastInput = sent.Add(time.Second)
	s.mu.Unlock()
	if got := s.keyTime(); !got.Equal(sent.Add(time.Second)) {
		t.Errorf("keyTime %v, want the person's later key %v", got, sent.Add(time.Second))
	}
}
