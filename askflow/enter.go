package askflow

import (
	"context"
	"fmt"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// commitTaken reports, after an Enter that seemed dropped, whether it took
// effect after all: Claude recorded the form, no form shows, or another
// page of this form shows. Another form does not tell: Claude may have
// swapped it in.
func (r *runner) commitTaken(s vt.Snapshot) bool {
	if r.recorded() {
		return true
	}
	fm, err := screen.Recognize(s)
	if len(r.headers) == 1 {
		return err != nil
	}
	return err == nil && r.pastQuestion(s) && (fm.Review != nil || len(fm.TabDisagreements(r.headers)) == 0)
}

// pastQuestion reports whether the screen has left the current question's
// page: for one question, nothing on it asks that question any more; for
// several, another question's page or the review page shows.
func (r *runner) pastQuestion(s vt.Snapshot) bool {
	if r.recorded() {
		return true
	}
	fm, err := screen.Recognize(s)
	if len(r.headers) == 1 {
		// A page with its question cut (see Form.Resembles) is this one.
		q := r.cfg.Questions[r.q]
		return err != nil || !fm.Asks(q) && !fm.Resembles(q)
	}
	if err != nil {
		return false
	}
	if fm.Review != nil {
		return true
	}
	if len(fm.Tabs) > 0 {
		return fm.ActiveTab() >= 0 && fm.ActiveTab() != r.q
	}
	for j := range r.cfg.Questions {
		if j != r.q && fm.Shows(r.cfg.Questions, j) {
			return true
		}
	}
	return false
}

// enter presses Enter on the focused row, which must be target (and the
// page must satisfy ok, if set), and waits for the page to move on. A
// dropped Enter is sent again only on the last question, where a late
// first copy cannot answer another question.
func (r *runner) enter(ctx context.Context, target int, ok func(*screen.Form) bool) error {
	on := fmt.Sprintf("the focus on row %d", target+1)
	s, err := r.readyToCommit(ctx, "enter", target, ok, on)
	if err != nil {
		return err
	}
	_, err = r.press(ctx, "enter", keyEnter, focusOf(s), false, r.pastQuestion, r.focusedOn(target, ok))
	if err == nil || ctx.Err() != nil {
		return err
	}
	// Claude Code 2.1.330 sometimes drops an Enter, leaving the screen as
	// it was; a second copy, were Claude merely slow, lands on its empty
	// prompt or on the review page's Submit, never on another question.
	last := r.q == len(r.cfg.Questions)-1
	if now := r.cfg.Screen.Snapshot(); !last || now.Seq != s.Seq || !r.focusedOn(target, ok)(now) {
		return err
	}
	moved, err := r.guardAfterDrop(ctx, "enter", r.commitTaken, r.focusedOn(target, ok), on)
	if err != nil || moved {
		return err
	}
	r.unsettled = true
	_, err = r.press(ctx, "enter", keyEnter, focusOf(s), false, r.pastQuestion, r.focusedOn(target, ok))
	return err
}
