package session

import (
	"context"
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

// keyTime is when a key last went to Claude, claudewrap's or the
// person's: askflow tells from it whether Claude may refuse a new form's
// early Enter (see askflow.Config.LastKey).
func (s *session) keyTime() (t time.Time) {
	s.loop.do(func() {
		t = s.lastSent
		if s.lastInput.After(s.lastSent) {
			t = s.lastInput
		}
	})
	return t
}

// keyboard is claudewrap's one way to Claude's keys. Each key is stamped
// (see keyTime) and noted as in flight (see undoInflight), unless it is
// the key that takes another back. A leased keyboard (see lease) sends
// only while its context lasts.
type keyboard struct {
	s   *session
	ctx context.Context // the lease's; nil: not leased
	// undo: this key takes claudewrap's last one back, and is not in
	// flight itself.
	undo bool
}

// lease is the keyboard of a drive, a dialog's answer or the chat message,
// for as long as ctx lasts. Each of its keys goes to the conductor, which
// checks ctx and writes the key as one step; the person's key is an event
// it handles between two such steps, handing forms over before their keys
// are passed on (see input). So a key whose check passed reaches Claude
// before theirs, acting on the screen askflow confirmed, and a key checked
// after is not sent. Without it, a person's Down could pass between
// askflow's last look and its Enter, and the Enter would take the option
// below the one confirmed.
func (s *session) lease(ctx context.Context) keyboard { return keyboard{s: s, ctx: ctx} }

func (k keyboard) SendKeys(p []byte) error { return k.s.loop.press(k, p) }

// send stamps p (see keyTime), notes it in flight unless it takes a key
// back, and writes it to Claude. It runs on the loop (see press).
func (k keyboard) send(p []byte) error {
	s := k.s
	var seq uint64
	if !k.undo {
		seq = s.child.Screen().Snapshot().Seq
	}
	s.lastSent = time.Now()
	if !k.undo {
		s.lastKey = &inflight{key: slices.Clone(p), seq: seq, at: s.lastSent}
	}
	return s.out.SendKeys(p)
}

// keySeen notes that askflow saw the last key's effect.
func (s *session) keySeen(seen bool) {
	if !seen {
		return
	}
	s.loop.do(func() {
		if s.lastKey != nil {
			s.lastKey.seen = true
		}
	})
}

// undoInflight takes back claudewrap's arrow that had not shown when the
// person typed. It runs on the person's input, before their keys are
// passed on, so the undo reaches Claude first. A key that cannot be taken
// back (Enter, Esc, text), or an arrow that never shows, is reported.
func (s *session) undoInflight() {
	var lk *inflight
	s.loop.do(func() { lk, s.lastKey = s.lastKey, nil })
	if lk == nil || lk.seen || time.Since(lk.at) > inflightWindow {
		return
	}
	undo, name, undoName, ok := askflow.Undo(lk.key)
	if !ok {
		msg := "you typed while claudewrap's " + name + " was in flight; it cannot be taken back, so your keys act on the screen after it"
		if string(lk.key) == "\x1b" {
			// Claude may take an Esc and the next key as Alt and that key.
			msg += " (or, right after an Esc, Claude may read the two as one key, Alt and yours, and the Esc does nothing)"
		}
		s.say("error", events.Fields{"message": msg})
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, undoWait)
	defer cancel()
	em := s.child.Screen()
	if _, err := em.Wait(ctx, func(sn vt.Snapshot) bool { return sn.Seq != lk.seq }); err != nil {
		s.say("error", events.Fields{"message": "claudewrap's " + name + " never showed after you typed: not taken back"})
		return
	}
	if err := (keyboard{s: s, undo: true}).SendKeys(undo); err != nil {
		return
	}
	s.say("key", events.Fields{"key": undoName, "undo": name,
		"reason": "you typed before claudewrap's " + name + " showed: taken back, so your keys act on the screen you saw"})
}
