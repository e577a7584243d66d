package askflow

import (
	"context"
	"fmt"
	"slices"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// sameText compares text as review page rv shows it with text as asked,
// allowing for the page's wrapping (see screen.SameWrapped).
func sameText(rv *screen.Review, shown, asked string) bool {
	return screen.SameWrapped(shown, asked, rv.Silent)
}

// review submits the review page once it lists the intended answers, by
// Enter on "Submit answers".
func (r *runner) review(ctx context.Context) error {
	// A frame drawn during a resize may be garbled: judge the page by the
	// first one that lists the intended answers.
	var why string
	fm, s, ok := r.awaitForm(ctx, r.cfg.FormTimeout, func(fm *screen.Form) bool {
		if fm.Review == nil || fm.Focus.Kind == screen.FocusUnknown {
			why = "the review page never showed"
			return false
		}
		why = r.reviewMismatch(fm)
		return why == ""
	})
	if !ok {
		if why == "" {
			why = "the review page never showed"
		}
		return r.fail("review", s, "%s", why)
	}
	onSubmit := func(s vt.Snapshot) bool {
		fm, err := screen.Recognize(s)
		return err == nil && fm.Review != nil && fm.Focus.Kind == screen.FocusSubmit && r.reviewMismatch(fm) == ""
	}
	if fm.Focus.Kind != screen.FocusSubmit {
		onReview := func(s vt.Snapshot) bool {
			fm, err := screen.Recognize(s)
			return err == nil && fm.Review != nil
		}
		if _, err := r.press(ctx, "review", keyUp, fm.Focus.String(), true, onSubmit, onReview); err != nil {
			return err
		}
	}
	if err := r.settle(ctx); err != nil {
		return err
	}
	if s, ok := r.wait(ctx, r.cfg.StepTimeout, onSubmit); !ok {
		return r.fail("submit", s, "focus is not on %q before Enter", "Submit answers")
	}
	gone := func(s vt.Snapshot) bool {
		_, err := screen.Recognize(s)
		return err != nil || r.recorded()
	}
	_, err := r.press(ctx, "submit", keyEnter, "submit", false, gone, onSubmit)
	return err
}

// reviewMismatch says how the review page differs from the intent, or "".
// The page lists every question with its answer; when it is taller than
// the screen, the visible entries must be the last ones intended.
func (r *runner) reviewMismatch(fm *screen.Form) string {
	rv := fm.Review
	n := len(r.cfg.Questions)
	if rv.Incomplete {
		return "the review page says not all questions were answered"
	}
	if len(rv.Answers) > n || (!fm.Cut && len(rv.Answers) != n) {
		if len(rv.Answers) == 1 {
			return fmt.Sprintf("the review page lists 1 answer, want %d", n)
		}
		return fmt.Sprintf("the review page lists %d answers, want %d", len(rv.Answers), n)
	}
	first := n - len(rv.Answers)
	for k, a := range rv.Answers {
		i := first + k
		q := r.cfg.Questions[i]
		d := r.cfg.Decisions[i]
		// The page is read loosely (a look-alike answer passes); the
		// session checks what Claude records exactly.
		if !sameText(rv, a.Question, q.Question) || !slices.ContainsFunc(d.Renderings(q.MultiSelect), func(w string) bool { return sameText(rv, a.Answer, w) }) {
			return fmt.Sprintf("the review page lists %q -> %q, want %q -> %q", a.Question, a.Answer, q.Question, d.Recorded())
		}
	}
	return ""
}
