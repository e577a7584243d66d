package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"syscall"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/bundle"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/vt"
)

// start queues f to be answered with the decisions, unless this is a dry
// run; from is the state it starts from (deciding, or handedOver when the
// person did not answer in time).
func (s *session) start(f *form, decisions []rules.Decision, from state) bool {
	if s.cfg.DryRun {
		if from == handedOver || s.move(f, handedOver, deciding) {
			s.say("handed_over", events.Fields{"tool_use_id": f.ID(), "reason": "dry run: nothing pressed"})
		}
		s.endDryRun(from == deciding)
		return false
	}
	e := decided{f, decisions, from, make(chan bool, 1)}
	started, _ := request(s.loop, e, e.started)
	return started
}

// decided: form f's answers, decisions, are to be given on the screen; it
// starts from state from. started gets whether its drive began (see
// session.queue).
type decided struct {
	f         *form
	decisions []rules.Decision
	from      state
	started   chan bool
}

// queue queues form f to be driven, in one step on the loop, unless it was
// recorded or moved meanwhile, or the person's key makes it theirs.
func (s *session) queue(e decided) {
	e.started <- s.queueOnLoop(e.f, e.decisions, e.from)
}

func (s *session) queueOnLoop(f *form, decisions []rules.Decision, from state) bool {
	if isClosed(f.posted) {
		return false // checkRecord reports it
	}
	// The person typed while this form was being decided: it is theirs, as
	// are the forms being answered then (takeOver). So is a form asked just
	// after their Esc, which is still on its way through Claude: it cancels
	// the form as it shows, or stopped Claude's turn before the form showed;
	// a key of claudewrap's would then act on whatever is on the screen
	// instead.
	typed := from == deciding && s.lastInput.After(f.asked)
	escNear := from == deciding && s.lastEsc && s.lastInput.After(f.asked.Add(-escRace))
	if typed || escNear {
		esc, drive := s.lastEsc, f.driven
		if !s.moveOnLoop(f, handedOver, deciding) {
			return false
		}
		reason, cancelled := "the person typed", "the person pressed Esc"
		if !typed {
			reason, cancelled, f.escAt = EscAskedReason, EscAskedReason, time.Now()
		}
		s.say("handed_over", events.Fields{"tool_use_id": f.ID(), "reason": reason})
		if esc {
			s.goWorkOnLoop(func() { s.escAsked(f, drive, cancelled) })
		}
		if s.cfg.AnswerTimeout > 0 {
			// Their key may have gone to another form: this one is
			// answered by the rules once they stop typing.
			s.goWorkOnLoop(func() { s.passthroughTimeout(f, decisions, nil) })
		}
		return false
	}
	if !s.moveOnLoop(f, queued, from) {
		return false // recorded or taken over meanwhile
	}
	var flow []answer.Decision
	chat := ""
	for _, d := range decisions {
		flow = append(flow, d.Decision)
		if d.Action == answer.Chat && d.Text != "" && chat == "" {
			chat = d.Text
		}
	}
	f.want = expectations(f, decisions)
	// Each drive has a channel of its own: a form handed over when its
	// drive failed may be driven again (a remote answer, the answer
	// timeout) before the first drive has closed its channel.
	f.driven = make(chan struct{})
	driven := f.driven
	// Claude's turn goes on after "Chat about this" and may end before
	// askflow returns: the message must be pending by then.
	if chat != "" {
		s.chat, s.chatFrom, s.chatAt = chat, f, time.Now()
	}
	// Its sender, work Run waits for, waits for the reply: Run's wait has
	// not ended.
	s.goWork(func() { s.drive(f, flow, driven) })
	return true
}

// partlyRuled says which of f's questions the rules answered on the
// screen (the first n) and which is the person's.
func partlyRuled(f *form, n int) string {
	which := fmt.Sprintf("question 1 (%q)", f.questions[0].Header)
	if n > 1 {
		which = fmt.Sprintf("questions 1 to %d", n)
	}
	return fmt.Sprintf("the rules answered %s on the screen; question %d (%q) and the rest are yours", which, n+1, f.questions[n].Header)
}

// maxYields bounds how often a form gives the screen up to another form
// asked with it (see askflow.Config.Elsewhere) before it is driven as any
// form is, failing if the screen does not confirm it.
const maxYields = 3

// drive has askflow answer f once it is its turn (see turnOnLoop), and
// reports how it went; it closes driven, f's channel for this drive, when
// done. Claude shows one form at a time: two drivers on one
// form would push each other's cursor, and a form like the one before it
// could be taken for it. When another form asked with f shows instead of
// it before anything but a move was pressed, f waits its turn again.
func (s *session) drive(f *form, ds []answer.Decision, driven chan struct{}) {
	defer close(driven)
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()

	cfg := s.cfg.Flow
	cfg.Screen, cfg.Keys, cfg.Decisions = redrawable{s.child.Screen(), s.child}, s.lease(ctx), ds
	if s.cfg.Host.Headless {
		cfg.Screen = growable{redrawable{s.child.Screen(), s.child}}
	} else {
		// A person on Claude's screen may take the form over at any key.
		// An arrow of claudewrap's in flight then is taken back
		// (undoInflight); an option's number, which commits at once and
		// would be the first key, cannot be: the form is walked.
		cfg.Walk = true
	}
	cfg.Questions, cfg.Recorded, cfg.LastKey = f.questions, f.posted, s.keyTime
	cfg.LastAsked = func() time.Time { return s.lastAskedOther(f) }
	cfg.OnKey = func(k askflow.KeyEvent) {
		s.keySeen(k.Seen)
		fields := events.Fields{"tool_use_id": f.ID(), "question": k.Question, "key": k.Key,
			"focus_before": k.Before, "focus_after": k.After}
		if !k.Seen {
			fields["seen"] = false
		}
		s.say("key", fields)
	}
	var (
		res askflow.Result
		err error
	)
	for yields := 0; ; yields++ {
		if !s.awaitTurn(ctx, f, cancel) {
			s.dropChat(f) // never driven to its "Chat about this"
			return
		}
		if yields < maxYields {
			cfg.Elsewhere = func(snap vt.Snapshot) bool { return s.showsOther(f, snap) }
		} else {
			cfg.Elsewhere = nil
		}
		res, err = s.flow(ctx, cfg)
		if !errors.Is(err, askflow.ErrElsewhere) {
			break
		}
		if !s.move(f, queued, driving) {
			s.dropChat(f)
			return // taken over or recorded meanwhile: nothing failed
		}
	}
	e := driveEnded{f: f, ds: ds, res: res, err: err}
	if err != nil {
		e.fields = s.failure(f, ds, err)
		e.showing = askflow.Showing(s.child.Screen().Snapshot(), f.questions)
	}
	s.loop.send(e)
}

// driveEnded: askflow is done with form f, answered with ds; res says how,
// or err why it stopped, with the error event's fields (see failure) and
// whether the form was still on the screen then (see session.endDrive).
type driveEnded struct {
	f       *form
	ds      []answer.Decision
	res     askflow.Result
	err     error
	fields  events.Fields
	showing bool
}

// endDrive makes the move of form f that how its drive ended calls for,
// and says it, in one step on the loop: Claude's record, verified on the
// loop too, is met only after.
func (s *session) endDrive(e driveEnded) {
	f, res := e.f, e.res
	if e.err != nil {
		s.driveFailed(e)
		return
	}
	switch res.Outcome {
	case askflow.Submitted:
		if s.moveOnLoop(f, submitted, driving) {
			s.say("submitted", events.Fields{"tool_use_id": f.ID(), "keys": res.Keys})
			s.awaitRecord(f, e.ds)
		}
	case askflow.Cancelled:
		s.moveOnLoop(f, done, driving)
		s.forgetOnLoop(f) // no PostToolUse follows
		fields := events.Fields{"tool_use_id": f.ID(), "keys": res.Keys}
		if s.loop.report.Interrupted {
			fields["reason"] = "interrupted by the person (Ctrl-C)"
		}
		s.say("cancelled", fields)
		s.dropQueuedOnLoop("the turn was interrupted")
		// Esc ends Claude's turn without a Stop hook.
		s.turnInterruptedOnLoop()
	case askflow.Stopped:
		// The rules' questions are answered; the first they leave open is
		// on the screen, untouched: the form is the person's from here.
		if s.moveOnLoop(f, handedOver, driving) {
			s.say("handed_over", events.Fields{"tool_use_id": f.ID(), "keys": res.Keys,
				"reason": partlyRuled(f, len(e.ds)), "ruled": len(e.ds)})
			s.goWorkOnLoop(func() { s.notify(f) })
		}
	case askflow.Chatted:
		if !s.moveOnLoop(f, done, driving) {
			// Handed over as "Chat about this" went: Claude's prompt,
			// where the message would go, is the person's.
			s.dropChatOnLoop(f)
		}
		s.forgetOnLoop(f) // no PostToolUse follows
		s.say("submitted", events.Fields{"tool_use_id": f.ID(), "keys": res.Keys, "chat": true})
	}
}

// awaitTurn waits until f, queued, may be driven (see turnOnLoop), and
// moves it to driving, cancel being what stops its driver. It reports
// false when f left the queue meanwhile (taken over, recorded or dropped)
// or the session ended.
func (s *session) awaitTurn(ctx context.Context, f *form, cancel context.CancelFunc) bool {
	var gone, turn bool
	try := func(snap vt.Snapshot) bool {
		s.loop.do(func() {
			switch {
			case f.state != queued:
				gone = true
			case s.turnOnLoop(f, snap):
				s.moveOnLoop(f, driving, queued)
				f.cancel = cancel
				turn = true
			}
		})
		return gone || turn
	}
	// turnOnLoop's clocks: f may go aloneWait, or turnWait, after it was
	// asked; after both, only the screen and the forms decide.
	for _, at := range []time.Time{f.asked.Add(aloneWait), f.asked.Add(turnWait), {}} {
		if !at.IsZero() && !time.Now().Before(at) {
			continue
		}
		lctx, lcancel := ctx, context.CancelFunc(func() {})
		if !at.IsZero() {
			lctx, lcancel = context.WithDeadline(ctx, at)
		}
		s.lookUntil(lctx, try)
		lcancel()
		if gone || turn || ctx.Err() != nil {
			break
		}
	}
	return turn
}

// lookUntil calls try on the screen until it reports true or ctx ends:
// on each new screen as it settles, and on the screen as it is when the
// forms or the turn change (s.changed).
func (s *session) lookUntil(ctx context.Context, try func(vt.Snapshot) bool) {
	for !try(s.child.Screen().Snapshot()) {
		var changed chan struct{}
		s.loop.do(func() { changed = s.changed })
		wctx, wcancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-changed:
				wcancel()
			case <-wctx.Done():
			}
		}()
		_, err := s.child.Screen().Wait(wctx, try)
		wcancel()
		if err == nil || ctx.Err() != nil {
			return
		}
	}
}

// dropQueued gives up the forms waiting to be driven: Esc interrupted
// Claude's turn, and with it the tool calls that would have shown them.
func (s *session) dropQueued(reason string) {
	s.loop.do(func() { s.dropQueuedOnLoop(reason) })
}

func (s *session) dropQueuedOnLoop(reason string) {
	for _, f := range s.formsInOnLoop(deciding, queued) {
		if !isClosed(f.posted) && s.moveOnLoop(f, done, deciding, queued) { // else verify reports it
			s.forgetOnLoop(f)
			s.say("cancelled", events.Fields{"tool_use_id": f.ID(), "reason": reason})
		}
	}
}

// dropChat forgets the chat message pending for f's "Chat about this", if
// the one pending is f's: f's drive ended without it (taken over, recorded
// meanwhile, failed), and a message sent at the next Stop would be one
// nobody chose. Another form's pending message stays.
func (s *session) dropChat(f *form) {
	s.loop.do(func() { s.dropChatOnLoop(f) })
}

func (s *session) dropChatOnLoop(f *form) {
	if s.chatFrom == f {
		s.chat, s.chatFrom = "", nil
	}
}

// failure is the error event's fields for askflow's error err on form f
// (nil when the person took over, Claude went away, or its conversation
// went to the background): a step the screen did not confirm is also in
// the run's report, with the bug report written here.
func (s *session) failure(f *form, ds []answer.Decision, err error) events.Fields {
	if errors.Is(err, askflow.ErrInterrupted) || errors.Is(err, askflow.ErrAway) && !s.cfg.Host.Headless {
		return nil
	}
	fields := events.Fields{"tool_use_id": f.ID(), "message": err.Error()}
	var ae *askflow.Error
	if errors.As(err, &ae) {
		fields["step"], fields["reason"], fields["keys"] = ae.Step, ae.Reason, ae.Keys
		if ae.Question > 0 {
			fields["question"] = ae.Question
		}
		fields["screen"] = ae.Last.Text()
		if ae.Step != "decision" {
			failure := fmt.Sprintf("form %s: %s", f.ID(), ae.Reason)
			if ae.Question > 0 {
				failure = fmt.Sprintf("form %s, question %d: %s: %s", f.ID(), ae.Question, ae.Step, ae.Reason)
			}
			s.navigationFailed(f, ds, ae, failure, fields)
		}
	}
	return fields
}

// driveFailed handles askflow's error for form f on the loop: the person
// took over, or Claude went away (nothing more to do), or its conversation
// went to the background (the form is the person's there), or the screen
// did not confirm a step (said with its bug report; headless the form is
// cancelled, else the person gets it).
func (s *session) driveFailed(e driveEnded) {
	f := e.f
	s.dropChatOnLoop(f)
	if errors.Is(e.err, askflow.ErrInterrupted) {
		return
	}
	if e.fields == nil {
		// Claude's conversation is in the background (← at its prompt):
		// the form waits in Claude's sessions view, theirs to open or
		// reply to. Nothing failed, and nothing was pressed on the view.
		if s.moveOnLoop(f, handedOver, driving) {
			fields := events.Fields{"tool_use_id": f.ID(), "reason": AwayReason}
			var ae *askflow.Error
			if errors.As(e.err, &ae) {
				fields["step"], fields["keys"] = ae.Step, ae.Keys // where the view met the drive
			}
			s.say("handed_over", fields)
			s.goWorkOnLoop(func() { s.notify(f) }) // it waits for the person, as a form passed through does
		}
		return
	}
	s.say("error", e.fields)
	if !s.cfg.Host.Headless {
		if s.moveOnLoop(f, handedOver, driving) {
			s.say("handed_over", events.Fields{"tool_use_id": f.ID(), "reason": "navigation failed"})
		}
		return
	}
	// Nobody can take the form: cancelling is the one safe key, if the
	// form on the screen is this one. A form not on the screen (another
	// form asked with it shows, or a PreToolUse nobody drew) is cancelled
	// only if it shows, within the turn: Esc now would interrupt whatever
	// Claude is doing.
	if !s.moveOnLoop(f, done, driving) {
		return
	}
	s.forgetOnLoop(f)
	if !e.showing {
		turn := s.turns // read before the run says so: a Stop that follows ends the look
		s.say("error", events.Fields{"tool_use_id": f.ID(), "message": "the form is not on the screen: it is cancelled when it shows"})
		s.goWorkOnLoop(func() { s.cancelOnSight(f, turn) })
		return
	}
	s.goWorkOnLoop(func() { s.cancelFailed(f) })
}

// DryRunReason ends a headless dry run at a form the rules do not answer
// whole: what they decided is logged, and nobody can give the rest.
const DryRunReason = "dry run: nothing is pressed, and headless nobody can answer the form (what the rules decided is in the decision events)"

// DryRunDone ends a headless dry run at a form or dialog the rules answer
// whole: the check it is for has passed.
const DryRunDone = "dry run: the rules answer what Claude asked, and nothing was pressed (what they decided is in the decision events)"

// endDryRun ends a headless dry run at a form it handed over: nobody sees
// Claude's screen, and a dry run presses nothing, for claudewrap answer
// too, so the form would wait for ever. When the rules answered it whole
// (clean), the run ends with exit 0, so that a job can use a dry run as a
// check of its rules; else it is blocked (exit 7).
func (s *session) endDryRun(clean bool) {
	if !s.cfg.DryRun || !s.cfg.Host.Headless {
		return
	}
	if !clean {
		snap := s.child.Screen().Snapshot()
		s.block(DryRunReason, &snap)
		return
	}
	s.flag(func(r *Report) {
		if !r.Ended && r.Blocked == "" {
			r.Ended, r.EndedWhy = true, DryRunDone
		}
	})
	_ = s.child.Signal(syscall.SIGTERM)
}

// AwayReason is the reason a form is handed over when Claude's
// conversation is in the background: the form is in Claude's sessions
// view, not on the screen.
const AwayReason = "Claude's conversation is in the background (its sessions view): the form waits there for you (enter opens it)"

// cancelFailed presses Esc on f, on the screen, whose drive failed
// headless: nobody can take it, and cancelling is the one safe key. Esc
// in a preview question's open notes closes the notes, not the form
// (testdata/screens/*/preview-notes-closed), and on "Type something" in
// vim's insert mode leaves the mode (testdata/screens/*/vim-other-normal):
// when the screen then shows the notes closed or the mode left on the same
// form, Esc goes once more. It is reported cancelled once the screen no
// longer shows it.
func (s *session) cancelFailed(f *form) {
	em := s.child.Screen()
	before := em.Snapshot()
	_ = askflow.Dismiss(s.keys)
	var closed func(vt.Snapshot) bool
	switch {
	case askflow.NotesOpen(before, f.questions):
		closed = func(sn vt.Snapshot) bool { return askflow.NotesClosed(sn, f.questions) }
	case askflow.InsertMode(before, f.questions):
		closed = func(sn vt.Snapshot) bool { return askflow.InsertLeft(sn, f.questions) }
	}
	if closed != nil {
		ctx, cancel := context.WithTimeout(s.ctx, escWait)
		_, err := em.Wait(ctx, func(sn vt.Snapshot) bool { return sn.Seq != before.Seq && closed(sn) })
		cancel()
		if err == nil {
			_ = askflow.Dismiss(s.keys)
		}
	}
	// Cancelled once it is seen gone (2.1.197 acts on an Esc half a
	// second late), not before.
	ctx, cancel := context.WithTimeout(s.ctx, escWait)
	_, err := em.Wait(ctx, func(sn vt.Snapshot) bool { return !askflow.Showing(sn, f.questions) })
	cancel()
	if err != nil && s.ctx.Err() == nil {
		s.say("error", events.Fields{"tool_use_id": f.ID(), "message": fmt.Sprintf("Esc did not take the form away within %v: it is still on Claude's screen", escWait)})
	} else {
		s.say("cancelled", events.Fields{"tool_use_id": f.ID(), "reason": "navigation failed"})
	}
	s.dropQueued("the turn was interrupted")
	s.turnInterrupted()
}

// recordGrace is how long Claude may take to record a submitted form.
const recordGrace = 30 * time.Second

// awaitRecord gives Claude recordGrace to record form f, submitted
// (askflow pressed ds, or they went back through the hook): the timer's
// recordDue finds it still submitted when Claude recorded nothing. It runs
// on the loop.
func (s *session) awaitRecord(f *form, ds []answer.Decision) {
	time.AfterFunc(s.recordGrace, func() { s.loop.send(recordDue{f, ds}) })
}

// recordDue: form f's recordGrace is over (see session.unrecorded).
type recordDue struct {
	f  *form
	ds []answer.Decision
}

// recordDue handles form f's recordGrace ending: a form Claude has not
// recorded is done, and reported by a worker (see unrecorded). One whose
// PostToolUse has come is recorded, though checkRecord may not have moved
// it yet (verify may still be reading the transcript).
func (s *session) recordDue(e recordDue) {
	if s.ctx.Err() != nil || isClosed(e.f.posted) || !s.moveOnLoop(e.f, done, submitted) {
		return
	}
	viaHook := e.f.viaHook
	s.goWorkOnLoop(func() { s.unrecorded(e.f, e.ds, viaHook) })
}

// unrecorded reports form f, submitted (through the hook if viaHook), that Claude did not record in
// time: the screen was misread (the form, or a page of it, still waits),
// or the hook's answer never reached Claude. That is reported with a bug
// report (exit 5) and the form no longer holds the turn's end; headless, a
// form still on the screen is cancelled, and a screen that waits for ever
// after keys ends the run, since nobody can answer it.
func (s *session) unrecorded(f *form, ds []answer.Decision, viaHook bool) {
	last := s.child.Screen().Snapshot()
	how := "submitted"
	if viaHook {
		how = "answered through the hook"
	}
	ae := &askflow.Error{Step: "record", Reason: fmt.Sprintf("%s, but Claude recorded no answer within %v", how, s.recordGrace), Last: last}
	fields := events.Fields{"tool_use_id": f.ID(), "message": ae.Reason, "step": ae.Step, "screen": last.Text()}
	s.navigationFailed(f, ds, ae, fmt.Sprintf("form %s: %s", f.ID(), ae.Reason), fields)
	s.say("error", fields)
	if !s.cfg.Host.Headless {
		return
	}
	if viaHook && s.sameQuestionsOpen(f) {
		// Never drawn itself: what shows is the form alike, asked since
		// (Claude asking again after a hook denied it), and not this one's.
		return
	}
	if askflow.Showing(last, f.questions) {
		_ = askflow.Dismiss(s.keys)
		s.say("cancelled", events.Fields{"tool_use_id": f.ID(), "reason": "not recorded"})
		s.turnInterrupted()
		return
	}
	if viaHook {
		// Claude drew no form for it: it waits on nothing of ours (its
		// PostToolUse went astray, or something else stopped the tool).
		return
	}
	s.say("error", events.Fields{"message": "ending Claude: a headless run cannot wait on a screen nobody can answer"})
	_ = s.child.Signal(syscall.SIGTERM)
}

// sameQuestionsOpen reports whether a form other than f, not yet recorded or done,
// asks the very questions f asks.
func (s *session) sameQuestionsOpen(f *form) (r bool) {
	s.loop.do(func() { r = s.sameQuestionsOpenOnLoop(f) })
	return r
}

func (s *session) sameQuestionsOpenOnLoop(f *form) bool {
	for _, g := range s.forms {
		if g != f && g.state != done && g.state != recorded && reflect.DeepEqual(g.questions, f.questions) {
			return true
		}
	}
	return false
}

// navigationFailed reports a form the screen did not confirm: the failure
// line (with its bug report's path) goes in the report, and the bundle's
// path or the error writing it in fields.
func (s *session) navigationFailed(f *form, ds []answer.Decision, ae *askflow.Error, failure string, fields events.Fields) {
	if path, err := s.writeBundle(f, ds, ae); err != nil {
		fields["bundle_error"] = err.Error()
	} else if path != "" {
		fields["bundle"] = path
		failure += "; bug report: " + path
	}
	s.flag(func(r *Report) {
		r.Navigation = true
		r.Failures = append(r.Failures, failure)
	})
}

// recordLimit bounds the in-memory recording kept for bug reports: the
// last 0.5 to 1 MiB of Claude's output, dozens of full redraws and minutes
// of an ordinary session; a failing form was drawn seconds before. At
// 16 MiB the soak's claudewrap grew by 10 MiB in five minutes.
const recordLimit = 1 << 20

// writeBundle writes a bug report for a form askflow could not answer, or
// for the chat message after f's "Chat about this".
func (s *session) writeBundle(f *form, ds []answer.Decision, ae *askflow.Error) (string, error) {
	if s.cfg.Bundles == "" || s.rec == nil || ae.Last.Cols == 0 {
		return "", nil // no folder, or nothing seen: no screen to report
	}
	rep := bundle.Report{
		Time: time.Now(), ToolUseID: f.ID(), Questions: f.questions,
		Step: ae.Step, Reason: ae.Reason, Keys: ae.Keys, Screen: ae.Last.Text(),
		Size: fmt.Sprintf("%dx%d", ae.Last.Cols, ae.Last.Rows),
	}
	for _, d := range ds {
		rep.Decisions = append(rep.Decisions, d.String())
	}
	return bundle.Write(s.cfg.Bundles, rep, s.rec.Cast())
}

// redrawable is Claude's emulated screen as askflow reads it, able to have
// Claude redraw it.
type redrawable struct {
	vt.Emulator
	child Child
}

func (r redrawable) Redraw() error { return r.child.Redraw() }

// growable is Claude's screen as askflow reads it headless: nobody's
// terminal holds its size, so askflow may make it taller for a page taller
// than the screen (see askflow.Grower).
type growable struct{ redrawable }

func (g growable) SetRows(rows int) error { return g.child.SetRows(rows) }
