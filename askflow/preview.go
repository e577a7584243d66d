package askflow

import (
	"context"
	"fmt"
	"slices"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// typeNotes types the notes of the focused option: n opens them, the text
// goes in one write, and Esc closes them, keeping the text; each step is
// confirmed on the screen. Esc is never sent twice: a second one would
// cancel the form.
func (r *runner) typeNotes(ctx context.Context, target int, text string) error {
	shows := func(ok func(p *screen.Preview) bool) func(vt.Snapshot) bool {
		return r.focusedOn(target, func(fm *screen.Form) bool { return fm.Preview != nil && ok(fm.Preview) })
	}
	// Open notes may push the focused row off a short screen; the focus
	// cannot move while they are open, and is confirmed again once closed.
	editing := func(ok func(p *screen.Preview) bool) func(vt.Snapshot) bool {
		focused := shows(ok)
		return func(s vt.Snapshot) bool {
			if focused(s) {
				return true
			}
			fm, err := screen.Recognize(s)
			return err == nil && fm.Cut && fm.Focus.Kind == screen.FocusUnknown && !slices.ContainsFunc(fm.Options,
				func(o screen.Option) bool { return o.Focused }) && r.agrees(fm) && ok(fm.Preview)
		}
	}
	open := editing(func(p *screen.Preview) bool { return p.Editing && p.Notes == "" })
	closed := shows(func(p *screen.Preview) bool { return !p.Editing && p.Notes == "" })
	typed := editing(func(p *screen.Preview) bool { return p.Editing && p.Notes != "" })
	done := r.focusedOn(target, func(fm *screen.Form) bool {
		return fm.Preview != nil && !fm.Preview.Editing && sameTyped(fm.Preview.Notes, text, fm.MarksJoin)
	})
	// n changes the form as Enter does (see readyToCommit).
	empty := func(fm *screen.Form) bool { return fm.Preview != nil && !fm.Preview.Editing && fm.Preview.Notes == "" }
	if _, err := r.readyToCommit(ctx, "notes", target, empty, fmt.Sprintf("option %d focused, with no notes", target+1)); err != nil {
		return err
	}
	if _, err := r.press(ctx, "notes", keyNotes, fmt.Sprintf("option %d", target+1), true, open, closed); err != nil {
		return err
	}
	// Typed again only while nothing shows; a late first copy makes the
	// notes differ, which the check after Esc catches.
	if _, err := r.press(ctx, "notes", text, "notes", true, typed, open); err != nil {
		return err
	}
	_, err := r.press(ctx, "notes", keyEsc, "notes", false, done, func(vt.Snapshot) bool { return false })
	return err
}
