package session

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/vt"
)

// A key claudewrap sends takes a moment to show on the screen. A person who
// types in that moment (passthrough) acted on the screen as it was before
// that key: their Down meant the row below the one they saw, not the row
// below the one claudewrap's Down was moving to. So when the person types
// while claudewrap's arrow has not shown its effect yet, the arrow is taken
// back once it shows (the opposite arrow), before the person's keys reach
// Claude: their keys act on the screen they saw.

// inflight is the last key claudewrap sent.
type inflight struct {
	key  []byte
	seq  uint64 // the screen's Seq when it was sent
	at   time.Time
	seen bool // askflow saw its effect
}

// undoWait bounds the wait for an arrow in flight to show before it is
// taken back; inflightWindow is how recent a key must be to be in flight.
const (
	undoWait       = 500 * time.Millisecond
	inflightWindow = 2 * time.Second
)

// stampedKeys sends claudewrap's keys, noting when (see keyTime).
type stampedKeys struct {
	s *session
	k askflow.Keys
}

func (t stampedKeys) SendKeys(p []byte) error {
	t.s.mu.Lock()
	t.s.lastSent = time.Now()
	t.s.mu.Unlock()
	return t.k.SendKeys(p)
}

// keyTime is when a key last went to Claude, claudewrap's or the
// person's: askflow tells from it whether Claude may refuse a new form's
// early Enter (see askflow.Config.LastKey).
func (s *session) keyTime() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastInput.After(s.lastSent) {
		return s.lastInput
	}
	return s.lastSent
}

// gatedKeys sends a drive's, a dialog's or the chat message's keys while
// its context lasts.
// The check and the write are one step under s.gate, which input holds
// while it hands forms over, before the person's keys are passed on: a key
// whose check passed reaches Claude before theirs, acting on the screen
// askflow confirmed, and a key checked after is not sent. Without the gate,
// a person's Down could pass between askflow's last look at ctx and its
// Enter, and the Enter would take the option below the one confirmed.
type gatedKeys struct {
	s   *session
	ctx context.Context
	k   askflow.Keys
}

func (g gatedKeys) SendKeys(p []byte) error {
	g.s.gate.Lock()
	defer g.s.gate.Unlock()
	if err := g.ctx.Err(); err != nil {
		return fmt.Errorf("not sent: %w", err)
	}
	return g.k.SendKeys(p)
}

// trackedKeys sends claudewrap's keys, noting each as in flight.
type trackedKeys struct {
	s *session
	k askflow.Keys
}

func (t trackedKeys) SendKeys(p []byte) error {
	seq := t.s.child.Screen().Snapshot().Seq
	t.s.mu.Lock()
	t.s.lastKey = &inflight{key: slices.Clone(p), seq: seq, at: time.Now()}
	t.s.mu.Unlock()
	return t.k.SendKeys(p)
}

// keySeen notes that askflow saw the last key's effect.
func (s *session) keySeen(seen bool) {
	if !seen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastKey != nil {
		s.lastKey.seen = true
	}
}

// undoInflight takes back claudewrap's arrow that had not shown when the
// person typed. It runs on the person's input, before their keys are
// passed on, so the undo reaches Claude first. A key that cannot be taken
// back (Enter, Esc, text), or an arrow that never shows, is reported.
func (s *session) undoInflight() {
	s.mu.Lock()
	lk := s.lastKey
	s.lastKey = nil
	s.mu.Unlock()
	if lk == nil || lk.seen || time.Since(lk.at) > inflightWindow {
		return
	}
	undo, name, undoName, ok := askflow.Undo(lk.key)
	if !ok {
		msg := "you typed while claudewrap's " + name + " was in flight; it cannot be taken back, so your keys act on the screen after it"
		if string(lk.key) == "\x1b" {
			// Run 50, 2.1.321: the form stayed, nothing recorded.
			msg += " (or, right after an Esc, Claude may read the two as one key, Alt and yours, and the Esc does nothing)"
		}
		s.log.Emit("error", events.Fields{"message": msg})
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, undoWait)
	defer cancel()
	em := s.child.Screen()
	if _, err := em.Wait(ctx, func(sn vt.Snapshot) bool { return sn.Seq != lk.seq }); err != nil {
		s.log.Emit("error", events.Fields{"message": "claudewrap's " + name + " never showed after you typed: not taken back"})
		return
	}
	if err := s.rawKeys.SendKeys(undo); err != nil {
		return
	}
	s.log.Emit("key", events.Fields{"key": undoName, "undo": name,
		"reason": "you typed before claudewrap's " + name + " showed: taken back, so your keys act on the screen you saw"})
}
