package askflow

import (
	"context"

	"github.com/claudewrap/claudewrap/screen"
)

func (r *runner) typeAnswer(ctx context.Context, text string) error {
	other := screen.OtherPosition(r.cfg.Questions[r.q])
	fm, err := r.moveTo(ctx, other)
	if err != nil {
		return err
	}
	if fm.Other == nil || !fm.Other.Placeholder {
		return r.fail("type", r.cfg.Screen.Snapshot(), "the Type something row does not show empty")
	}
	// Typing changes the form like Enter does: not before the guard's
	// wait, and on the form still there after it (see confirmAfterGuard).
	blank := func(fm *screen.Form) bool { return fm.Other != nil && fm.Other.Placeholder }
	if _, err := r.readyToCommit(ctx, "type", other, blank, "the focus on the empty Type something row"); err != nil {
		return err
	}
	shows := r.focusedOn(other, func(fm *screen.Form) bool {
		return fm.Other != nil && !fm.Other.Placeholder && sameTyped(fm.Other.Text, text, fm.MarksJoin)
	})
	// The text goes in one write. It is sent again only while the row
	// still shows empty: a late first copy then doubles the text, which the
	// check before Enter catches.
	empty := r.focusedOn(other, func(fm *screen.Form) bool { return fm.Other != nil && fm.Other.Placeholder })
	if _, err := r.press(ctx, "type", text, fm.Focus.String(), true, shows, empty); err != nil {
		return err
	}
	return r.enter(ctx, other, func(fm *screen.Form) bool {
		return fm.Other != nil && !fm.Other.Placeholder && sameTyped(fm.Other.Text, text, fm.MarksJoin)
	})
}

// sameTyped compares text claudewrap typed (an answer, notes, a message,
// a dialog's text) with what the screen shows of it, where only white space
// does not count, nor spacing marks on a screen that gives them no cell
// (marksJoin: 2.1.321 and older; screen.SquashTypedOn). What else
// screen.Squash leaves out (a skin tone, an emoji joined by ZWJ, a
// combining accent, a variation selector, an invisible character such as a
// soft hyphen) has no cell or is drawn as U+FFFD, so the screen cannot
// confirm that it reached Claude: text holding any is never confirmed, and
// nothing that would commit it is pressed.
func sameTyped(shown, typed string, marksJoin bool) bool {
	return squashTyped(shown, marksJoin) == squashTyped(typed, marksJoin)
}

func squashTyped(s string, marksJoin bool) string { return screen.SquashTypedOn(s, marksJoin) }
