package askflow

import (
	"context"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
)

// messageQuiet is how long the screen must be still, Claude's prompt
// showing, before Message presses its first key: while Claude works its
// spinner moves, and a form drawn meanwhile would take the keys.
const messageQuiet = 250 * time.Millisecond

// Message types text into Claude's own prompt once it shows empty, confirms
// it there, and sends it with Enter. It is the second half of Chat: the
// caller sends the message when Claude's turn has ended.
//
// left is the message this session sent last, if any. Claude Code 2.1.197
// sometimes sends a message, echoes it above the prompt, and keeps its text
// in the prompt as well (stress seed 9737646259466774155, s035). The echo is
// what shows that a message went, and a prompt holding exactly left is
// claudewrap's own leftover: Ctrl-U clears it a line at a time, each
// confirmed, before text is typed. Any other text in the prompt is the
// person's: Message waits for it to go and never edits it.
func Message(ctx context.Context, cfg Config, text, left string) error {
	if answer.CheckChat(text) != nil || strings.TrimSpace(text) == "" {
		return &Error{Step: "message", Reason: "the message is empty or holds control characters"}
	}
	cfg = withDefaults(cfg)
	r := &runner{cfg: cfg, q: -1}
	// ofLeft: the prompt holds what is left of left after some Ctrl-Us.
	ofLeft := func(t string, join bool) bool {
		return left != "" && t != "" && strings.HasPrefix(squashTyped(left, join), squashTyped(t, join))
	}
	ready := func(s screen.Snapshot) bool {
		t, ok := screen.Prompt(s)
		return ok && (t == "" || sameTyped(t, left, s.MarksJoin))
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
		shorter := func(s screen.Snapshot) bool {
			u, ok := screen.Prompt(s)
			return ok && len(squashTyped(u, s.MarksJoin)) < was && (u == "" || ofLeft(u, s.MarksJoin))
		}
		unchanged := func(s screen.Snapshot) bool {
			u, ok := screen.Prompt(s)
			return ok && u == t
		}
		if !unchanged(r.cfg.Screen.Snapshot()) {
			return r.fail("message", r.cfg.Screen.Snapshot(), "Claude's prompt changed while claudewrap cleared its last message from it")
		}
		// Keys reach Claude in order: every Ctrl-U, a retried one too, is
		// handled before the text typed after them.
		if s, err = r.press(ctx, "message", keyKillLine, "prompt", true, shorter, unchanged); err != nil {
			return err
		}
	}
	empty := func(s screen.Snapshot) bool {
		t, ok := screen.Prompt(s)
		return ok && t == ""
	}
	if !empty(r.cfg.Screen.Snapshot()) {
		return r.fail("message", r.cfg.Screen.Snapshot(), "Claude's prompt stopped showing empty before the message was typed")
	}
	typed := func(s screen.Snapshot) bool {
		t, ok := screen.Prompt(s)
		return ok && sameTyped(t, text, s.MarksJoin)
	}
	s, err = r.press(ctx, "message", text, "prompt", false, typed, func(screen.Snapshot) bool { return false })
	if err != nil {
		return err
	}
	echoes := screen.Echoes(s, text)
	sent := func(s screen.Snapshot) bool {
		t, ok := screen.Prompt(s)
		return !ok || !sameTyped(t, text, s.MarksJoin) || screen.Echoes(s, text) > echoes
	}
	_, err = r.press(ctx, "message", keyEnter, "prompt", false, sent, typed)
	return err
}
