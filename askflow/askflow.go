package askflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/vt"
)

// Screen is the emulated screen askflow reads.
type Screen interface {
	Snapshot() vt.Snapshot
	Wait(ctx context.Context, ok func(vt.Snapshot) bool) (vt.Snapshot, error)
}

// Keys sends keys to Claude.
type Keys interface {
	SendKeys(p []byte) error
}

// Redrawer is a [Screen] that can have Claude redraw it in full (by nudging
// the terminal's size). askflow asks for a redraw, at most twice per
// question, when the screen never shows what it waits for: Claude's
// renderer sometimes leaves stale or split characters behind.
type Redrawer interface {
	Redraw() error
}

// Grower is a [Screen] whose terminal askflow may make taller: headless,
// where no person's terminal holds the size. A page taller than the screen
// loses its top, where an option can never be confirmed, and may leave no
// form in sight at all. SetRows keeps the width and returns once Claude has
// drawn at the new size (or a second has passed); askflow gives the rows
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
	// Decisions holds one decision per question, or for the first few
	// questions only: Run then answers those and stops on the page of the
	// next, untouched, for the person (outcome [Stopped]).
	Decisions []answer.Decision

	// FormTimeout bounds the wait for the form to appear and agree with
	// Questions (default 20s); StepTimeout bounds the wait for one key's
	// effect (default 3s); Retries is how often a key with no visible
	// effect is sent again (default 2).
	FormTimeout time.Duration
	StepTimeout time.Duration
	Retries     int

	// Walk, if set, answers by arrows, Enter and Tab alone, never by an
	// option's number. The session sets it while a person is on Claude's
	// screen: an arrow in flight when they type can be taken back, a
	// number (which commits) cannot.
	Walk bool

	// OnKey, if set, is called after each key's effect was seen (or not).
	OnKey func(KeyEvent)

	// LastKey, if set, says when a key last went to Claude, from anyone.
	// A form first seen with no key in the second before it is not one
	// Claude guards against keys typed ahead, so its first Enter need not
	// wait. Unset, every form is taken as guarded.
	LastKey func() time.Time

	// LastAsked, if set, says when Claude last asked a form other than
	// this one (its PreToolUse arrived). A form asked alongside another is
	// taken as guarded, and its first key that commits waits a second
	// from that other form's arrival: Claude may yet paint the other form
	// over this one, where the key would land.
	LastAsked func() time.Time

	// Elsewhere, if set, reports whether the screen shows another form
	// asked with this one instead of this one (Claude shows forms asked
	// together in any order). While only moves went to this form, Run then
	// stops with an error that wraps [ErrElsewhere], so that the other
	// form can be answered first; after any other key it fails as for any
	// step the screen does not confirm.
	Elsewhere func(vt.Snapshot) bool

	// Recorded, if set, is closed when Claude has recorded the form (its
	// PostToolUse arrived): the last Enter took effect, whatever the screen
	// shows next, even a next form that looks like this one.
	Recorded <-chan struct{}
}

// Outcome is how the form ended.
type Outcome int

// Outcomes.
const (
	Submitted Outcome = iota + 1
	Chatted
	Cancelled
	// Stopped: the questions decided were answered, and the form shows
	// the first question left, nothing pressed on it.
	Stopped
)

var outcomeNames = map[Outcome]string{Submitted: "submitted", Chatted: "chatted", Cancelled: "cancelled", Stopped: "stopped"}

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
	Last     vt.Snapshot
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
	keys := fmt.Sprintf("%d keys", e.Keys)
	if e.Keys == 1 {
		keys = "1 key"
	}
	return fmt.Sprintf("%s%s: %s (after %s); last screen:\n%s", q, e.Step, e.Reason, keys, e.Last.Text())
}

// ErrInterrupted is returned when ctx ends while answering, e.g. because
// the person took the form over.
var ErrInterrupted = errors.New("answering interrupted")

// ErrElsewhere is wrapped by the error Run returns when another form
// showed instead of this one while only moves had been pressed (see
// [Config.Elsewhere]).
var ErrElsewhere = errors.New("another form asked with this one is on the screen")

// ErrAway is wrapped by the error Run returns when Claude's sessions view
// showed instead of the form: the person moved the conversation to the
// background, where the form waits off the screen. Run stops at once, as
// any key would act on the view.
var ErrAway = errors.New("the conversation is in the background (Claude's sessions view): the form waits there, off the screen")

// Run answers the form. It returns an *Error when the screen did not
// confirm a step, or ErrInterrupted when ctx ended first.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if len(cfg.Questions) == 0 || len(cfg.Decisions) == 0 || len(cfg.Decisions) > len(cfg.Questions) {
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
	timings(&cfg.FormTimeout, &cfg.StepTimeout, &cfg.Retries)
	return cfg
}

// timings sets askflow's defaults where a setting is unset: 20s for a form
// to show (form may be nil), 3s for a key's effect, two retries.
func timings(form, step *time.Duration, retries *int) {
	if form != nil && *form <= 0 {
		*form = 20 * time.Second
	}
	if *step <= 0 {
		*step = 3 * time.Second
	}
	if *retries <= 0 {
		*retries = 2
	}
}
