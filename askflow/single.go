package askflow

import (
	"context"
	"fmt"
	"strconv"

	"github.com/claudewrap/claudewrap/screen"
)

// answerSingle answers a single-select question: the option, and on a preview
// question its notes, typed with n and confirmed before Enter.
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
	// Notes already there are compared as typed notes are: on 2.1.321 and
	// older, notes that differ only in a vowel sign cannot be told apart,
	// as with typed notes, and PostToolUse's exact check reports them.
	if fm.Preview.Notes != "" && (notes == "" || !sameTyped(fm.Preview.Notes, notes, fm.MarksJoin)) {
		return r.fail("notes", r.cfg.Screen.Snapshot(), "the notes already hold %q", fm.Preview.Notes)
	}
	if notes != "" && fm.Preview.Notes == "" {
		if err := r.typeNotes(ctx, target, notes); err != nil {
			return err
		}
	}
	// Enter while the notes are being typed would record the notes alone
	// on some versions: the notes must show, done with.
	return r.enter(ctx, target, func(fm *screen.Form) bool {
		return !fm.Preview.Editing && sameTyped(fm.Preview.Notes, notes, fm.MarksJoin)
	})
}

// numberKey returns the key that stands for option target on page fm: its
// number, on every pinned version, commits a single-select question's
// option and moves on, and ticks or unticks a multi-select one's leaving
// the focus where it is (testdata/screens/*/digit-*). It returns "" unless
// the number is what the key would mean here: the option shows with that
// number, so its row confirms which option the key names, and the focus is
// on an option row, so the key goes to the list (with the focus on "Type
// something", or notes open, it would be typed there). The list must show
// from option 1, not scrolled: the recordings hold no number pressed on a
// scrolled list, where a number might count the rows in sight. A preview
// page keeps the walk: notes are typed on the focused option.
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

// pickByNumber commits option target of a single-select page by its number, one
// key where the walk takes a move a row and Enter. The page must agree
// with the hook and numberKey hold for it, after the guard's wait and a
// fresh look (see confirmAfterGuard), as for an Enter; it is then left for the next
// page as an Enter leaves it. It reports false, having pressed nothing
// that took effect, when the walk is the way: the focus on target already
// (Enter alone), no number for it (see numberKey), before the number or
// during the guard's wait (see confirmNumberOrWalk), or the number had no
// visible effect. Claude refuses a key typed ahead on a guarded form
// without a trace (see formAge); the form is then taken as guarded and,
// confirmed again after the guard's wait, walked instead. The walk takes
// at least one move (the focus is not on target), each confirmed on this
// page before the Enter; Claude reads keys in order, so a move seen to
// take effect here means the number before it was read and did nothing,
// and a number taken late would have moved the page on first: the moves
// then go unconfirmed, and nothing more is pressed.
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
	ready := func(s screen.Snapshot) bool {
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
