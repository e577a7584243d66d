package askflow

import (
	"context"
	"time"

	"github.com/claudewrap/claudewrap/screen"
)

// formAge is how long a guarded form must have been on the screen before
// an Enter (and before n or typed text, which change the form too). Claude Code 2.1.266 and later refuse a dialog's Enter that comes
// within 150 ms of the dialog being painted (a guard against keys typed
// ahead; its constant is 150 in each of those versions' code), leaving no
// trace on the screen; the arrow keys before it work. Measured on 2.1.330
// in the soak, with the first Enter sent at random 0-300 ms after the form
// was first seen: every Enter sent 158 ms or later after was taken, most
// of those sent sooner than 150 ms were dropped (79 forms). The form is
// seen after it is painted, so 150 ms from then is enough; 50 ms more
// covers Claude's clock and ours.
//
// The guard is armed only for a dialog that opens within 150 ms of another
// closing (or while another is open): the dialog host of each of those
// versions stamps a dialog with the time it was shown only then, and
// refuses nothing on a dialog without the stamp. The first form of a turn
// is not guarded; one drawn as the answer to the form before it is.
const formAge = 200 * time.Millisecond

// siblingAge is how long after another form asked with this one arrived
// (its PreToolUse) a key that commits waits (see [Config.LastAsked]).
// Claude Code 2.1.197 shows the form asked last first, painting it over
// the one on the screen 90 ms after its hook when idle, and 200 ms after
// it with two sessions on two cores (stress seed 1764270000, s029: a tick
// for the form under it landed on it, a single-select, and picked its
// second option). Before this, formAge was the bound.
const siblingAge = time.Second

// keysQuiet is how long before a form is first seen no key may have gone
// to Claude for the form to be taken as unguarded. Dialogs close on keys:
// a guarded form opens within 150 ms of a close, is painted a moment
// later, and its guard ends 150 ms after that paint, so a second after
// the last key leaves 700 ms for Claude to act on that key and paint.
const keysQuiet = time.Second

// guarded says whether a form first seen at shown, the last key to Claude
// having gone at lastKey (zero: none), may be one whose Enter Claude
// refuses for a while (see formAge).
func guarded(shown, lastKey time.Time) bool {
	return !lastKey.IsZero() && shown.Sub(lastKey) < keysQuiet
}

// waitGuard waits, on a guarded form, until it has been shown for formAge
// (and, asked alongside another form, until that one was asked formAge
// ago: see [Config.LastAsked]).
func (r *runner) waitGuard(ctx context.Context) error {
	if r.shown.IsZero() {
		return nil
	}
	guard := r.guarded
	wait := time.Until(r.shown.Add(formAge))
	if r.cfg.LastAsked != nil {
		// The same bound as for a key: another form asked within
		// keysQuiet before this one was first seen, or after. Claude
		// may yet swap that one in: wait siblingAge from its arrival.
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

// confirmAfterGuard waits out waitGuard, then for a settled screen on which ready holds,
// what naming it for the error. What was confirmed before a wait is
// confirmed again after it: Claude may have put another form up meanwhile
// (2.1.197 paints one form and swaps in another asked with it about 90 ms
// later), and a key that commits must land on the form it was meant for.
func (r *runner) confirmAfterGuard(ctx context.Context, step string, ready func(screen.Snapshot) bool, what string) (screen.Snapshot, error) {
	if err := r.waitGuard(ctx); err != nil {
		return screen.Snapshot{}, r.fail(step, r.cfg.Screen.Snapshot(), "%v", err)
	}
	s, ok := r.wait(ctx, r.cfg.StepTimeout, ready)
	if !ok && ctx.Err() == nil && !r.halted() && r.redraw() {
		// Claude Code 2.1.197 was seen to leave a short screen garbled
		// as a form asked with another took its place (stress seed
		// 314368126999156480, s013): a redraw shows what is there.
		s, ok = r.wait(ctx, r.cfg.StepTimeout, ready)
	}
	if !ok {
		return s, r.fail(step, s, "the screen no longer shows %s", what)
	}
	return s, nil
}

// guardAfterDrop is called when an Enter left no trace: Claude may have refused
// it as typed ahead on a form taken as unguarded. The form is taken as
// guarded from now on, and the next Enter waits for formAge. It then
// reports whether the first Enter took effect meanwhile (done holds: it
// was only slow), else confirms ready again (see confirmAfterGuard), what naming it.
func (r *runner) guardAfterDrop(ctx context.Context, step string, done, ready func(screen.Snapshot) bool, what string) (bool, error) {
	r.guarded = true
	moved := false
	_, err := r.confirmAfterGuard(ctx, step, func(s screen.Snapshot) bool {
		moved = done(s)
		return moved || ready(s)
	}, what)
	return moved, err
}

// confirmAfterGuardOr is confirmAfterGuard for ready that also ends, reporting true, on
// a page that agrees with the hook, its focus known, where off holds.
func (r *runner) confirmAfterGuardOr(ctx context.Context, step string, ready func(screen.Snapshot) bool, off func(*screen.Form) bool, what string) (screen.Snapshot, bool, error) {
	gone := false
	s, err := r.confirmAfterGuard(ctx, step, func(s screen.Snapshot) bool {
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

// confirmNumberOrWalk is confirmAfterGuard for a number key (ready: the page as the
// number needs it), which also ends, reporting walk, when the page agrees
// with the hook but no longer suits the number. A move sent for a form
// asked with this one can land here late, as the guard waits (2.1.197,
// stress seed 1764045000 s045: an Up taken by this form, its focus
// wrapped to "Type something"); the number would then be typed, not
// pressed, and the walk, each move confirmed, brings the focus back.
func (r *runner) confirmNumberOrWalk(ctx context.Context, step string, ready func(screen.Snapshot) bool, what string) (screen.Snapshot, bool, error) {
	return r.confirmAfterGuardOr(ctx, step, ready, func(*screen.Form) bool { return true }, what)
}
