package askflow

import (
	"context"

	"github.com/claudewrap/claudewrap/screen"
)

// typeAnswer answers the question with text typed on its "Type something"
// row, confirmed on the screen before Enter.
func (r *runner) typeAnswer(ctx context.Context, text string) error {
	other := screen.OtherPosition(r.cfg.Questions[r.q])
	fm, err := r.moveTo(ctx, other)
	if err != nil {
		return err
	}
	if fm.Other == nil || !fm.Other.Placeholder {
		return r.fail("type", r.cfg.Screen.Snapshot(), "the Type something row does not show empty")
	}
	// Typing changes the form as Enter does (see readyToCommit).
	blank := func(fm *screen.Form) bool { return fm.Other != nil && fm.Other.Placeholder }
	if _, err := r.readyToCommit(ctx, "type", other, blank, "the focus on the empty Type something row"); err != nil {
		return err
	}
	shows := r.focusedOn(other, func(fm *screen.Form) bool {
		return fm.Other != nil && !fm.Other.Placeholder && sameTyped(fm.Other.Text, text, fm.MarksJoin)
	})
	// The text goes in one write, again only while the row shows empty; a
	// late first copy doubles the text, which the check before Enter catches.
	empty := r.focusedOn(other, func(fm *screen.Form) bool { return fm.Other != nil && fm.Other.Placeholder })
	if _, err := r.press(ctx, "type", text, fm.Focus.String(), true, shows, empty); err != nil {
		return err
	}
	return r.enter(ctx, other, func(fm *screen.Form) bool {
		return fm.Other != nil && !fm.Other.Placeholder && sameTyped(fm.Other.Text, text, fm.MarksJoin)
	})
}

// sameTyped compares text claudewrap typed (an answer, notes, a message,
// a dialog's text) with what the screen shows of it, white space aside and
// spacing marks where the screen gives them no cell (marksJoin; see
// screen.SquashTypedOn). Text holding what the screen cannot show at all
// (a skin tone, a ZWJ sequence, an invisible character) never matches.
func sameTyped(shown, typed string, marksJoin bool) bool {
	return squashTyped(shown, marksJoin) == squashTyped(typed, marksJoin)
}

// squashTyped is s as sameTyped compares it.
func squashTyped(s string, marksJoin bool) string { return screen.SquashTypedOn(s, marksJoin) }
