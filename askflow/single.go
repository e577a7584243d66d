package askflow

import (
	"context"
	"fmt"
	"strconv"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// answerSingle answers a single-select question: the option, and on a
// preview question its notes, typed with n and confirmed before Enter.
func (r *runner) answerSingle(ctx context.Context, label, notes string) error {
	target := r.cfg.Questions[r.q].Index(label)
	if !r.cfg.Questions[r.q].PreviewLayout() {
		if done, err := r.pickByNumber(ctx, target); done || err != nil {
			return err
		}
	}
	fm, err := r.moveTo(ctx, target)
	if err != nil {
		return err
	}
	if !r.cfg.Questions[r.q].PreviewLayout() {
		return r.enter(ctx, target, nil)
	}
	// Notes already there are compared as typed notes are (see sameTyped);
	// Claude's record of the answer is checked exactly later.
	if fm.Preview.Notes != "" && (notes == "" || !sameTyped(fm.Preview.Notes, notes, fm.MarksJoin)) {
		return r.fail("notes", r.cfg.Screen.Snapshot(), "the notes already hold %q", fm.Preview.Notes)
	}
	if notes != "" && fm.Preview.Notes == "" {
		if err := r.typeNotes(ctx, target, notes); err != nil {
			return err
		}
	}
	// Enter while the notes are open records the notes alone on some
	// versions: they must show closed.
	return r.enter(ctx, target, func(fm *screen.Form) bool {
		return !fm.Preview.Editing && sameTyped(fm.Preview.Notes, notes, fm.MarksJoin)
	})
}

// numberKey returns the key that stands for option target on page fm, its
// number: it commits a single-select option, or ticks a multi-select one
// in place (the digit-* golden screens). It returns "" unless the option
// shows with that number, the focus is on an option row (elsewhere the
// digit would be typed), and the list is not scrolled; a preview page is
// always walked, as its notes are typed on the focused option.
func numberKey(fm *screen.Form, target int) string {
	if fm.Preview != nil || fm.Focus.Kind != screen.FocusOption || target < 0 || target > 8 ||
		fm.MoreAbove || len(fm.Options) == 0 || fm.Options[0].Number != 1 {
		return ""
	}
	for _, o := range fm.Options {
		if o.Number == target+1 {
			return strconv.Itoa(target + 1)
		}
	}
	return ""
}

// pickByNumber commits option target of a single-select page by its
// number, one key in place of a walk and Enter, confirmed as an Enter is.
// It reports false, having pressed nothing that took effect, when the walk
// is the way: no number suits (see numberKey), the focus is on target
// already, or the number was dropped (see guardAfterDrop). The walk then
// moves at least once, and Claude reads keys in order, so a number taken
// late would leave the walk's first move unconfirmed.
func (r *runner) pickByNumber(ctx context.Context, target int) (bool, error) {
	fm, err := r.page(ctx, r.cfg.FormTimeout)
	if err != nil {
		return true, err
	}
	key := numberKey(fm, target)
	if key == "" || r.cfg.Walk || r.position(fm) == target {
		return false, nil
	}
	if err := r.settle(ctx); err != nil {
		return true, err
	}
	ready := func(s vt.Snapshot) bool {
		fm, err := screen.Recognize(s)
		return err == nil && r.agrees(fm) && numberKey(fm, target) == key
	}
	what := fmt.Sprintf("option %d numbered, the focus on an option", target+1)
	s, walk, err := r.confirmNumberOrWalk(ctx, "enter", ready, what)
	if err != nil || walk {
		return err != nil, err
	}
	r.sendingNumber = true
	_, err = r.press(ctx, "enter", key, focusOf(s), false, r.pastQuestion, ready)
	r.sendingNumber = false
	if err == nil || ctx.Err() != nil || r.halted() {
		return true, err
	}
	if !ready(r.cfg.Screen.Snapshot()) {
		return true, err
	}
	moved, err := r.guardAfterDrop(ctx, "enter", r.commitTaken, ready, what)
	if moved || err != nil {
		return true, err
	}
	if fm, err := screen.Recognize(r.cfg.Screen.Snapshot()); err != nil || r.position(fm) == target {
		// A stray move put the focus there: an Enter with no move before
		// it would not show that the number was read.
		return true, r.fail("enter", r.cfg.Screen.Snapshot(), "number %s had no visible effect, and the focus moved", key)
	}
	return false, nil
}
