package session

import (
	"context"
	"time"

	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/transcript"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// input sees what the person types into Claude's terminal: any key (not the
// terminal's own reports, nor the pointer moving where that draws nothing on
// a form) hands the forms claudewrap is answering to them.
func (s *session) input(p []byte) {
	if !screen.Typed(p, s.version) {
		return
	}
	esc := screen.EscPressed(p) // Esc alone, not the start of an arrow
	// Handed over by the conductor between two of claudewrap's keys, so
	// that no key of claudewrap's checked before the hand-over goes after
	// the person's (see lease).
	at, ok := s.loop.typed(esc)
	if !ok {
		return // the session is not running
	}
	if !s.cfg.Host.Headless {
		s.undoInflight()
	}
	if esc {
		// The person's input comes from outside the session's goroutines.
		for _, f := range s.formsIn(handedOver) {
			if !s.enterWork() {
				return
			}
			go func() {
				defer s.work.Done()
				s.escaped(f, at)
			}()
		}
	}
}

// escWait bounds the wait for a form the person pressed Esc on to go;
// escLook the second look that it is still gone; postFirst how long its
// PostToolUse, when there is one, may take to follow the form's going.
const (
	escWait   = 3 * time.Second
	escLook   = 100 * time.Millisecond
	postFirst = 200 * time.Millisecond
)

// escaped notes a form the person cancelled with Esc (pressed at at) in
// Claude's own menu: it leaves the screen and Claude records nothing (no
// PostToolUse), but the cancel in its transcript. An Esc that closed
// something else (a preview's notes, vim's insert mode) leaves the form,
// which the person may then answer: when a key of theirs came after the
// Esc, or the transcript is known, the form's going is the cancel only if
// the transcript says so.
func (s *session) escaped(f *form, at time.Time) {
	ctx, cancel := context.WithTimeout(s.ctx, escWait)
	defer cancel()
	em := s.child.Screen()
	gone := func(sn vt.Snapshot) bool { return !askflow.FormShown(sn) }
	for {
		if _, err := em.Wait(ctx, gone); err != nil {
			return // still there: the Esc closed something else (notes, a text row)
		}
		select {
		case <-f.posted:
			return // recorded after all
		case <-time.After(postFirst):
		case <-ctx.Done():
			return
		}
		// Still gone, at a second look: a frame that showed no form for a
		// moment (drawn at the old width as a resize landed) is no cancel.
		look, lookCancel := context.WithTimeout(ctx, escLook)
		_, err := em.Wait(look, gone)
		lookCancel()
		if err == nil {
			break
		}
		// The form is back: watch on, for the Esc may act later than
		// that frame (2.1.266 may draw the form again after an Esc and a
		// resize, then take it away).
	}
	confirm := false
	s.loop.do(func() { confirm = s.following().transcript != "" || s.lastInput.After(at) })
	if confirm {
		watched := func() bool { return f.state == handedOver && !isClosed(f.posted) }
		if r, ok := s.awaitTranscript(f.ID(), watched); !ok || !transcript.Cancelled(r) {
			return // recorded otherwise (a PostToolUse is verify's), or not known to be the cancel
		}
	}
	s.loop.send(escCancelled{f: f, reason: "the person pressed Esc"})
}

// escCancelled: the person's Esc cancelled form f, handed over to them,
// for reason; drive, when not nil, is the drive it was handed over from:
// a drive begun since owns the form (see session.cancelledByEsc).
type escCancelled struct {
	f      *form
	drive  chan struct{}
	reason string
}

// cancelledByEsc makes form f done as the person cancelled it, and says
// so, unless it was recorded, driven again or moved meanwhile: a
// PostToolUse come by now is verify's to report (see recordedCancel).
func (s *session) cancelledByEsc(e escCancelled) {
	f := e.f
	if isClosed(f.posted) || e.drive != nil && f.driven != e.drive || !s.moveOnLoop(f, done, handedOver) {
		return
	}
	s.forgetOnLoop(f)
	s.say("cancelled", events.Fields{"tool_use_id": f.ID(), "by": "person", "reason": e.reason})
	s.turnInterruptedOnLoop()
}

// escRace is how long before a form was asked the person's Esc makes it
// theirs (see start): Claude reads the key at once, but the PreToolUse of
// a tool it had begun comes after it.
const escRace = time.Second

// EscAskedReason is the reason a form is handed over when the person
// pressed Esc just before Claude asked it.
const EscAskedReason = "the person pressed Esc as Claude asked it"

// escAsked follows a form handed to the person whose last key, an Esc,
// came as the form was asked or decided (see start). Their Esc cancels it
// as it shows, or stopped Claude's turn before it showed, when it may
// never show at all: the cancel is the one Claude records in its
// transcript, read for up to escWait, and reported with reason. Anything
// else recorded, or nothing, leaves the form to the person. A drive of
// the form begun since (a remote answer, the answer timeout's fallback:
// f.driven is no longer drive) ends the watch: a cancel then may be
// claudewrap's own Esc.
func (s *session) escAsked(f *form, drive chan struct{}, reason string) {
	watched := func() bool { return f.state == handedOver && f.driven == drive && !isClosed(f.posted) }
	r, ok := s.awaitTranscript(f.ID(), watched)
	if !ok || !transcript.Cancelled(r) {
		return // nothing recorded, or not the cancel: the form stays theirs
	}
	s.loop.send(escCancelled{f: f, drive: drive, reason: reason})
}

// awaitTranscript reads Claude's transcript, for up to escWait, for the
// record of tool use id, while watched (run on the loop) holds (see
// transcript.Await); when Claude ends meanwhile it reads once more, Claude's
// last word being what it wrote.
func (s *session) awaitTranscript(id string, watched func() bool) (transcript.Result, bool) {
	var tail *transcript.Tail // each read goes on where the last one stopped
	var r transcript.Result
	found := false
	read := func() bool {
		path := s.following().transcript
		if path == "" {
			return false
		}
		if tail == nil || tail.Path != path {
			tail = &transcript.Tail{Path: path, ID: id}
		}
		r, found = tail.Result()
		return found
	}
	on := true
	transcript.Await(s.ctx, s.following().transcript, escWait, func() bool {
		if s.loop.do(func() { on = watched() }); !on {
			return true
		}
		return read()
	})
	switch {
	case !on:
		return transcript.Result{}, false
	case !found && s.ctx.Err() != nil:
		read()
	}
	return r, found
}

// handOver notes the person's key (Esc alone or not) and hands them what
// claudewrap is answering: a dialog, the chat message, the forms being
// driven or waiting to be. The conductor calls it, between two of
// claudewrap's keys (see lease), on the loop; it returns when the key came.
func (s *session) handOver(esc bool) time.Time {
	at := time.Now()
	s.lastInput, s.lastEsc = at, esc
	if s.dialogCancel != nil {
		s.dialogCancel() // a dialog being answered is theirs now
		s.dialogCancel = nil
	}
	if s.elicitCancel != nil {
		s.elicitCancel() // and so is an MCP form being answered
		s.elicitCancel = nil
	}
	if s.messageCancel != nil {
		s.messageCancel() // and so is Claude's prompt
		s.messageCancel = nil
	}
	s.takeOverOnLoop()
	return at
}

// takeOverOnLoop hands the forms being answered, or waiting to be, to the
// person; a form still being decided is handed over once decided (see
// start).
func (s *session) takeOverOnLoop() {
	for _, f := range s.formsInOnLoop(queued, driving) {
		if s.moveOnLoop(f, handedOver, queued, driving) {
			s.say("handed_over", events.Fields{"tool_use_id": f.ID(), "reason": "the person typed"})
		}
	}
}

// hookGrace is how long a form may show before its PreToolUse arrives.
const hookGrace = 10 * time.Second

// formWatch reports, for the screen watcher (see watchScreen), a form
// that shows on the screen without its PreToolUse hook: Claude's hooks do
// not reach claudewrap, or claudewrap refused the message (an oversized
// one), so nothing can be answered. Headless, the form is cancelled rather
// than left waiting for ever.
type formWatch struct {
	seen time.Time // when the form on the screen showed; zero: none shows
	said bool      // this form was reported: the next is watched once it goes
}

// step looks at l, the screen at now.
func (w *formWatch) step(s *session, l *look, now time.Time) {
	if !l.form {
		*w = formWatch{}
		return
	}
	if w.seen.IsZero() {
		w.seen = now
	}
	if w.said || now.Sub(w.seen) < s.hookGrace {
		return
	}
	w.said = true
	// A form shows at once after its hook, or, under the hook answer
	// strategy, as late as when the hook stopped waiting for answers.
	window := time.Minute
	if s.cfg.AnswerVia == AnswerViaHook {
		window += hookWait
	}
	var hooked bool
	var refusal string
	s.loop.do(func() { hooked, refusal = !s.lastPre.IsZero() && w.seen.Sub(s.lastPre) < window, s.refusal })
	if hooked {
		return
	}
	why := "Claude's hooks cannot reach claudewrap: its private folder was removed, or the hook command failed"
	if refusal != "" {
		why = "claudewrap refused a hook message: " + refusal
	}
	s.say("error", events.Fields{"message": "a question form is on the screen but no PreToolUse hook arrived (" + why + "); nothing can be answered"})
	if s.cfg.Host.Headless {
		s.because(ExitNavigation, "a question form showed but its PreToolUse hook did not reach claudewrap ("+why+")")
		_ = askflow.Dismiss(s.keys)
		s.say("cancelled", events.Fields{"reason": "no hook"})
		s.turnInterrupted()
	} else {
		s.say("handed_over", events.Fields{"reason": "no hook"})
	}
}

// screenTick is how often the screen watcher looks again at a screen that
// has not changed: the watchdogs' limits run out on a still screen.
const screenTick = 250 * time.Millisecond

// watchScreen is the session's one screen watcher. At each change of
// Claude's screen, and every screenTick while it stays still, it hands the
// screen to the watchdogs in turn: a form with no hook (formWatch), an MCP
// server's form nobody answers (elicitWatch), the dialogs (dialogWatch). It
// ends with the run, or once a watchdog has blocked it.
func (s *session) watchScreen(ctx context.Context) {
	em := s.child.Screen()
	now := time.Now()
	forms, elicits, dialogs := &formWatch{}, newElicitWatch(s), newDialogWatch(s, now)
	var seq uint64 // the last settled screen looked at
	var l *look
	for {
		wctx, cancel := context.WithTimeout(ctx, screenTick)
		snap, err := em.Wait(wctx, func(sn vt.Snapshot) bool { return sn.Seq != seq })
		cancel()
		if ctx.Err() != nil {
			return
		}
		now = time.Now()
		if err == nil {
			seq = snap.Seq
		} else {
			snap = em.Snapshot()
		}
		if l == nil || l.snap.Seq != snap.Seq {
			l = newLook(snap, s.cfg.Host.Headless)
		}
		forms.step(s, l, now)
		if elicits.step(s, l, now) || dialogs.step(ctx, s, l, now) {
			return
		}
	}
}

// look is what the watchdogs read of one screen, parsed once for each
// change of it: a still screen is looked at again with no parse.
type look struct {
	snap     vt.Snapshot
	form     bool // a question form shows
	elicit   screen.Elicitation
	elicitOK bool // an MCP server's form shows (read only headless: see elicitWatch)
	dialog   screen.Dialog
	dialogOK bool
	retry    screen.Retry
	retryOK  bool // Claude retries its API
}

func newLook(snap vt.Snapshot, headless bool) *look {
	l := &look{snap: snap, form: askflow.FormShown(snap)}
	if headless {
		l.elicit, l.elicitOK = screen.ParseElicitation(snap)
	}
	l.dialog, l.dialogOK = screen.ParseDialog(snap)
	l.retry, l.retryOK = screen.ParseRetry(snap)
	return l
}
