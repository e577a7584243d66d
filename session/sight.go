package session

import (
	"context"
	"fmt"
	"time"

	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// cancelOnSight cancels f, whose drive failed headless while the screen
// showed something else (another form asked with it), once Claude shows
// it: left alone, Claude would wait on it until the idle limit. Not while
// another form is driven or submitted (its keys and Claude's record are
// under way), nor while the screen could be showing another open form
// (one alike cannot be told from f). It gives up when the turn ends: f
// will not show after that: turn is s.turns when the drive failed.
//
// A screen that stays still for sightQuiet without showing f, while no
// other form is open, is redrawn (at most maxSightRedraws times): Claude
// Code 2.1.197 left a short screen garbled as f took the place of the
// form asked with it, and only a redraw shows what is there. Then the
// terminal is made taller (sightGrows times), for a page taller than the
// screen that shows no form at all; it gets its rows back at the end. A
// form that does not show even then, on a screen still for sightLast with
// nothing else open (no other form, no dialog), ends the run
// (blocked; the navigation failure's exit status 5 comes first): nothing
// is pressed on a screen that does not show f. So does a screen that
// keeps changing without showing f for the idle limit (see lookBounded).
func (s *session) cancelOnSight(f *form, turn int) {
	over, seen := false, false
	// sighted runs on the loop.
	sighted := func(snap vt.Snapshot) bool {
		if s.turns != turn {
			over = true
			return true
		}
		if !askflow.Showing(snap, f.questions) {
			return false
		}
		for _, g := range s.forms {
			if g == f || g.state == done || g.state == recorded {
				continue
			}
			if g.state == driving || g.state == submitted && !isClosed(g.posted) || askflow.Showing(snap, g.questions) {
				return false
			}
		}
		seen = true
		return true
	}
	try := func(snap vt.Snapshot) (yes bool) {
		s.loop.do(func() { yes = sighted(snap) })
		return yes
	}
	grown := false
	limit := s.cfg.IdleLimit
	if limit == 0 {
		limit = idleLimitDefault
	}
	start := time.Now()
	deadline := start.Add(limit)
	tries := 0
	for tries < maxSightRedraws+sightGrows {
		seq := s.child.Screen().Snapshot().Seq
		ctx, cancel := context.WithTimeout(s.ctx, sightQuiet)
		s.lookUntil(ctx, try)
		cancel()
		if over || seen || s.ctx.Err() != nil {
			break
		}
		if s.child.Screen().Snapshot().Seq != seq || !s.alone(f) {
			if limit > 0 && time.Now().After(deadline) {
				break // see lookBounded
			}
			continue // Claude is drawing, or another form has the screen
		}
		tries++
		if tries <= maxSightRedraws {
			s.say("error", events.Fields{"tool_use_id": f.ID(), "message": fmt.Sprintf(
				"the form has not shown for %v on a still screen: Claude is asked to redraw (%d of %d)", sightQuiet, tries, maxSightRedraws)})
			_ = s.child.Redraw()
			continue
		}
		// A page taller than the screen may show no form at all (notes
		// wrapped in a narrow preview column on a short screen); the
		// terminal is nobody's (cancelOnSight runs headless only).
		cur := s.child.Screen().Snapshot().Rows
		if cur >= askflow.MaxRows {
			break
		}
		grown = true
		s.say("error", events.Fields{"tool_use_id": f.ID(), "message": fmt.Sprintf(
			"the form has not shown for %v after %d redraws: the terminal is made %d rows tall", sightQuiet, maxSightRedraws, min(2*cur, askflow.MaxRows))})
		_ = s.child.SetRows(min(2*cur, askflow.MaxRows))
	}
	gaveUp := false
	if !over && !seen && s.ctx.Err() == nil && limit > 0 && time.Until(deadline) <= 0 {
		gaveUp = s.lookBounded(f, try, func() bool { return over || seen }, limit, start, tries > 0)
	} else if !over && !seen && s.ctx.Err() == nil {
		seq := s.child.Screen().Snapshot().Seq
		last := sightLast
		if limit > 0 {
			last = min(last, time.Until(deadline))
		}
		ctx, cancel := context.WithTimeout(s.ctx, last)
		s.lookUntil(ctx, try)
		cancel()
		snap := s.child.Screen().Snapshot()
		_, dialog := screen.ParseDialog(snap)
		if !over && !seen && s.ctx.Err() == nil && s.alone(f) && snap.Seq == seq && !dialog {
			// Nothing shows f, redrawn or taller, the screen stays still,
			// and nothing else is open (no form, no dialog): waiting on
			// would leave the run to the idle limit.
			gaveUp = true
			s.block(fmt.Sprintf("form %s never showed as the hook describes it, redrawn and looked for on %d rows: "+
				"nothing was pressed, and Claude is ended (headless)", f.ID(), snap.Rows), &snap)
		} else if !over && !seen {
			gaveUp = s.lookBounded(f, try, func() bool { return over || seen }, limit, start, tries > 0)
		}
	}
	switch {
	case over:
		s.say("error", events.Fields{"tool_use_id": f.ID(), "message": "the turn ended before the form showed: nothing cancelled"})
	case gaveUp:
	case s.ctx.Err() == nil:
		s.cancelFailed(f)
	}
	if grown && s.cfg.Host.Rows > 0 {
		// The height the run was given (--size), whoever made it taller.
		_ = s.child.SetRows(s.cfg.Host.Rows)
	}
}

// lookBounded looks for f with try until done holds. From the idle limit
// (limit) after cancelOnSight began (start) on, it gives up on f after a
// window of sightQuiet with nothing else open (no other form, no dialog)
// at its start and at its end, and no form or dialog come within it: a
// screen that keeps changing (a subagent's progress, an animation)
// without showing f is never still enough for cancelOnSight to give up,
// and a headless run must end by itself; a form just answered, or a
// permission just given, gets its window for f to show after it. Before giving up it has Claude redraw once,
// unless cancelOnSight did (redrawn): a garbled screen (2.1.197) may come
// with a changing one. It ends the run (blocked) and reports true when it
// gives up; with no limit (--idle-timeout 0) it looks until done or the
// run ends.
func (s *session) lookBounded(f *form, try func(vt.Snapshot) bool, done func() bool, limit time.Duration, start time.Time, redrawn bool) bool {
	if limit < 0 {
		s.lookUntil(s.ctx, try)
		return false
	}
	deadline := start.Add(limit)
	if soon := time.Now().Add(sightQuiet); deadline.Before(soon) {
		deadline = soon
	}
	// Each window begins where the last one ended (its state read, then
	// its deadline set): what comes between two falls in the next.
	quiet, came := s.nothingElseOpen(f)
	for {
		ctx, cancel := context.WithDeadline(s.ctx, deadline)
		s.lookUntil(ctx, try)
		cancel()
		if done() || s.ctx.Err() != nil {
			return false
		}
		wasQuiet, before := quiet, came
		quiet, came = s.nothingElseOpen(f)
		deadline = time.Now().Add(sightQuiet)
		if !wasQuiet || !quiet || came != before {
			continue // f may show after what is or was open
		}
		if !redrawn {
			redrawn = true
			s.say("error", events.Fields{"tool_use_id": f.ID(), "message": fmt.Sprintf(
				"the form has not shown for %v on a screen that keeps changing: Claude is asked to redraw",
				time.Since(start).Round(time.Second))})
			_ = s.child.Redraw()
			continue
		}
		snap := s.child.Screen().Snapshot()
		s.block(fmt.Sprintf("form %s never showed as the hook describes it in %v, on a screen that kept "+
			"changing: nothing was pressed, and Claude is ended (headless)", f.ID(), time.Since(start).Round(time.Second)), &snap)
		return true
	}
}

// nothingElseOpen tells whether f alone is open: no other form (see
// alone) and no dialog on the screen. It also returns how many forms and
// dialogs have come so far: one asked and answered within a window of
// lookBounded is open at neither end, and neither is a permission that a
// rule gave by hook (Claude draws no dialog for it) or a dialog answered
// on the screen within the window.
func (s *session) nothingElseOpen(f *form) (bool, int) {
	_, dialog := screen.ParseDialog(s.child.Screen().Snapshot())
	alone := s.alone(f)
	n := 0
	s.loop.do(func() { n = s.seq + s.dialogs })
	return !dialog && alone, n
}

// sightQuiet is how long cancelOnSight waits on a still screen before it
// has Claude redraw, and maxSightRedraws how often it does so for a form.
const (
	sightQuiet      = 2 * time.Second
	maxSightRedraws = 2
)

// sightGrows is how often cancelOnSight then makes the terminal twice as
// tall, up to askflow.MaxRows, for a form that still does not show; then
// it looks for sightLast more before it ends the run.
const (
	sightGrows = 2
	sightLast  = 4 * sightQuiet
)

// alone tells whether every form but f is recorded or done: nothing else
// is decided, driven or awaited, so a redraw is not expected to come
// between another form's keys (one that did would be met as a person's
// resize is: askflow confirms each key's effect on the screen).
func (s *session) alone(f *form) (r bool) {
	s.loop.do(func() { r = s.aloneOnLoop(f) })
	return r
}

func (s *session) aloneOnLoop(f *form) bool {
	for _, g := range s.forms {
		if g != f && g.state != done && g.state != recorded {
			return false
		}
	}
	return true
}
