package askflow

import (
	"context"
	"fmt"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// cancel cancels the form with Esc.
func (r *runner) cancel(ctx context.Context) error {
	fm, s, ok := r.awaitForm(ctx, r.cfg.FormTimeout, func(fm *screen.Form) bool {
		return fm.Review != nil || r.agrees(fm)
	})
	if !ok {
		return r.fail("cancel", s, "the form never showed as the hook describes it%s", describeDisagreement(s, r))
	}
	gone := func(s vt.Snapshot) bool {
		_, err := screen.Recognize(s)
		return err != nil || r.recorded()
	}
	showing := func(s vt.Snapshot) bool { return !gone(s) }
	// A second Esc is safe: cancelling is never a wrong answer.
	_, err := r.press(ctx, "cancel", keyEsc, fm.Focus.String(), true, gone, showing)
	return err
}

// chat presses "Chat about this". The message follows with [Message] once
// Claude's turn has ended.
func (r *runner) chat(ctx context.Context) error {
	chat := screen.ChatPosition(r.cfg.Questions[r.q])
	on := fmt.Sprintf("the focus on %q", "Chat about this")
	s, err := r.readyToCommit(ctx, "chat", chat, nil, on)
	if err != nil {
		return err
	}
	if r.unsettled {
		return r.fail("chat", s, "focus is not settled on %q", "Chat about this")
	}
	gone := func(s vt.Snapshot) bool {
		_, err := screen.Recognize(s)
		return err != nil || r.recorded()
	}
	_, err = r.press(ctx, "chat", keyEnter, focusOf(s), false, gone, r.focusedOn(chat, nil))
	if err == nil || ctx.Err() != nil {
		return err
	}
	// A dropped Enter (see enter) goes again: a late first copy lands on
	// Claude's empty prompt, which ignores it.
	if now := r.cfg.Screen.Snapshot(); now.Seq != s.Seq || !r.focusedOn(chat, nil)(now) {
		return err
	}
	moved, err := r.guardAfterDrop(ctx, "chat", gone, r.focusedOn(chat, nil), on)
	if err != nil || moved {
		return err
	}
	r.unsettled = true
	_, err = r.press(ctx, "chat", keyEnter, focusOf(s), false, gone, r.focusedOn(chat, nil))
	return err
}
