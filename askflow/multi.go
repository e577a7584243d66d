package askflow

import (
	"context"
	"fmt"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// answerMulti answers a multi-select question: it ticks each option asked
// for, in order, then leaves the page by Tab or by its Next or Submit
// button, once every option shows ticked exactly as asked.
func (r *runner) answerMulti(ctx context.Context, labels []string) error {
	q := r.cfg.Questions[r.q]
	want := map[int]bool{}
	for _, l := range labels {
		want[q.Index(l)] = true
	}
	if _, err := r.page(ctx, r.cfg.FormTimeout); err != nil {
		return err
	}
	for i, t := range r.ticks {
		if t && !want[i] {
			return r.fail("tick", r.cfg.Screen.Snapshot(), "%q is ticked already and was not asked for", q.Options[i].Label)
		}
	}
	for _, l := range labels {
		i := q.Index(l)
		if done, err := r.tickByNumber(ctx, i); done || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		if _, err := r.moveTo(ctx, i); err != nil {
			return err
		}
		if r.ticks[i] {
			// Ticked before we came: the recorded order may differ, and
			// verification will say so.
			continue
		}
		isTicked := func(t bool) func(vt.Snapshot) bool {
			return r.focusedOn(i, func(fm *screen.Form) bool { return r.ticks[i] == t })
		}
		unticked := func(fm *screen.Form) bool { return !r.ticks[i] }
		if _, err := r.readyToCommit(ctx, "tick", i, unticked, fmt.Sprintf("option %d focused and not ticked", i+1)); err != nil {
			return err
		}
		if _, err := r.press(ctx, "tick", keyEnter, fmt.Sprintf("option %d", i+1), true, isTicked(true), isTicked(false)); err != nil {
			return err
		}
	}
	button := screen.ButtonPosition(q)
	if err := r.settle(ctx); err != nil {
		return err
	}
	if tabbed, err := r.nextByTab(ctx, want); tabbed || err != nil {
		return err
	}
	if _, err := r.moveTo(ctx, button); err != nil {
		return err
	}
	// The walk to the button showed every option; each must show ticked
	// exactly when asked for. Options only ever above the screen's top were
	// never focused, so never ticked.
	for i := range q.Options {
		t, seen := r.ticks[i]
		if !seen && !want[i] && i < r.aboveTop {
			continue
		}
		if !seen || t != want[i] {
			return r.fail("tick", r.cfg.Screen.Snapshot(), "%q ticked=%t (seen %t) before the button", q.Options[i].Label, t, seen)
		}
	}
	return r.enter(ctx, button, nil)
}

// tickByNumber ticks option i of a multi-select page by its number (see
// numberKey), the focus left where it is. The page must show whole, so
// that every option's tick is seen. It reports false, having pressed
// nothing, when the walk is the way. Like a tick by Enter, a number with
// no visible effect goes again: a late first copy would untick the
// option, which the check before leaving the page catches.
func (r *runner) tickByNumber(ctx context.Context, i int) (bool, error) {
	fm, err := r.page(ctx, r.cfg.FormTimeout)
	if err != nil {
		return true, err
	}
	key := numberKey(fm, i)
	if key == "" || r.cfg.Walk || !fm.Whole() || r.position(fm) == i {
		return false, nil
	}
	if r.ticks[i] {
		// Ticked before we came: the recorded order may differ, and
		// verification will say so.
		return true, nil
	}
	if err := r.settle(ctx); err != nil {
		return true, err
	}
	shows := func(ticked bool) func(vt.Snapshot) bool {
		return func(s vt.Snapshot) bool {
			fm, err := screen.Recognize(s)
			return err == nil && r.agrees(fm) && fm.Whole() && numberKey(fm, i) == key && r.ticks[i] == ticked
		}
	}
	s, walk, err := r.confirmNumberOrWalk(ctx, "tick", shows(false), fmt.Sprintf("option %d numbered and not ticked", i+1))
	if err != nil || walk {
		return err != nil, err
	}
	r.sendingNumber = true
	_, err = r.press(ctx, "tick", key, focusOf(s), true, shows(true), shows(false))
	r.sendingNumber = false
	return true, err
}

// nextByTab leaves a multi-select question by Tab, which moves on as the
// button does and keeps the ticks (the *-tab-review-* golden screens),
// when the whole page shows, every option ticked as asked and Type
// something empty. It reports false, having pressed nothing, on any other
// page, which is then walked. Like Enter, Tab is never sent twice.
func (r *runner) nextByTab(ctx context.Context, want map[int]bool) (bool, error) {
	q := r.cfg.Questions[r.q]
	whole := func(fm *screen.Form) bool {
		if len(fm.Tabs) == 0 || !fm.Whole() || fm.Preview != nil ||
			fm.Focus.Kind != screen.FocusOption || len(fm.Options) != len(q.Options) ||
			fm.Other == nil || !fm.Other.Placeholder {
			return false
		}
		for _, o := range fm.Options {
			if o.Ticked != want[o.Number-1] {
				return false
			}
		}
		return true
	}
	fm, err := r.page(ctx, r.cfg.FormTimeout)
	if err != nil {
		return false, err
	}
	if !whole(fm) {
		return false, nil
	}
	at := r.position(fm)
	s, err := r.readyToCommit(ctx, "next", at, whole, "the whole page with the options ticked as asked")
	if err != nil {
		return true, err
	}
	_, err = r.press(ctx, "next", keyTab, focusOf(s), false, r.pastQuestion, r.focusedOn(at, whole))
	return true, err
}
