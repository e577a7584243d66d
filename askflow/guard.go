package askflow

import (
	"context"
	"time"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// formAge is how long a guarded form must have been on the screen before
// a key that changes it (Enter, n, a number, typed text). Claude Code
// 2.1.266 and later silently drop a dialog's Enter within 150 ms of its
// paint, when the dialog opened as another closed (a guard against keys
// typed ahead); 50 ms more covers Claude's clock and ours.
const formAge = 200 * time.Millisecond

// siblingAge is how long a key that commits waits after another form
// asked with this one arrived (see [Config.LastAsked]): Claude Code 2.1.197
// paints the form asked last over the one on the screen up to 200 ms after
// its hook on a busy machine.
const siblingAge = time.Second

// keysQuiet: a form first seen with no key sent to Claude in the keysQuiet
// before it is taken as unguarded. A guarded form opens as another closes
// on a key, and is painted well within a second of that key.
const keysQuiet = time.Second

// guarded says whether a form first seen at shown, the last key to Claude
// having gone at lastKey (zero: none), may be one whose Enter Claude
// refuses for a while (see formAge).
func guarded(shown, lastKey time.Time) bool {
	return !lastKey.IsZero() && shown.Sub(lastKey) < keysQuiet
}

// waitGuard waits, on a guarded form, until it has been shown for formAge
// and, asked alongside another form, until that one arrived siblingAge ago.
func (r *runner) waitGuard(ctx context.Context) error {
	if r.shown.IsZero() {
		return nil
	}
	guard := r.guarded
	wait := time.Until(r.shown.Add(formAge))
	if r.cfg.LastAsked != nil {
		// Another form asked within keysQuiet of this one's first sight
		// may yet be swapped in.
		if a := r.cfg.LastAsked(); guarded(r.shown, a) {
			guard = true
			wait = max(wait, time.Until(a.Add(siblingAge)))
		}
	}
	if !guard || wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// confirmAfterGuard waits out waitGuard, then for a settled screen on which
// ready holds (what names it for the error). Claude may have swapped in
// another form during the wait, and a key that commits must land on the
// form it was meant for.
func (r *runner) confirmAfterGuard(ctx context.Context, step string, ready func(vt.Snapshot) bool, what string) (vt.Snapshot, error) {
	if err := r.waitGuard(ctx); err != nil {
		return vt.Snapshot{}, r.fail(step, r.cfg.Screen.Snapshot(), "%v", err)
	}
	s, ok := r.wait(ctx, r.cfg.StepTimeout, ready)
	if !ok && ctx.Err() == nil && !r.halted() && r.redraw() {
		// A form swapped in may leave a short screen garbled.
		s, ok = r.wait(ctx, r.cfg.StepTimeout, ready)
	}
	if !ok {
		return s, r.fail(step, s, "the screen no longer shows %s", what)
	}
	return s, nil
}

// guardAfterDrop is called when an Enter (or a number) left no trace:
// Claude may have dropped it as typed ahead, so the form is taken as
// guarded from now on. After the guard's wait it reports whether the key
// took effect late (done holds), else confirms ready again.
func (r *runner) guardAfterDrop(ctx context.Context, step string, done, ready func(vt.Snapshot) bool, what string) (bool, error) {
	r.guarded = true
	moved := false
	_, err := r.confirmAfterGuard(ctx, step, func(s vt.Snapshot) bool {
		moved = done(s)
		return moved || ready(s)
	}, what)
	return moved, err
}

// confirmAfterGuardOr is confirmAfterGuard that also ends, reporting true,
// on this question's page with a known focus where off holds.
func (r *runner) confirmAfterGuardOr(ctx context.Context, step string, ready func(vt.Snapshot) bool, off func(*screen.Form) bool, what string) (vt.Snapshot, bool, error) {
	gone := false
	s, err := r.confirmAfterGuard(ctx, step, func(s vt.Snapshot) bool {
		if ready(s) {
			gone = false
			return true
		}
		fm, err := screen.Recognize(s)
		gone = err == nil && r.agrees(fm) && fm.Focus.Kind != screen.FocusUnknown && off(fm)
		return gone
	}, what)
	return s, gone && err == nil, err
}

// confirmNumberOrWalk is confirmAfterGuard for a number key, reporting walk
// when this question's page no longer suits the number (ready): a move
// meant for another form may land here during the wait, and the number
// would then be typed rather than pressed.
func (r *runner) confirmNumberOrWalk(ctx context.Context, step string, ready func(vt.Snapshot) bool, what string) (vt.Snapshot, bool, error) {
	return r.confirmAfterGuardOr(ctx, step, ready, func(*screen.Form) bool { return true }, what)
}
