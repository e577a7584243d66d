package askflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
)

// Screen is the emulated screen askflow reads.
type Screen interface {
	Snapshot() screen.Snapshot
	Wait(ctx context.Context, ok func(screen.Snapshot) bool) (screen.Snapshot, error)
}

// Keys sends keys to Claude.
type Keys interface {
	SendKeys(p []byte) error
}

// Redrawer is a [Screen] that can have Claude redraw it in full (by nudging
// the terminal's size). askflow asks for it (at most twice per question) when the screen
// never shows what it waits for: Claude's renderer sometimes leaves stale
// or split characters that a redraw clears.
type Redrawer interface {
	Redraw() error
}

// Grower is a [Screen] whose terminal askflow may make taller: headless,
// where no person's terminal holds the size. A page taller than the screen
// loses its top, and an option up there never shows, focused or not (see
// runner.offTop); the page, at first or after a key, can even leave no
// form in sight (see runner.formOutOfSight).
// On a screen tall enough they show. SetRows sets the rows, the width
// kept, and returns once Claude has drawn at that size (or a second has
// passed); askflow confirms the page again either way, and gives the rows
// back when the form is done.
type Grower interface {
	SetRows(rows int) error
}

// MaxRows bounds how tall a terminal is made for a form that does not fit
// it (see [Grower]); the session keeps to it too.
const MaxRows = 200

// KeyEvent reports one key sent, with the focus before and after it.
type KeyEvent struct {
	Question int // 1-based
	Key      string
	Before   string
	After    string // "" when the wait for the key's effect was cut short
	// Seen says the key's intended effect showed on the screen.
	Seen bool
}

// Config is one form to answer.
type Config struct {
	Screen Screen
	Keys   Keys
	// Questions are the hook's questions, in order.
	Questions []answer.Question
	// Decisions holds one decision per question.
	Decisions []answer.Decision

	// FormTimeout bounds the wait for the form to appear and agree with
	// Questions (default 20s); StepTimeout bounds the wait for one key's
	// effect (default 3s); Retries is how often a key with no visible
	// effect is sent again (default 2).
	FormTimeout time.Duration
	StepTimeout time.Duration
	Retries     int

	// Walk, if set, answers by arrows, Enter and Tab alone, never by an
	// option's number (see numberKey). The session sets it while a person
	// is on Claude's screen: an arrow of claudewrap's in flight when they
	// type can be taken back, a number (which commits) cannot. Tests of
	// the walk set it too.
	Walk bool

	// OnKey, if set, is called after each key's effect was seen (or not).
	OnKey func(KeyEvent)

	// LastKey, if set, says when a key last went to Claude, from anyone:
	// claudewrap or the person. A form first seen with no key in the
	// [keysQuiet] before it cannot be one Claude guards against keys typed
	// ahead, so its first Enter (or n, or typed text) need not wait (see
	// [formAge]). Unset, every form is taken as guarded.
	LastKey func() time.Time

	// LastAsked, if set, says when Claude last asked a form other than
	// this one (its PreToolUse arrived). A form asked alongside another is
	// taken as guarded, whatever the keys: Claude Code 2.1.197 was seen to
	// take an Enter pressed 50 ms after such a form's first paint (the
	// chosen row ticked) and then never record it nor draw anything again.
	// Its first Enter (or n, a number, or typed text) then waits formAge
	// from the form's first sight and siblingAge from that other form's
	// arrival: the wait leaves time for Claude to swap in the other form,
	// which some versions paint over this one hundreds of milliseconds
	// later, where a key meant for this one would land.
	LastAsked func() time.Time

	// Elsewhere, if set, reports whether the screen shows another form
	// asked with this one instead of this one. Claude Code 2.1.197 and
	// 2.1.266 may show forms asked together in any order, and swap one
	// for another just after painting it. Until a key other than a move
	// went to this form, Run then stops with an error that wraps
	// ErrElsewhere: the other form can be answered first, and this one
	// driven again once it shows. After such a key, the form is no longer
	// the same as when it was first seen, and Run fails as for any screen
	// that does not confirm a step.
	Elsewhere func(screen.Snapshot) bool

	// Recorded, if set, is closed when Claude has recorded the form (its
	// PostToolUse arrived): the last Enter took effect, whatever the
	// screen shows next. Claude may draw its next form at once in the same
	// place, and one just like it would look like this form with its focus
	// moved.
	Recorded <-chan struct{}
}

// Outcome is how the form ended.
type Outcome int

// Outcomes.
const (
	Submitted Outcome = iota + 1
	Chatted
	Cancelled
)

var outcomeNames = map[Outcome]string{Submitted: "submitted", Chatted: "chatted", Cancelled: "cancelled"}

func (o Outcome) String() string { return outcomeNames[o] }

// Result is what Run achieved.
type Result struct {
	Outcome Outcome
	Keys    int // keys sent
}

// Error is a navigation failure: the screen did not confirm a step. No key
// was sent after the failing one.
type Error struct {
	Question int    // 1-based; 0 for the form as a whole
	Step     string // what was being done
	Reason   string
	Keys     int // keys sent before giving up
	Last     screen.Snapshot
	// Elsewhere is set when another form showed instead of this one
	// before anything but a move was pressed (see [Config.Elsewhere]).
	Elsewhere bool
	// Away is set when Claude's sessions view showed instead of the form
	// (see [ErrAway]).
	Away bool
}

// Unwrap gives ErrElsewhere for an error that has Elsewhere set, ErrAway
// for one that has Away.
func (e *Error) Unwrap() error {
	switch {
	case e.Elsewhere:
		return ErrElsewhere
	case e.Away:
		return ErrAway
	}
	return nil
}

func (e *Error) Error() string {
	q := ""
	if e.Question > 0 {
		q = fmt.Sprintf("question %d: ", e.Question)
	}
	return fmt.Sprintf("%s%s: %s (after %d keys); last screen:\n%s", q, e.Step, e.Reason, e.Keys, e.Last.Text())
}

// ErrInterrupted is returned when ctx ends while answering, e.g. because
// the person took the form over.
var ErrInterrupted = errors.New("answering interrupted")

// ErrElsewhere is wrapped by the error Run returns when another form
// showed instead of this one while only moves had been pressed (see
// [Config.Elsewhere]).
var ErrElsewhere = errors.New("another form asked with this one is on the screen")

// ErrAway is wrapped by the error Run returns when Claude's sessions view
// showed instead of the form (screen.SessionsView): the person moved the
// conversation to the background (← at Claude's prompt), and the form
// waits in the view's list, off the screen. Run stops at once, with no
// further key: any key would act on the view.
var ErrAway = errors.New("the conversation is in the background (Claude's sessions view): the form waits there, off the screen")

// Run answers the form. It returns an *Error when the screen did not
// confirm a step, or ErrInterrupted when ctx ended first.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if len(cfg.Questions) == 0 || len(cfg.Questions) != len(cfg.Decisions) {
		return Result{}, &Error{Step: "start", Reason: fmt.Sprintf("%d questions, %d decisions", len(cfg.Questions), len(cfg.Decisions))}
	}
	r := &runner{cfg: withDefaults(cfg), onlyMoves: true}
	out, err := r.run(ctx)
	if r.rows > 0 {
		// Give the terminal its rows back; Claude redraws at that size. It
		// fails only once Claude has exited, and then the answer stands.
		_ = r.cfg.Screen.(Grower).SetRows(r.rows)
	}
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	return Result{Outcome: out, Keys: r.keys}, err
}

func withDefaults(cfg Config) Config {
	if cfg.FormTimeout <= 0 {
		cfg.FormTimeout = 20 * time.Second
	}
	if cfg.StepTimeout <= 0 {
		cfg.StepTimeout = 3 * time.Second
	}
	if cfg.Retries <= 0 {
		cfg.Retries = 2
	}
	return cfg
}
