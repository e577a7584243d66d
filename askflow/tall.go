package askflow

import (
	"context"
	"slices"
	"time"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// hiddenFocus reports whether fm is a page taller than the screen whose
// focused row is above the screen's top: a question just shown on a short
// screen keeps its focus on option 1, which the terminal scrolled away.
func hiddenFocus(fm *screen.Form) bool {
	return fm.Cut && fm.Focus.Kind == screen.FocusUnknown && len(fm.Options) > 0 && fm.Options[0].Number > 1 &&
		!slices.ContainsFunc(fm.Options, func(o screen.Option) bool { return o.Focused })
}

// offTop reports whether position target is an option above the top of
// fm, a page taller than the screen whose list is not scrolled: Claude
// draws such a page whole and the terminal cuts its top, so that option's
// row never shows and cannot be confirmed. The list is known not to be
// scrolled when the focus was hidden up there (see showHiddenFocus), or
// when no ↑ mark shows beside an unfocused first row.
func (r *runner) offTop(fm *screen.Form, target int) bool {
	if !fm.Cut || fm.MoreAbove || len(fm.Options) == 0 || target >= fm.Options[0].Number-1 {
		return false
	}
	return target < r.aboveTop || !fm.Options[0].Focused
}

// growToShow makes the terminal taller so that a page taller than the
// screen shows its top, and confirms the page again. It returns nil,
// having changed nothing, when the screen cannot grow.
func (r *runner) growToShow(ctx context.Context, target int) (*screen.Form, error) {
	if grown, err := r.growTerminal(); !grown || err != nil {
		return nil, err
	}
	// Until Claude draws at the new size, the old frame sits at the top of
	// the taller screen: wait a step for a page that shows the target,
	// then take whatever page agrees (one still cut grows again).
	_, _, _ = r.awaitForm(ctx, r.cfg.StepTimeout, func(fm *screen.Form) bool {
		return r.agrees(fm) && fm.Focus.Kind != screen.FocusUnknown && !r.offTop(fm, target)
	})
	return r.page(ctx, r.cfg.FormTimeout)
}

// growTerminal makes the terminal twice as tall (at most MaxRows) when the
// screen is a [Grower], and reports whether it did. Claude draws the form
// anew, so the guard before the next commit counts from now.
func (r *runner) growTerminal() (bool, error) {
	g, ok := r.cfg.Screen.(Grower)
	snap := r.cfg.Screen.Snapshot()
	if !ok || snap.Rows >= MaxRows {
		return false, nil
	}
	if r.rows == 0 {
		r.rows = snap.Rows
	}
	rows := min(2*snap.Rows, MaxRows)
	if err := g.SetRows(rows); err != nil {
		return false, r.fail("grow", snap, "make the terminal %d rows tall: %v", rows, err)
	}
	r.shown, r.guarded = time.Now(), true
	return true, nil
}

// formOutOfSight reports whether s shows neither a form nor Claude's
// prompt, as a page taller than the screen may leave it. It says so at
// most twice per question, so that a form that is gone does not grow the
// terminal to its limit.
func (r *runner) formOutOfSight(s vt.Snapshot) bool {
	if _, err := screen.Recognize(s); err == nil || r.sightGrows >= 2 {
		return false
	}
	if _, prompt := screen.Prompt(s); prompt {
		return false // the form is gone, not out of sight
	}
	r.sightGrows++
	return true
}

// showHiddenFocus brings a focus hidden above the screen's top (see
// hiddenFocus) into view with Down, one key per hidden option at most,
// after a moment's wait in case the page was caught mid-redraw.
func (r *runner) showHiddenFocus(ctx context.Context, fm *screen.Form) (*screen.Form, error) {
	known := func(s vt.Snapshot) bool {
		nf, err := screen.Recognize(s)
		if err != nil || !r.agrees(nf) || nf.Focus.Kind == screen.FocusUnknown {
			return false
		}
		fm = nf
		return true
	}
	if _, ok := r.wait(ctx, r.cfg.StepTimeout, known); ok {
		return fm, nil
	}
	r.aboveTop = max(r.aboveTop, fm.Options[0].Number-1)
	for range fm.Options[0].Number - 1 {
		s, err := r.press(ctx, "reveal", keyDown, "above the screen", false, known, func(vt.Snapshot) bool { return false })
		if err == nil {
			return fm, nil
		}
		nf, rerr := screen.Recognize(s)
		if rerr != nil || !r.agrees(nf) || !hiddenFocus(nf) {
			return nil, err
		}
	}
	return nil, r.fail("reveal", r.cfg.Screen.Snapshot(), "the focus stayed above the screen's top")
}
