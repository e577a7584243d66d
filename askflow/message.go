package askflow

import (
	"context"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// messageQuiet is how long the screen must be still, Claude's prompt
// showing, before Message presses its first key, so that no keys go while
// Claude is still working.
const messageQuiet = 250 * time.Millisecond

// Message types text into Claude's own prompt once it shows empty on a
// still screen, confirms it there, and sends it with Enter; it counts as
// sent once the prompt stops holding it or Claude echoes it above. It is
// the second half of Chat, called once Claude's turn has ended.
//
// lastSent is the message this session sent last, if any: Claude Code
// 2.1.197 may keep a sent message in its prompt, and Message clears
// exactly that text with Ctrl-U, each key confirmed, before typing. Any
// other text in the prompt is the person's: Message never edits it.
func Message(ctx context.Context, cfg Config, text, lastSent string) error {
	if answer.CheckChat(text) != nil || strings.TrimSpace(text) == "" {
		return &Error{Step: "message", Reason: "the message is empty or holds control characters"}
	}
	cfg = withDefaults(cfg)
	r := &runner{cfg: cfg, q: -1}
	// leftover: the prompt holds what Ctrl-Us left of lastSent.
	leftover := func(t string, join bool) bool {
		return lastSent != "" && t != "" && strings.HasPrefix(squashTyped(lastSent, join), squashTyped(t, join))
	}
	ready := func(s vt.Snapshot) bool {
		t, ok := screen.Prompt(s)
		return ok && (t == "" || sameTyped(t, lastSent, s.MarksJoin))
	}
	wctx, cancel := context.WithTimeout(ctx, r.cfg.FormTimeout)
	s, err := awaitStill(wctx, r.cfg.Screen, messageQuiet, ready)
	cancel()
	if err != nil {
		if s.Cols == 0 {
			s = r.cfg.Screen.Snapshot()
		}
		return r.fail("message", s, "Claude's prompt never showed empty on a still screen")
	}
	for t, _ := screen.Prompt(s); t != ""; t, _ = screen.Prompt(s) {
		was := len(squashTyped(t, s.MarksJoin))
		shorter := func(s vt.Snapshot) bool {
			u, ok := screen.Prompt(s)
			return ok && len(squashTyped(u, s.MarksJoin)) < was && (u == "" || leftover(u, s.MarksJoin))
		}
		unchanged := func(s vt.Snapshot) bool {
			u, ok := screen.Prompt(s)
			return ok && u == t
		}
		if !unchanged(r.cfg.Screen.Snapshot()) {
			return r.fail("message", r.cfg.Screen.Snapshot(), "Claude's prompt changed while claudewrap cleared its last message from it")
		}
		// Keys reach Claude in order, so a retried Ctrl-U is handled before
		// the text typed after it.
		if s, err = r.press(ctx, "message", keyKillLine, "prompt", true, shorter, unchanged); err != nil {
			return err
		}
	}
	empty := func(s vt.Snapshot) bool {
		t, ok := screen.Prompt(s)
		return ok && t == ""
	}
	if !empty(r.cfg.Screen.Snapshot()) {
		return r.fail("message", r.cfg.Screen.Snapshot(), "Claude's prompt stopped showing empty before the message was typed")
	}
	typed := func(s vt.Snapshot) bool {
		t, ok := screen.Prompt(s)
		return ok && sameTyped(t, text, s.MarksJoin)
	}
	s, err = r.press(ctx, "message", text, "prompt", false, typed, func(vt.Snapshot) bool { return false })
	if err != nil {
		return err
	}
	echoes := screen.Echoes(s, text)
	sent := func(s vt.Snapshot) bool {
		t, ok := screen.Prompt(s)
		return !ok || !sameTyped(t, text, s.MarksJoin) || screen.Echoes(s, text) > echoes
	}
	_, err = r.press(ctx, "message", keyEnter, "prompt", false, sent, typed)
	return err
}
