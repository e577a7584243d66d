package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/transcript"
)

// stopped handles the Stop hook: once Claude's transcript at path confirms
// its turn is over, a pending chat message becomes the next turn;
// otherwise, with --exit-after-turn, Claude is ended.
//
// Claude cannot end its turn while one of its questions waits for an
// answer, so a Stop that comes while a form is open is held until the open
// forms end: dropped if Claude then records one of them (the Stop was not
// Claude's), applied if none is recorded (the form went away unseen, say a
// hook of the person's refused the tool). Ending Claude on a forged Stop
// would lose the answer.
func (s *session) stopped(e stopCame) {
	if s.openOnLoop() != nil {
		s.stopDeferred, s.stopDeferredPath = true, e.path
		return
	}
	s.goWorkOnLoop(func() {
		if over, by := s.turnOver(e.path); over {
			s.endOfTurn(by)
		}
	})
}

// stopCame: a Stop hook came, to be checked against Claude's transcript
// at path (see stopped).
type stopCame struct{ path string }

// stopPath is the transcript a message is checked against: its session's,
// or, before Claude named its session, the message's own.
func (s *session) stopPath(p *hook.Payload) string {
	cur := s.following()
	if path, ok := s.reader.earlier[p.SessionID]; ok && p.SessionID != cur.id {
		return path
	}
	if cur.transcript != "" || cur.id != "" {
		return cur.transcript
	}
	return p.TranscriptPath
}

// stopWait bounds the wait for Claude's transcript to show the end of the
// turn a Stop says is over, and then for its screen to. Claude writes its
// last message as it ends the turn, but on a loaded machine its transcript
// can lag far behind its Stop hook.
const stopWait = 3 * time.Second

// turnOver reports whether Claude's transcript at path shows its turn over
// (its last message the assistant's, calling no tool) at a turn not already
// ended, or, when the transcript does not show it yet, Claude's screen
// shows it waiting at its prompt. A process of Claude's can run the hook
// command and send a Stop while Claude works, or once more after a turn:
// that one is reported and ignored. by says what showed the turn over when
// it was not the transcript.
func (s *session) turnOver(path string) (over bool, by string) {
	var m transcript.Message
	again := false
	if transcript.Await(s.ctx, path, stopWait, func() bool {
		m, _ = transcript.LastMessage(path)
		again = false
		if !m.TurnOver() {
			return false
		}
		s.loop.do(func() {
			// The turn before's end: Claude may not have written this
			// turn's yet.
			again = m.UUID != "" && m.UUID == s.lastTurn
			if !again {
				s.lastTurn = m.UUID
			}
		})
		return !again
	}) {
		return true, ""
	}
	if again {
		s.say("error", events.Fields{"message": "a second Stop for a turn already over: not Claude's, ignored"})
		return false, ""
	}
	if s.ctx.Err() == nil && s.idleOnScreen() {
		return true, fmt.Sprintf("Claude's transcript %s does not show the end of its turn yet "+
			"(its last message %s), but its screen shows it waiting at its prompt: the Stop is taken", path, m)
	}
	why := "its transcript is not known"
	if _, err := os.Stat(path); path != "" && err != nil {
		why = fmt.Sprintf("its transcript %s cannot be read", path)
	} else if path != "" {
		why = fmt.Sprintf("its transcript %s shows it still working: its last message %s", path, m)
	}
	s.say("error", events.Fields{"message": "a Stop that Claude's transcript does not confirm (" + why + "): not Claude's, ignored"})
	return false, ""
}

// idleQuietStop is how long Claude's screen must stay still, its prompt
// showing and no turn running, for a Stop its transcript does not confirm
// yet: a turn running redraws its spinner and timer far more often.
const idleQuietStop = time.Second

// idleOnScreen reports whether Claude's screen shows it waiting at its
// prompt, its turn over, within stopWait. Claude's transcript can lag far
// behind its Stop hook on a loaded machine; the screen does not, and a
// command of Claude's does not draw on it.
func (s *session) idleOnScreen() bool {
	ctx, cancel := context.WithTimeout(s.ctx, stopWait)
	defer cancel()
	return askflow.AwaitIdle(ctx, s.child.Screen(), idleQuietStop) == nil
}

// endOfTurn applies a Stop Claude's transcript, or else its screen,
// confirmed; note says so when it was the screen. A transcript lagging on
// a loaded machine is no error: the turn_end carries the note.
func (s *session) endOfTurn(note string) {
	var (
		msg  string
		from *form
		at   time.Time
	)
	s.loop.do(func() {
		msg, from, at = s.chat, s.chatFrom, s.chatAt
		s.chat, s.chatFrom = "", nil
		s.turns++
		s.lastStopAt = time.Now()
		s.changedOnLoop()
	})
	fields := events.Fields{"session_id": s.following().id}
	if note != "" {
		fields["confirmed_by"], fields["note"] = "screen", note
	}
	s.say("turn_end", fields)
	if msg != "" {
		s.goWork(func() {
			s.checkPermissions(s.ctx, false)
			s.message(msg, from, at)
		})
		return
	}
	// The turn's tool_results are in the transcript now: the permission
	// answers are checked before Claude is ended.
	s.goWork(func() {
		s.checkPermissions(s.ctx, false)
		s.endTurn()
	})
}

// openOnLoop is a form Claude waits on an answer for (no PostToolUse yet)
// and claudewrap has not handed to the person, if any.
func (s *session) openOnLoop() *form {
	for _, f := range s.forms {
		select {
		case <-f.posted:
			continue
		default:
		}
		switch f.state {
		case deciding, queued, driving, submitted:
			return f
		}
	}
	return nil
}

// releaseStopOnLoop applies a held Stop once no form is open any more and
// none was recorded after it (arrive drops it then): f has just left the
// open states for next.
func (s *session) releaseStopOnLoop(next state) {
	// Once Claude has exited and Run waits for the work, no work starts:
	// a form moved then (the person's key, a withdrawn answer) has no turn
	// left to end.
	if s.workDone {
		return
	}
	if s.stopDeferred && (next == done || next == handedOver) && s.openOnLoop() == nil {
		s.stopDeferred = false
		s.stopped(stopCame{s.stopDeferredPath})
	}
}

// idleLimit bounds the wait for Claude to settle after a cancel; idleQuiet
// is how long its screen must not change.
const (
	idleLimit = 5 * time.Second
	idleQuiet = 500 * time.Millisecond
)

// turnInterrupted is called when a form was cancelled: Claude's turn is
// over, and no Stop hook follows. Claude records the cancel in its
// transcript as it redraws its prompt, so with --exit-after-turn it is ended
// only once its prompt has shown and the screen has been still for a moment
// (a few seconds at most): ended sooner, some versions lose that record.
func (s *session) turnInterrupted() {
	if !s.cfg.ExitAfterTurn && !s.interrupted() {
		return
	}
	s.goWork(s.endTurnAtPrompt)
}

func (s *session) turnInterruptedOnLoop() {
	if !s.cfg.ExitAfterTurn && !s.loop.report.Interrupted {
		return
	}
	s.goWorkOnLoop(s.endTurnAtPrompt)
}

// endTurnAtPrompt ends the turn once Claude's prompt shows and the screen
// is still, or after idleLimit.
func (s *session) endTurnAtPrompt() {
	ctx, cancel := context.WithTimeout(s.ctx, idleLimit)
	defer cancel()
	_ = askflow.AwaitPrompt(ctx, s.child.Screen(), idleQuiet)
	s.endTurn()
}

// endTurn ends Claude when the run should end with the turn, or was
// interrupted.
func (s *session) endTurn() {
	if !s.cfg.ExitAfterTurn && !s.interrupted() {
		return
	}
	select {
	case <-s.child.Done():
		return // Claude has ended by itself: its own status stands
	default:
	}
	s.flag(func(r *Report) { r.Ended = true })
	_ = s.child.Signal(syscall.SIGTERM)
}

func (s *session) interrupted() bool { return s.loop.readReport().Interrupted }

// message sends the chat message as the next turn; from is the form whose
// chat it follows, chosen at (its drive queued).
func (s *session) message(text string, from *form, at time.Time) {
	// The prompt is the person's once they type, as a form is: their key
	// since the chat was chosen, or while the message is typed, stops it
	// (see lease). An Enter of claudewrap's that went before their key
	// sent it.
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	var left string
	typed := false
	s.loop.do(func() {
		left = s.said
		if typed = s.lastInput.After(at); !typed {
			s.messageCancel = cancel
		}
	})
	theirs := func() {
		fields := events.Fields{"chat_message": text, "reason": "the person typed"}
		if from != nil {
			fields["tool_use_id"] = from.ID()
		}
		s.say("handed_over", fields)
	}
	if typed {
		theirs()
		return
	}
	defer s.loop.do(func() { s.messageCancel = nil })
	cfg := s.cfg.Flow
	keys := &lastSent{k: s.lease(ctx)}
	cfg.Screen, cfg.Keys = s.child.Screen(), keys
	err := askflow.Message(ctx, cfg, text, left)
	if err != nil && ctx.Err() != nil && s.ctx.Err() == nil && keys.last == "\r" {
		err = nil // their key came after the Enter: the message went
	}
	if err == nil {
		s.loop.do(func() { s.said = text })
	}
	if err != nil && s.ctx.Err() != nil {
		// Claude is gone before the screen confirmed the message. If
		// claudewrap ended it at the Stop of the turn the message started
		// (--exit-after-turn), the message went through; else Claude left
		// on its own, which is not a navigation failure.
		if s.loop.readReport().Ended {
			s.say("submitted", events.Fields{"chat_message": text})
			return
		}
		s.say("error", events.Fields{"message": "chat message: Claude exited before the message was confirmed"})
		return
	}
	if err != nil && ctx.Err() != nil {
		theirs()
		return
	}
	if err != nil {
		fields := events.Fields{"message": "chat message: " + err.Error()}
		var ae *askflow.Error
		if errors.As(err, &ae) {
			fields["tool_use_id"], fields["step"], fields["reason"], fields["keys"] = from.ID(), ae.Step, ae.Reason, ae.Keys
			fields["screen"] = ae.Last.Text()
			why := "chat message: " + err.Error()
			// A message the screen did not confirm is a navigation
			// failure like a form's, with a bug report of its own.
			path, err := s.writeBundle(from, []answer.Decision{{Action: answer.Chat, Text: text}}, ae)
			switch {
			case err != nil:
				fields["bundle_error"] = err.Error()
			case path != "":
				fields["bundle"] = path
				why += "; bug report: " + path
			}
			s.because(ExitNavigation, why)
		}
		s.say("error", fields)
		s.endTurn()
		return
	}
	s.say("submitted", events.Fields{"chat_message": text})
}

// lastSent notes the last keys that went to Claude through it.
type lastSent struct {
	k    askflow.Keys
	last string
}

func (l *lastSent) SendKeys(p []byte) error {
	err := l.k.SendKeys(p)
	if err == nil {
		l.last = string(p)
	}
	return err
}

// turnFailed applies a StopFailure: Claude's turn ended in an error it shows
// instead of working (not logged in, the API refused or cannot be
// reached). Once Claude's transcript shows that error as its last message,
// the turn's end is said with Claude's own words; a run that ends with its
// turn (headless) ends then, with exit 1, since Claude waits at its prompt
// for a fix nobody there can make. A StopFailure the transcript does not
// show, nor Claude's screen waiting at its prompt, is not Claude's, and is
// ignored.
func (s *session) turnFailed(p *hook.Payload) {
	path := s.stopPath(p)
	s.goWork(func() {
		var m transcript.Message
		failed := func() bool {
			m, _ = transcript.LastMessage(path)
			return m.Role == "assistant" && m.Error != ""
		}
		fields := events.Fields{"session_id": p.SessionID}
		if !transcript.Await(s.ctx, path, stopWait, failed) {
			last := m
			// A turn that ended well and was applied is not this error's.
			applied := false
			if last.TurnOver() && last.Error == "" {
				s.loop.do(func() { applied = last.UUID != "" && last.UUID == s.lastTurn })
			}
			// As for a Stop (see turnOver): a transcript that lags on a
			// loaded machine, Claude's screen waiting at its prompt.
			if applied || s.ctx.Err() != nil || !s.idleOnScreen() {
				s.say("error", events.Fields{"message": fmt.Sprintf("a StopFailure (%s) that Claude's transcript does not confirm "+
					"(its last message %s): not Claude's, ignored", p.Error, last)})
				return
			}
			if !failed() {
				m = transcript.Message{Role: "assistant", Error: p.Error, Text: p.LastAssistantMessage}
				fields["confirmed_by"], fields["note"] = "screen", fmt.Sprintf("Claude's transcript %s does not show the error yet "+
					"(its last message %s), but its screen shows it waiting at its prompt: the StopFailure is taken", path, last)
			}
		}
		words := strings.TrimSpace(m.Text)
		if words == "" {
			words = m.Error
		}
		fields["error"], fields["message"] = m.Error, words
		s.say("turn_end", fields)
		if !s.cfg.ExitAfterTurn {
			return
		}
		s.flag(func(r *Report) {
			if r.TurnFailed == "" {
				r.TurnFailed = fmt.Sprintf("Claude's turn ended in an error: %s (%s)", words, m.Error)
			}
		})
		_ = s.child.Signal(syscall.SIGTERM)
	})
}
