package askflow

import (
	"context"
	"time"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// awaitForm waits up to d for a recognised form satisfying ok. When none
// comes, it asks Claude for one full redraw (see [Redrawer]) and waits
// once more.
func (r *runner) awaitForm(ctx context.Context, d time.Duration, ok func(*screen.Form) bool) (*screen.Form, vt.Snapshot, bool) {
	var got *screen.Form
	check := func(s vt.Snapshot) bool {
		fm, err := screen.Recognize(s)
		if err != nil || !ok(fm) {
			return false
		}
		got = fm
		return true
	}
	s, found := r.wait(ctx, d, check)
	if found || ctx.Err() != nil || r.halted() || !r.redraw() {
		return got, s, found
	}
	s, found = r.wait(ctx, d, check)
	return got, s, found
}

// maxRedraws bounds the redraws per question: Claude Code 2.1.197 can
// garble a preview page on each key that changes its preview's height, so
// one is not always enough.
const maxRedraws = 2

// redraw has Claude redraw its screen, if the screen can, at most
// maxRedraws times per question.
func (r *runner) redraw() bool {
	rd, ok := r.cfg.Screen.(Redrawer)
	if !ok || r.redraws >= maxRedraws {
		return false
	}
	r.redraws++
	return rd.Redraw() == nil
}
