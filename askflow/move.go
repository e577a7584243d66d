package askflow

import (
	"context"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// moveTo moves the focus to position target, one confirmed key at a time.
// It looks only at the focused row: the rows around it may be scrolled off.
func (r *runner) moveTo(ctx context.Context, target int) (*screen.Form, error) {
	fm, err := r.page(ctx, r.cfg.FormTimeout)
	if err != nil {
		return nil, err
	}
	// Each move must bring the focus closer; allow some slack for a list
	// that scrolls or wraps, never an endless walk.
	limit := 2*(len(r.cfg.Questions[r.q].Options)+3) + r.cfg.Retries
	for moves := 0; ; moves++ {
		cur := r.position(fm)
		if cur == target {
			return fm, nil
		}
		if moves >= limit {
			return nil, r.fail("move", r.cfg.Screen.Snapshot(), "focus did not reach row %d in %d moves", target+1, limit)
		}
		if r.offTop(fm, target) {
			nf, err := r.growToShow(ctx, target)
			if err != nil {
				return nil, err
			}
			if nf == nil {
				return nil, r.fail("move", r.cfg.Screen.Snapshot(), "option %d is above the screen's top on a page taller than the screen: "+
					"it is never shown, so it is not pressed (a taller terminal shows it)", target+1)
			}
			fm = nf
			continue
		}
		key := keyDown
		if cur > target || r.upWraps(fm, cur, target) {
			key = keyUp
		}
		var next *screen.Form
		_, err := r.press(ctx, "move", key, fm.Focus.String(), true,
			func(s vt.Snapshot) bool {
				nf, err := screen.Recognize(s)
				if err != nil || !r.agrees(nf) || nf.Focus.Kind == screen.FocusUnknown || r.position(nf) == cur {
					return false
				}
				next = nf
				return true
			},
			func(s vt.Snapshot) bool {
				nf, err := screen.Recognize(s)
				return err == nil && r.agrees(nf)
			})
		if err != nil {
			return nil, err
		}
		fm = next
	}
}

// upWraps reports whether the way up from position cur to target, over
// the wrap from option 1 to "Type something" (see [screen.UpWraps]), takes
// fewer keys than the way down. A multi-select page must show whole: the
// check before its button counts on every option's tick having been seen.
func (r *runner) upWraps(fm *screen.Form, cur, target int) bool {
	q := r.cfg.Questions[r.q]
	other := screen.OtherPosition(q)
	if !screen.UpWraps(q) || cur < 0 || cur >= target || target > other {
		return false
	}
	if q.MultiSelect && !fm.Whole() {
		return false
	}
	return cur+1+other-target < target-cur
}

// focusedOn returns a check that the current page shows with the focus at
// position target and, if set, ok holds for it.
func (r *runner) focusedOn(target int, ok func(*screen.Form) bool) func(vt.Snapshot) bool {
	return func(s vt.Snapshot) bool {
		fm, err := screen.Recognize(s)
		return err == nil && r.agrees(fm) && r.position(fm) == target && (ok == nil || ok(fm))
	}
}

// approachRounds bounds how often the focus is put back on its row after
// keys that needed retries, before a commit.
const approachRounds = 3

// approach brings the focus to target for a commit: after any retried key
// the screen must settle (a late copy lands), then the focus is put back,
// until a walk to target needs no retry.
func (r *runner) approach(ctx context.Context, step string, target int) error {
	for round := 0; round < approachRounds; round++ {
		if err := r.settle(ctx); err != nil {
			return err
		}
		// The focus may have moved while settling: put it back first.
		if _, err := r.moveTo(ctx, target); err != nil {
			return err
		}
		if !r.unsettled {
			return nil
		}
	}
	return r.fail(step, r.cfg.Screen.Snapshot(), "keys kept needing retries; nothing more pressed")
}

// readyToCommit brings the focus to target (see approach), waits out the
// guard and looks again (see confirmAfterGuard), ok holding for the page
// if set. A focus found moved meanwhile (a late move meant for another
// form) is brought back, at most approachRounds times.
func (r *runner) readyToCommit(ctx context.Context, step string, target int, ok func(*screen.Form) bool, what string) (vt.Snapshot, error) {
	want := r.focusedOn(target, ok)
	for round := 1; ; round++ {
		if err := r.approach(ctx, step, target); err != nil {
			return vt.Snapshot{}, err
		}
		s, moved, err := r.confirmAfterGuardOr(ctx, step, want, func(fm *screen.Form) bool { return r.position(fm) != target }, what)
		if err == nil && !moved {
			return s, nil
		}
		if err == nil {
			err = r.fail(step, s, "the screen no longer shows %s (the focus moved)", what)
		}
		if !moved || round == approachRounds || r.halted() || ctx.Err() != nil {
			return s, err
		}
	}
}
