package askflow

import (
	"context"
	"errors"
	"time"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// wait waits up to d for a settled screen satisfying ok, returning the
// last screen seen on failure.
func (r *runner) wait(ctx context.Context, d time.Duration, ok func(vt.Snapshot) bool) (vt.Snapshot, bool) {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if r.cfg.Recorded != nil {
		// Claude's record ends a wait for the last Enter's effect.
		go func() {
			select {
			case <-r.cfg.Recorded:
				cancel()
			case <-wctx.Done():
			}
		}()
	}
	check := func(s vt.Snapshot) bool {
		if ok(s) {
			return true
		}
		if screen.SessionsView(s) {
			// The view's own rows, and no form: text of a form's cannot
			// pass for it.
			if _, err := screen.Recognize(s); err != nil {
				r.away = true
				return true
			}
		}
		if r.cfg.Elsewhere != nil && r.onlyMoves {
			r.elsewhere = r.cfg.Elsewhere(s)
			return r.elsewhere
		}
		return false
	}
	s, err := r.cfg.Screen.Wait(wctx, check)
	if r.halted() {
		return s, false
	}
	if err != nil && r.recorded() && ctx.Err() == nil {
		s = r.cfg.Screen.Snapshot()
		return s, ok(s)
	}
	if err != nil {
		var we *vt.WaitError
		if errors.As(err, &we) {
			return we.Last, false
		}
		return r.cfg.Screen.Snapshot(), false
	}
	return s, true
}

// press sends key to the form and waits for effect (see keyPress). When
// the effect does not show and the key may be retried, it goes again, at
// most Retries times, only while safe holds for the screen (nothing else
// happened). A retried key may yet take effect twice, late, so the next
// commit waits for the screen to settle first (see [runner.settle]).
func (r *runner) press(ctx context.Context, step, key string, before string, retry bool, effect, safe func(vt.Snapshot) bool) (vt.Snapshot, error) {
	tries := 1
	if retry {
		tries += r.cfg.Retries
	}
	p := keyPress{
		tries: tries,
		before: func(try int) error {
			if err := ctx.Err(); err != nil {
				return r.fail(step, r.cfg.Screen.Snapshot(), "%v", err)
			}
			if r.halted() {
				// A wait before this key saw the other form, or the sessions
				// view: no key goes.
				return r.fail(step, r.cfg.Screen.Snapshot(), "%s not sent", r.keyName(key))
			}
			if try > 0 {
				r.unsettled = true
			}
			if key != keyUp && key != keyDown {
				r.onlyMoves = false
			}
			return nil
		},
		send: func() error {
			if err := r.cfg.Keys.SendKeys([]byte(key)); err != nil {
				return r.fail(step, r.cfg.Screen.Snapshot(), "send %s: %v", r.keyName(key), err)
			}
			r.keys++
			return nil
		},
		await: func() (vt.Snapshot, bool) { return r.wait(ctx, r.cfg.StepTimeout, effect) },
		report: func(s vt.Snapshot, ok bool) {
			if r.cfg.OnKey == nil {
				return
			}
			after := focusOf(s)
			if !ok && ctx.Err() != nil {
				after = "" // cut short (the person took over): the screen says nothing of this key yet
			}
			r.cfg.OnKey(KeyEvent{Question: r.q + 1, Key: r.keyName(key), Before: before, After: after, Seen: ok})
		},
		unseen: func(s vt.Snapshot, try int) (vt.Snapshot, bool, error) {
			if ctx.Err() != nil {
				return s, false, r.fail(step, s, "%v", ctx.Err())
			}
			if r.halted() {
				return s, false, r.fail(step, s, "%s was sent to this form", r.keyName(key))
			}
			var ok bool
			if !safe(s) && r.redraw() {
				// Claude sometimes leaves stale characters that garble the
				// page; a redraw shows what the key really did.
				if s, ok = r.wait(ctx, r.cfg.StepTimeout, effect); ok {
					return s, true, nil
				}
			}
			if !safe(s) && r.formOutOfSight(s) {
				// The key made the page taller than the screen (notes
				// wrapped in a narrow preview column), leaving no form in
				// sight; headless, a taller terminal shows what it did.
				grown, err := r.growTerminal()
				if err != nil {
					return s, false, err
				}
				if grown {
					if s, ok = r.wait(ctx, r.cfg.StepTimeout, effect); ok {
						return s, true, nil
					}
				}
			}
			if !safe(s) {
				return s, false, r.fail(step, s, "%s had an unexpected effect", r.keyName(key))
			}
			if try+1 < tries && r.cfg.Screen.Snapshot().Seq != s.Seq {
				// Output came after the last settled frame (Claude mid-paint,
				// another form swapping in, the key's own effect late): the
				// key goes again only if the screen it settles on allows.
				ns, ok := r.wait(ctx, r.cfg.StepTimeout, func(n vt.Snapshot) bool { return n.Seq != s.Seq })
				if ok && effect(ns) {
					return ns, true, nil
				}
				if !ok || !safe(ns) {
					return ns, false, r.fail(step, ns, "%s had an unexpected effect", r.keyName(key))
				}
				return ns, false, nil
			}
			return s, false, nil
		},
		fail: func(last vt.Snapshot) error {
			return r.fail(step, last, "%s had no visible effect after %d tries", r.keyName(key), tries)
		},
	}
	return p.run()
}

// settle waits, after a retried key, until the screen has not changed for
// StepTimeout, so that a late duplicate of the key has landed before the
// focus is trusted for a commit.
func (r *runner) settle(ctx context.Context) error {
	if !r.unsettled {
		return nil
	}
	deadline := time.Now().Add(r.cfg.FormTimeout)
	for time.Now().Before(deadline) {
		seq := r.cfg.Screen.Snapshot().Seq
		s, changed := r.wait(ctx, r.cfg.StepTimeout, func(s vt.Snapshot) bool { return s.Seq != seq })
		if ctx.Err() != nil {
			return r.fail("settle", s, "%v", ctx.Err())
		}
		if r.halted() {
			return r.fail("settle", s, "the screen changed to another form, or to Claude's sessions view")
		}
		if !changed {
			r.unsettled = false
			return nil
		}
	}
	return r.fail("settle", r.cfg.Screen.Snapshot(), "the screen never settled after a retried key")
}
