package askflow

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// runner answers one form for [Run] (or types one message for [Message]):
// it holds what was sent and seen so far.
type runner struct {
	cfg     Config
	keys    int
	q       int // 0-based index of the question being answered
	headers []string
	// unsettled is set when a key was sent again: its first copy may still
	// take effect.
	unsettled bool
	// onlyMoves holds while every key sent was a move (Up, Down): nothing
	// on the form has changed but its focus. elsewhere is set when
	// another form showed meanwhile (see Config.Elsewhere).
	onlyMoves bool
	elsewhere bool
	// away is set when a wait saw Claude's sessions view (see
	// screen.SessionsView): the form is off the screen, and no key goes.
	away          bool
	sendingNumber bool      // the key being pressed is an option's number (see numberKey)
	shown         time.Time // when the form was first seen agreeing with the hook
	guarded       bool      // whether Claude may refuse an early Enter on it (see formAge)
	redraws       int       // redraws asked for on this question (at most maxRedraws)
	// ticks holds, for the multi-select question being answered, each
	// option's tick as last seen on the screen.
	ticks map[int]bool
	// aboveTop counts the current question's options seen only above the
	// screen's top (a page taller than a short screen): never focused,
	// never pressed, so never ticked by us.
	aboveTop int
	// rows is the terminal's height before askflow made it taller (see
	// [Grower]), 0 while it has not; sightGrows counts the times it did so
	// on this question for a page that showed no form (see formOutOfSight).
	rows       int
	sightGrows int
}

func (r *runner) run(ctx context.Context) (Outcome, error) {
	for _, q := range r.cfg.Questions {
		r.headers = append(r.headers, q.Header)
	}
	for i, d := range r.cfg.Decisions {
		if err := d.Check(r.cfg.Questions[i]); err != nil {
			return 0, &Error{Question: i + 1, Step: "decision", Reason: err.Error()}
		}
	}
	for i, d := range r.cfg.Decisions {
		// Text the screen cannot show could never be confirmed (see
		// sameTyped): refuse it before any key is pressed for it.
		if err := screen.CheckAnswer(r.cfg.Questions[i], d); err != nil {
			return 0, &Error{Question: i + 1, Step: "text", Reason: err.Error()}
		}
	}
	// Chat and Cancel end the whole form: do the first one at once.
	for _, d := range r.cfg.Decisions {
		switch d.Action {
		case answer.Cancel:
			if err := r.cancel(ctx); err != nil {
				return 0, err
			}
			return Cancelled, nil
		case answer.Chat:
			if err := r.chat(ctx); err != nil {
				return 0, err
			}
			return Chatted, nil
		}
	}
	for i, d := range r.cfg.Decisions {
		r.q = i
		r.ticks = map[int]bool{}
		r.aboveTop = 0
		r.redraws, r.sightGrows = 0, 0
		var err error
		switch {
		case d.Action == answer.Type:
			err = r.typeAnswer(ctx, d.Text)
		case r.cfg.Questions[i].MultiSelect:
			err = r.answerMulti(ctx, d.Labels)
		default:
			err = r.answerSingle(ctx, d.Labels[0], d.Notes)
		}
		if err != nil {
			return 0, err
		}
	}
	if n := len(r.cfg.Decisions); n < len(r.cfg.Questions) {
		// The form has moved on to the first question left: it is the
		// person's once its page shows.
		r.q = n
		if _, err := r.page(ctx, r.cfg.StepTimeout); err != nil {
			return 0, err
		}
		return Stopped, nil
	}
	// Several questions end on the review page; a single multi-select
	// question may too (it has a Submit tab), so look before leaving.
	review := len(r.cfg.Questions) > 1
	if !review {
		// The page is gone once Claude's prompt or another form shows; a
		// garbled review page, or this page with its question cut by a
		// resize, is not gone.
		settled := func(s vt.Snapshot) bool {
			if fm, err := screen.Recognize(s); err == nil {
				q := r.cfg.Questions[0]
				return fm.Review != nil || !fm.Asks(q) && !fm.Resembles(q)
			}
			_, ok := screen.Prompt(s)
			return ok
		}
		r.redraws = 0 // this step may redraw too
		s, ok := r.wait(ctx, r.cfg.StepTimeout, settled)
		if !ok && ctx.Err() == nil && !r.recorded() && r.redraw() {
			s, ok = r.wait(ctx, r.cfg.StepTimeout, settled)
		}
		fm, err := screen.Recognize(s)
		review = err == nil && fm.Review != nil
		if !ok && !review && !r.recorded() && err == nil && (fm.Asks(r.cfg.Questions[0]) || fm.Resembles(r.cfg.Questions[0])) {
			// The last key's effect was seen on a frame that misled: the
			// page is still there. Nothing was submitted.
			return 0, r.fail("submit", s, "the page still shows after its last key")
		}
	}
	if review {
		r.q = -1
		if err := r.review(ctx); err != nil {
			return 0, err
		}
	}
	return Submitted, nil
}

// fail builds an *Error for the current question.
func (r *runner) fail(step string, last vt.Snapshot, format string, args ...any) error {
	reason := fmt.Sprintf(format, args...)
	switch {
	case r.elsewhere:
		reason = fmt.Sprintf("%v (%s)", ErrElsewhere, reason)
	case r.away:
		reason = fmt.Sprintf("%v (%s)", ErrAway, reason)
	}
	return &Error{Question: r.q + 1, Step: step, Reason: reason, Keys: r.keys, Last: last, Elsewhere: r.elsewhere, Away: r.away}
}

// halted reports whether a wait saw another form or the sessions view, so
// that no key goes (see Config.Elsewhere, ErrAway).
func (r *runner) halted() bool { return r.elsewhere || r.away }

// agrees reports whether fm is the page of the current question, as the
// hook described it, and of no other question of the form. Every option
// it shows is noted, for the multi-select check before its button.
func (r *runner) agrees(fm *screen.Form) bool {
	if fm == nil || !fm.Shows(r.cfg.Questions, r.q) {
		return false
	}
	if r.ticks != nil && fm.MultiSelect {
		for _, o := range fm.Options {
			r.ticks[o.Number-1] = o.Ticked
		}
	}
	return true
}

// page waits for the current question's page with a known focus.
func (r *runner) page(ctx context.Context, d time.Duration) (*screen.Form, error) {
	want := func(fm *screen.Form) bool {
		return r.agrees(fm) && (fm.Focus.Kind != screen.FocusUnknown || hiddenFocus(fm))
	}
	fm, s, ok := r.awaitForm(ctx, d, want)
	// A page taller than the screen may leave no form in sight even before
	// any key (see formOutOfSight); headless, the terminal is made taller
	// and the page looked for again.
	for !ok && ctx.Err() == nil && !r.halted() && r.formOutOfSight(s) {
		grown, err := r.growTerminal()
		if err != nil {
			return nil, err
		}
		if !grown {
			break
		}
		fm, s, ok = r.awaitForm(ctx, r.cfg.StepTimeout, want)
	}
	if !ok {
		return nil, r.fail("agree", s, "the screen never showed this question as the hook describes it%s", describeDisagreement(s, r))
	}
	if hiddenFocus(fm) {
		var err error
		if fm, err = r.showHiddenFocus(ctx, fm); err != nil {
			return nil, err
		}
	}
	if r.shown.IsZero() {
		r.shown = time.Now()
		r.guarded = r.cfg.LastKey == nil || guarded(r.shown, r.cfg.LastKey())
	}
	return fm, nil
}

// describeDisagreement says how s differs from the current question's
// page, for an error.
func describeDisagreement(s vt.Snapshot, r *runner) string {
	fm, err := screen.Recognize(s)
	if err != nil {
		return " (" + err.Error() + ")"
	}
	if fm.Review != nil {
		return " (the review page is showing)"
	}
	d := append(fm.Disagreements(r.cfg.Questions[r.q]), fm.TabDisagreements(r.headers)...)
	if len(fm.Tabs) > 0 && len(r.headers) > 1 && fm.ActiveTab() != r.q {
		d = append(d, fmt.Sprintf("tab %d is active, not %d", fm.ActiveTab()+1, r.q+1))
	}
	if len(d) == 0 {
		if !fm.Shows(r.cfg.Questions, r.q) {
			return " (the visible part could be another question of the form)"
		}
		return " (focus unknown)"
	}
	return ": " + strings.Join(d, "; ")
}

// focusOf names the focused row of the form on s, for a KeyEvent.
func focusOf(s vt.Snapshot) string {
	fm, err := screen.Recognize(s)
	if err != nil {
		return "no form"
	}
	return fm.Focus.String()
}

// position is the focus's place on the current question (see
// [screen.Focus.Position]).
func (r *runner) position(fm *screen.Form) int {
	return fm.Focus.Position(r.cfg.Questions[r.q])
}

// recorded reports whether Claude has recorded the form (see
// [Config.Recorded]).
func (r *runner) recorded() bool {
	select {
	case <-r.cfg.Recorded:
		return r.cfg.Recorded != nil
	default:
		return false
	}
}
