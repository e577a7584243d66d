package askflow

import (
	"context"
	"fmt"
	"slices"

	"github.com/claudewrap/claudewrap/screen"
)

// sameText compares text as review page rv shows it with text as asked:
// white space does not count (the page wraps, sometimes inside a word), nor
// what the screen gives no cell (see screen.Squash), and what Claude lost
// at a row's end does not (screen.SameWrapped).
func sameText(rv *screen.Review, shown, asked string) bool {
	return screen.SameWrapped(shown, asked, rv.Silent)
}

func (r *runner) review(ctx context.Context) error {
	// A frame drawn while the terminal was being resized may show the page
	// garbled: judge the page by the first settled frame that lists the
	// intended answers, and report the last one seen if none ever does.
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
	onSubmit := func(s screen.Snapshot) bool {
		fm, err := screen.Recognize(s)
		return err == nil && fm.Review != nil && fm.Focus.Kind == screen.FocusSubmit && r.reviewMismatch(fm) == ""
	}
	if fm.Focus.Kind != screen.FocusSubmit {
		onReview := func(s screen.Snapshot) bool {
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
	gone := func(s screen.Snapshot) bool {
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
		return fmt.Sprintf("the review page lists %d answers, want %d", len(rv.Answers), n)
	}
	first := n - len(rv.Answers)
	for k, a := range rv.Answers {
		i := first + k
		q := r.cfg.Questions[i]
		d := r.cfg.Decisions[i]
		// What Claude records, another pick's look-alike too: the page is
		// read loosely, and what Claude records is checked (session).
		if !sameText(rv, a.Question, q.Question) || !slices.ContainsFunc(d.Renderings(q.MultiSelect), func(w string) bool { return sameText(rv, a.Answer, w) }) {
			return fmt.Sprintf("the review page lists %q -> %q, want %q -> %q", a.Question, a.Answer, q.Question, d.Recorded())
		}
	}
	return ""
}
