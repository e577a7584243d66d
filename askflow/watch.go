package askflow

import (
	"context"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// What the session asks of the screen around a form, so that it need not
// read screens itself.

// FormShown reports whether a question form is on the screen.
func FormShown(s vt.Snapshot) bool {
	_, err := screen.Recognize(s)
	return err == nil
}

// Showing reports whether the form on the screen is the one asking qs:
// one of its question pages, or a review page listing its questions.
func Showing(s vt.Snapshot, qs []answer.Question) bool {
	fm, err := screen.Recognize(s)
	if err != nil {
		return false
	}
	if fm.Review == nil {
		for i := range qs {
			if fm.Shows(qs, i) {
				return true
			}
		}
		return false
	}
	rv := fm.Review
	if len(rv.Answers) > len(qs) || (!fm.Cut && len(rv.Answers) != len(qs)) {
		return false
	}
	first := len(qs) - len(rv.Answers)
	for k, a := range rv.Answers {
		// Exactly, not as the review check reads it (sameText): what a row
		// lost would make two forms' questions that differ only there alike.
		if screen.Squash(a.Question) != screen.Squash(qs[first+k].Question) {
			return false
		}
	}
	return true
}

// Untouched reports whether the screen still shows the form asking qs on
// its first question page: the person has not answered or left it.
func Untouched(s vt.Snapshot, qs []answer.Question) bool {
	fm, err := screen.Recognize(s)
	return err == nil && len(qs) > 0 && fm.Review == nil && len(fm.Disagreements(qs[0])) == 0
}

// NotesOpen reports whether the form asking qs shows a preview question
// with its notes open for typing: there, Esc closes the notes, not the
// form.
func NotesOpen(s vt.Snapshot, qs []answer.Question) bool {
	fm, err := screen.Recognize(s)
	return err == nil && Showing(s, qs) && fm.Preview != nil && fm.Preview.Editing
}

// NotesClosed reports whether the form asking qs shows a preview question
// with its notes closed.
func NotesClosed(s vt.Snapshot, qs []answer.Question) bool {
	fm, err := screen.Recognize(s)
	return err == nil && Showing(s, qs) && fm.Preview != nil && !fm.Preview.Editing
}

// InsertMode reports whether the form asking qs shows "Type something"
// typed in vim's insert mode, where Esc leaves the mode and cancels
// nothing.
func InsertMode(s vt.Snapshot, qs []answer.Question) bool {
	fm, err := screen.Recognize(s)
	return err == nil && Showing(s, qs) && fm.Insert
}

// InsertLeft reports whether the form asking qs shows a question page out
// of vim's insert mode.
func InsertLeft(s vt.Snapshot, qs []answer.Question) bool {
	fm, err := screen.Recognize(s)
	return err == nil && Showing(s, qs) && fm.Review == nil && !fm.Insert
}

// Dismiss cancels the form on the screen with Esc, the one key that cannot
// commit anything. It is what is left when a form cannot be driven and
// nobody is there to take it; the caller makes sure the form is the one it
// means (see [Showing]): Esc elsewhere would interrupt Claude's work.
func Dismiss(k Keys) error { return k.SendKeys([]byte(keyEsc)) }

// AwaitPrompt waits until Claude's own prompt shows and the screen has then
// not changed for quiet (see awaitStill), or ctx ends.
func AwaitPrompt(ctx context.Context, s Screen, quiet time.Duration) error {
	_, err := awaitStill(ctx, s, quiet, func(sn vt.Snapshot) bool { _, ok := screen.Prompt(sn); return ok })
	return err
}

// AwaitIdle waits until Claude waits at its prompt, its turn over: the
// input box shows with no turn running under it (screen.Working), and the
// screen has then not changed for quiet; or ctx ends.
func AwaitIdle(ctx context.Context, s Screen, quiet time.Duration) error {
	_, err := awaitStill(ctx, s, quiet, func(sn vt.Snapshot) bool {
		_, ok := screen.Prompt(sn)
		return ok && !screen.Working(sn)
	})
	return err
}

// awaitStill waits for a screen that satisfies cond and then does not
// change for quiet, or until ctx ends; it returns the last screen seen.
// What Claude draws after the person's mouse pointer is no change (see
// screen.SameBesidePointer), or a moving pointer would keep the screen
// from ever being still.
func awaitStill(ctx context.Context, s Screen, quiet time.Duration, cond func(vt.Snapshot) bool) (vt.Snapshot, error) {
	for {
		sn, err := s.Wait(ctx, cond)
		if err != nil {
			return sn, err
		}
		qctx, cancel := context.WithTimeout(ctx, quiet)
		_, err = s.Wait(qctx, func(n vt.Snapshot) bool { return n.Seq != sn.Seq && !screen.SameBesidePointer(sn, n) })
		cancel()
		switch {
		case ctx.Err() != nil:
			return sn, ctx.Err()
		case err != nil:
			return sn, nil // still for quiet
		}
	}
}
