package remote

import (
	"fmt"
	"slices"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
)

// Check reports why answers ds, one per question, cannot answer the form
// qs from elsewhere, or nil: a session holds every answer from elsewhere to
// it before it takes the form, so that a refused answer changes nothing,
// and its senders (claudewrap answer, the serve page) before they send.
// Each answer must be one its question can take and Claude's screen can
// show ([screen.CheckAnswer]); a chat or cancel, which ends the whole form,
// must be given alike for every question.
func Check(qs []answer.Question, ds []answer.Decision) error {
	if len(ds) != len(qs) {
		return fmt.Errorf("the form asks %d questions; %d answers given", len(qs), len(ds))
	}
	for i, d := range ds {
		if err := screen.CheckAnswer(qs[i], d); err != nil {
			return fmt.Errorf("question %d (%q): %v", i+1, qs[i].Question, err)
		}
	}
	for i, d := range ds {
		other := func(e answer.Decision) bool { return !sameDecision(e, d) }
		if (d.Action == answer.Chat || d.Action == answer.Cancel) && slices.ContainsFunc(ds, other) {
			return fmt.Errorf("question %d: %s ends the whole form: give it alone, for every question", i+1, d.Action)
		}
	}
	return nil
}

func sameDecision(a, b answer.Decision) bool {
	return a.Action == b.Action && slices.Equal(a.Labels, b.Labels) && a.Text == b.Text && a.Notes == b.Notes
}
