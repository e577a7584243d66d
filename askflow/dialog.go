package askflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// DialogConfig is how [Choose] presses keys in a dialog.
type DialogConfig struct {
	Screen Screen
	Keys   Keys
	// StepTimeout bounds the wait for one key's effect (default 3s);
	// Retries is how often an arrow with no visible effect is sent again
	// (default 2).
	StepTimeout time.Duration
	Retries     int
	// OnKey, if set, is called after each key's effect was seen (or not).
	OnKey func(KeyEvent)
	// Shown is when the dialog was first seen on the screen ([PressKey]
	// waits keyDialogAge from it); zero: now.
	Shown time.Time
}

func (cfg DialogConfig) withDefaults() DialogConfig {
	timings(nil, &cfg.StepTimeout, &cfg.Retries)
	return cfg
}

// Choose picks the option labelled label in the dialog d on the screen
// (the trust dialog, a permission prompt, plan approval), the way Run
// answers a form: one arrow key at a time, each confirmed by the pointer
// moving one row; Enter only with the pointer on that option, and only
// while the screen still shows d; then it waits for d to go. When the
// screen shows anything else (the dialog changed under it, a key had no
// effect), it presses nothing more and returns an *Error.
func Choose(ctx context.Context, cfg DialogConfig, d screen.Dialog, label string) (keys int, err error) {
	return ChooseText(ctx, cfg, d, label, "")
}

// ChooseText is Choose for an option that takes text in place of its label
// (plan approval's "Tell Claude what to change"): with the pointer on it,
// text goes in one write, and Enter comes only once that row shows the
// text (as sameTyped compares it) and the rest of the dialog is unchanged.
// An empty text is Choose.
func ChooseText(ctx context.Context, cfg DialogConfig, d screen.Dialog, label, text string) (keys int, err error) {
	cfg = cfg.withDefaults()
	text = OneLine(text)
	fail := func(step, reason string) error {
		return &Error{Step: step, Reason: reason, Keys: keys, Last: cfg.Screen.Snapshot()}
	}
	target := d.Find(label)
	if target < 0 {
		return 0, fail("choose", fmt.Sprintf("no option %q in the dialog (%s)", label, strings.Join(d.Options, " / ")))
	}
	// Claude may draw a dialog again from scratch just after it first
	// shows, its pointer back on the first row: nothing is pressed before
	// the screen has been still a moment.
	cur, ok := settledDialog(ctx, cfg)
	if !ok || !cur.Same(d) {
		return 0, fail("agree", "the dialog is no longer on the screen")
	}
	for cur.Focus != target {
		key, want := keyDown, cur.Focus+1
		if cur.Focus > target {
			key, want = keyUp, cur.Focus-1
		}
		next, err := pressDialog(ctx, cfg, &keys, key, cur, func(sn vt.Snapshot) (screen.Dialog, bool) {
			nd, ok := screen.ParseDialog(sn)
			return nd, ok && nd.Same(d) && nd.Focus == want
		})
		if err != nil {
			return keys, err
		}
		cur = next
	}
	// Enter: the screen, still a moment, must show d with the pointer on
	// the option.
	now, ok := settledDialog(ctx, cfg)
	if !ok || !now.Same(d) || now.Focus != target {
		return keys, fail("confirm", fmt.Sprintf("the pointer is not on %q any more", label))
	}
	shown := now
	if text != "" {
		// The row shows the text in place of its label, and the hint that
		// followed the label, if any ("shift+tab to approve with this
		// feedback"): exactly that.
		want := text + strings.TrimPrefix(d.Options[target], label)
		shows := func(sn vt.Snapshot) (screen.Dialog, bool) {
			nd, ok := screen.ParseDialog(sn)
			return nd, ok && nd.Focus == target && sameBut(nd, d, target) && sameTyped(nd.Options[target], want, sn.MarksJoin)
		}
		if _, err := typeDialog(ctx, cfg, &keys, text, cur, shows); err != nil {
			return keys, err
		}
		now, ok := settledDialog(ctx, cfg)
		if _, still := shows(cfg.Screen.Snapshot()); !ok || !still {
			return keys, fail("type", "the row does not show the text typed")
		}
		shown = now
	}
	_, err = pressDialog(ctx, cfg, &keys, keyEnter, shown, func(sn vt.Snapshot) (screen.Dialog, bool) {
		nd, ok := screen.ParseDialog(sn)
		return nd, !ok || !nd.Same(shown)
	})
	return keys, err
}

// sameBut reports whether a and b are one dialog, the option at i aside.
func sameBut(a, b screen.Dialog, i int) bool {
	if a.Kind != b.Kind || a.Title != b.Title || a.Prompt != b.Prompt || len(a.Options) != len(b.Options) {
		return false
	}
	for j := range a.Options {
		if j != i && a.Options[j] != b.Options[j] {
			return false
		}
	}
	return true
}

// typeDialog types text in one write, once: a text sent twice would show
// twice, so it is never sent again.
func typeDialog(ctx context.Context, cfg DialogConfig, keys *int, text string, before screen.Dialog,
	done func(vt.Snapshot) (screen.Dialog, bool)) (screen.Dialog, error) {
	return dialogKey(ctx, cfg, keys, text, "text", 1, before, done, func() error {
		return &Error{Step: "type", Reason: "the typed text did not show in the dialog", Keys: *keys, Last: cfg.Screen.Snapshot()}
	})
}

// dialogQuiet is how long the screen must not change before a dialog is
// taken as drawn for good.
const dialogQuiet = 300 * time.Millisecond

// settledDialog waits (at most StepTimeout) until the screen has not
// changed for dialogQuiet, and reads the dialog on it.
func settledDialog(ctx context.Context, cfg DialogConfig) (screen.Dialog, bool) {
	deadline := time.Now().Add(cfg.StepTimeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		seq := cfg.Screen.Snapshot().Seq
		qctx, cancel := context.WithTimeout(ctx, dialogQuiet)
		_, err := cfg.Screen.Wait(qctx, func(sn vt.Snapshot) bool { return sn.Seq != seq })
		cancel()
		if err != nil {
			break // still for dialogQuiet, or ctx ended
		}
	}
	return screen.ParseDialog(cfg.Screen.Snapshot())
}

// pressDialog sends key once (Enter is never sent again: it commits) or up
// to 1+Retries times for an arrow, until the screen shows done.
func pressDialog(ctx context.Context, cfg DialogConfig, keys *int, key string, before screen.Dialog,
	done func(vt.Snapshot) (screen.Dialog, bool)) (screen.Dialog, error) {
	tries, step := 1+cfg.Retries, "move"
	if key == keyEnter {
		tries, step = 1, "commit"
	}
	return dialogKey(ctx, cfg, keys, key, keyNames[key], tries, before, done, func() error {
		return &Error{Step: step, Reason: fmt.Sprintf("%s had no visible effect on the dialog", keyNames[key]),
			Keys: *keys, Last: cfg.Screen.Snapshot()}
	})
}

// dialogKey presses key, named name for OnKey, at most tries times until
// done, which reads the dialog from the screen, holds; fail is the error
// when it never does. A key that may go again goes only while the dialog
// is the one it was, its focus unmoved. It returns the dialog done read
// last.
func dialogKey(ctx context.Context, cfg DialogConfig, keys *int, key, name string, tries int, before screen.Dialog,
	done func(vt.Snapshot) (screen.Dialog, bool), fail func() error) (screen.Dialog, error) {
	var got screen.Dialog
	var waitErr error
	p := keyPress{
		tries: tries,
		send: func() error {
			if err := cfg.Keys.SendKeys([]byte(key)); err != nil {
				return err
			}
			*keys++
			return nil
		},
		await: func() (vt.Snapshot, bool) {
			wctx, cancel := context.WithTimeout(ctx, cfg.StepTimeout)
			defer cancel()
			var snap vt.Snapshot
			snap, waitErr = cfg.Screen.Wait(wctx, func(sn vt.Snapshot) bool {
				var ok bool
				got, ok = done(sn)
				return ok
			})
			return snap, waitErr == nil
		},
		report: func(s vt.Snapshot, _ bool) {
			if cfg.OnKey != nil {
				after, _ := screen.ParseDialog(s)
				cfg.OnKey(KeyEvent{Key: name, Before: focusName(before), After: focusName(after)})
			}
		},
		unseen: func(s vt.Snapshot, _ int) (vt.Snapshot, bool, error) {
			if ctx.Err() != nil {
				return s, false, ErrInterrupted
			}
			if tries > 1 && errors.Is(waitErr, context.DeadlineExceeded) {
				if now, ok := screen.ParseDialog(cfg.Screen.Snapshot()); !ok || !now.Same(before) || now.Focus != before.Focus {
					return s, false, fail()
				}
			}
			return s, false, nil
		},
		fail: func(vt.Snapshot) error { return fail() },
	}
	_, err := p.run()
	return got, err
}

func focusName(d screen.Dialog) string {
	if d.Focus < 0 || d.Focus >= len(d.Options) {
		return ""
	}
	return d.Options[d.Focus]
}

// OneLine is text as a dialog's one-line field takes it: a line break
// would be Enter, so white space runs become single spaces.
func OneLine(text string) string { return strings.Join(strings.Fields(text), " ") }

// hintKeys are the keys a dialog's hints name that PressKey can press, by
// their name as Claude writes them (compared without regard to case).
var hintKeys = map[string]string{"enter": keyEnter, "esc": keyEsc, "tab": keyTab, "shift+tab": keyBackTab, "space": keySpace}

// keyDialogAge is how long a dialog answered by a key of its hints must
// have been on the screen before the key: Claude Code 2.1.332 drops
// auto mode's shift+Tab within 600 ms of the dialog's paint, and takes it
// after a second.
const keyDialogAge = 1200 * time.Millisecond

// PressKey presses one of the keys the dialog d names in its hints
// ("Enter to stay in auto mode", "shift+Tab to leave …") once the screen,
// still a moment, shows d; then it waits for d to go. The key is pressed
// once: it commits. When the screen shows anything else first, or the key
// is not one d names, it presses nothing and returns an *Error.
func PressKey(ctx context.Context, cfg DialogConfig, d screen.Dialog, key string) (keys int, err error) {
	cfg = cfg.withDefaults()
	fail := func(step, reason string) error {
		return &Error{Step: step, Reason: reason, Keys: keys, Last: cfg.Screen.Snapshot()}
	}
	k, named := d.Key(key)
	seq, known := hintKeys[strings.ToLower(key)]
	if !named || !known {
		return 0, fail("choose", fmt.Sprintf("no key %q among the dialog's hints (%s)", key, d.Footer))
	}
	shown := cfg.Shown
	if shown.IsZero() {
		shown = time.Now()
	}
	t := time.NewTimer(time.Until(shown.Add(keyDialogAge)))
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return 0, ErrInterrupted
	}
	cur, ok := settledDialog(ctx, cfg)
	if !ok || !cur.Same(d) {
		return 0, fail("agree", "the dialog is no longer on the screen")
	}
	_, err = dialogKey(ctx, cfg, &keys, seq, k.Key, 1, cur, func(sn vt.Snapshot) (screen.Dialog, bool) {
		nd, ok := screen.ParseDialog(sn)
		return nd, !ok || !nd.Same(cur)
	}, func() error {
		return &Error{Step: "commit", Reason: fmt.Sprintf("%s had no visible effect on the dialog", k.Key), Keys: keys, Last: cfg.Screen.Snapshot()}
	})
	return keys, err
}
