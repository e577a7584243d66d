package askflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
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
// form in sight (see runner.lost).
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
	Elsewhere func(vt.Snapshot) bool

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

// Keys as a terminal sends them.
const (
	keyUp    = "\x1b[A"
	keyDown  = "\x1b[B"
	keyEnter = "\r"
	keyEsc   = "\x1b"
	keyNotes = "n"  // preview layout: open the notes of the focused option
	keyTab   = "\t" // the next page, keeping a multi-select question's ticks
	// Claude's prompt: delete from the cursor to the start of its line.
	keyKillLine = "\x15"
)

var keyNames = map[string]string{keyUp: "Up", keyDown: "Down", keyEnter: "Enter", keyEsc: "Esc", keyNotes: "n", keyTab: "Tab", keyKillLine: "Ctrl-U"}

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

type runner struct {
	cfg     Config
	keys    int
	q       int // 0-based index of the question being answered
	headers []string
	// unsettled is set when a key was sent again: its first copy may still
	// take effect.
	unsettled bool
	// onlyMoves holds while every key sent was a move (Up, Down): nothing
	// on the form has changed but its focus. elsewhere is set when
	// another form showed meanwhile (see Config.Elsewhere).
	onlyMoves bool
	elsewhere bool
	// away is set when a wait saw Claude's sessions view (see
	// screen.SessionsView): the form is off the screen, and no key goes.
	away    bool
	number  bool      // the key being pressed is an option's number (see numberKey)
	shown   time.Time // when the form was first seen agreeing with the hook
	guarded bool      // whether Claude may refuse an early Enter on it (see formAge)
	redraws int       // redraws asked for on this question (at most maxRedraws)
	// ticks holds, for the multi-select question being answered, each
	// option's tick as last seen on the screen.
	ticks map[int]bool
	// aboveTop counts the current question's options seen only above the
	// screen's top (a page taller than a short screen): never focused,
	// never pressed, so never ticked by us.
	aboveTop int
	// rows is the terminal's height before askflow made it taller (see
	// [Grower]), 0 while it has not; lostGrows counts the times it did so
	// on this question for a page that showed no form (see lost).
	rows      int
	lostGrows int
}

// formAge is how long a guarded form must have been on the screen before
// an Enter (and before n or typed text, which change the form too). Claude Code 2.1.266 and later refuse a dialog's Enter that comes
// within 150 ms of the dialog being painted (a guard against keys typed
// ahead; its constant is 150 in each of those versions' code), leaving no
// trace on the screen; the arrow keys before it work. Measured on 2.1.330
// in the soak, with the first Enter sent at random 0-300 ms after the form
// was first seen: every Enter sent 158 ms or later after was taken, most
// of those sent sooner than 150 ms were dropped (79 forms). The form is
// seen after it is painted, so 150 ms from then is enough; 50 ms more
// covers Claude's clock and ours.
//
// The guard is armed only for a dialog that opens within 150 ms of another
// closing (or while another is open): the dialog host of each of those
// versions stamps a dialog with the time it was shown only then, and
// refuses nothing on a dialog without the stamp. The first form of a turn
// is not guarded; one drawn as the answer to the form before it is.
const formAge = 200 * time.Millisecond

// siblingAge is how long after another form asked with this one arrived
// (its PreToolUse) a key that commits waits (see [Config.LastAsked]).
// Claude Code 2.1.197 shows the form asked last first, painting it over
// the one on the screen 90 ms after its hook when idle, and 200 ms after
// it with two sessions on two cores (stress seed 1764270000, s029: a tick
// for the form under it landed on it, a single-select, and picked its
// second option). Before this, formAge was the bound.
const siblingAge = time.Second

// keysQuiet is how long before a form is first seen no key may have gone
// to Claude for the form to be taken as unguarded. Dialogs close on keys:
// a guarded form opens within 150 ms of a close, is painted a moment
// later, and its guard ends 150 ms after that paint, so a second after
// the last key leaves 700 ms for Claude to act on that key and paint.
const keysQuiet = time.Second

// guarded says whether a form first seen at shown, the last key to Claude
// having gone at lastKey (zero: none), may be one whose Enter Claude
// refuses for a while (see formAge).
func guarded(shown, lastKey time.Time) bool {
	return !lastKey.IsZero() && shown.Sub(lastKey) < keysQuiet
}

// ripen waits, on a guarded form, until it has been shown for formAge
// (and, asked alongside another form, until that one was asked formAge
// ago: see [Config.LastAsked]).
func (r *runner) ripen(ctx context.Context) error {
	if r.shown.IsZero() {
		return nil
	}
	guard := r.guarded
	wait := time.Until(r.shown.Add(formAge))
	if r.cfg.LastAsked != nil {
		// The same bound as for a key: another form asked within
		// keysQuiet before this one was first seen, or after. Claude
		// may yet swap that one in: wait siblingAge from its arrival.
		if a := r.cfg.LastAsked(); guarded(r.shown, a) {
			guard = true
			wait = max(wait, time.Until(a.Add(siblingAge)))
		}
	}
	if !guard || wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ripened waits out ripen, then for a settled screen on which ready holds,
// what naming it for the error. What was confirmed before a wait is
// confirmed again after it: Claude may have put another form up meanwhile
// (2.1.197 paints one form and swaps in another asked with it about 90 ms
// later), and a key that commits must land on the form it was meant for.
func (r *runner) ripened(ctx context.Context, step string, ready func(vt.Snapshot) bool, what string) (vt.Snapshot, error) {
	if err := r.ripen(ctx); err != nil {
		return vt.Snapshot{}, r.fail(step, r.cfg.Screen.Snapshot(), "%v", err)
	}
	s, ok := r.wait(ctx, r.cfg.StepTimeout, ready)
	if !ok && ctx.Err() == nil && !r.halted() && r.redraw() {
		// Claude Code 2.1.197 was seen to leave a short screen garbled
		// as a form asked with another took its place (stress seed
		// 314368126999156480, s013): a redraw shows what is there.
		s, ok = r.wait(ctx, r.cfg.StepTimeout, ready)
	}
	if !ok {
		return s, r.fail(step, s, "the screen no longer shows %s", what)
	}
	return s, nil
}

func (r *runner) run(ctx context.Context) (Outcome, error) {
	for _, q := range r.cfg.Questions {
		r.headers = append(r.headers, q.Header)
	}
	for i, d := range r.cfg.Decisions {
		if err := d.Check(r.cfg.Questions[i]); err != nil {
			return 0, &Error{Question: i + 1, Step: "decision", Reason: err.Error()}
		}
	}
	for i, d := range r.cfg.Decisions {
		// Refused before any key: typed, text the screen cannot show could
		// never be confirmed (sameTyped), and "Type something", n or "Chat
		// about this" would be pressed for nothing. (Check held above: only
		// the text can fail here.)
		if err := screen.CheckAnswer(r.cfg.Questions[i], d); err != nil {
			return 0, &Error{Question: i + 1, Step: "text", Reason: err.Error()}
		}
	}
	// Chat and Cancel end the whole form: do the first one at once.
	for _, d := range r.cfg.Decisions {
		switch d.Action {
		case answer.Cancel:
			if err := r.cancel(ctx); err != nil {
				return 0, err
			}
			return Cancelled, nil
		case answer.Chat:
			if err := r.chat(ctx); err != nil {
				return 0, err
			}
			return Chatted, nil
		}
	}
	for i, d := range r.cfg.Decisions {
		r.q = i
		r.ticks = map[int]bool{}
		r.aboveTop = 0
		r.redraws, r.lostGrows = 0, 0
		var err error
		switch {
		case d.Action == answer.Type:
			err = r.typed(ctx, d.Text)
		case r.cfg.Questions[i].MultiSelect:
			err = r.multi(ctx, d.Labels)
		default:
			err = r.single(ctx, d.Labels[0], d.Notes)
		}
		if err != nil {
			return 0, err
		}
	}
	// Several questions end on the review page; a single multi-select
	// question may too (it has a Submit tab), so look before leaving.
	review := len(r.cfg.Questions) > 1
	if !review {
		// Gone means Claude's prompt (or another form) shows: a review
		// page Claude left garbled is not gone, and a redraw shows it; nor
		// is this page with its question cut, as a resize leaves it until
		// Claude draws at the new width.
		settled := func(s vt.Snapshot) bool {
			if fm, err := screen.Recognize(s); err == nil {
				q := r.cfg.Questions[0]
				return fm.Review != nil || !fm.Asks(q) && !fm.Resembles(q)
			}
			_, ok := screen.Prompt(s)
			return ok
		}
		r.redraws = 0 // this step may redraw too
		s, ok := r.wait(ctx, r.cfg.StepTimeout, settled)
		if !ok && ctx.Err() == nil && !r.recorded() && r.redraw() {
			s, ok = r.wait(ctx, r.cfg.StepTimeout, settled)
		}
		fm, err := screen.Recognize(s)
		review = err == nil && fm.Review != nil
		if !ok && !review && !r.recorded() && err == nil && (fm.Asks(r.cfg.Questions[0]) || fm.Resembles(r.cfg.Questions[0])) {
			// The last key's effect was seen on a frame that misled: the
			// page is still there. Nothing was submitted.
			return 0, r.fail("submit", s, "the page still shows after its last key")
		}
	}
	if review {
		r.q = -1
		if err := r.review(ctx); err != nil {
			return 0, err
		}
	}
	return Submitted, nil
}

// fail builds an *Error for the current question.
func (r *runner) fail(step string, last vt.Snapshot, format string, args ...any) error {
	reason := fmt.Sprintf(format, args...)
	switch {
	case r.elsewhere:
		reason = fmt.Sprintf("%v (%s)", ErrElsewhere, reason)
	case r.away:
		reason = fmt.Sprintf("%v (%s)", ErrAway, reason)
	}
	return &Error{Question: r.q + 1, Step: step, Reason: reason, Keys: r.keys, Last: last, Elsewhere: r.elsewhere, Away: r.away}
}

// halted reports whether a wait saw another form or the sessions view, so
// that no key goes (see Config.Elsewhere, ErrAway).
func (r *runner) halted() bool { return r.elsewhere || r.away }

// agrees reports whether fm is the page of the current question, as the
// hook described it, and of no other question of the form. Every option
// it shows is noted, for the multi-select check before its button.
func (r *runner) agrees(fm *screen.Form) bool {
	if fm == nil || !fm.Shows(r.cfg.Questions, r.q) {
		return false
	}
	if r.ticks != nil && fm.MultiSelect {
		for _, o := range fm.Options {
			r.ticks[o.Number-1] = o.Ticked
		}
	}
	return true
}

// wait waits up to d for a settled screen satisfying ok, returning the
// last screen seen on failure.
func (r *runner) wait(ctx context.Context, d time.Duration, ok func(vt.Snapshot) bool) (vt.Snapshot, bool) {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if r.cfg.Recorded != nil {
		// Claude's record ends a wait for the last Enter's effect.
		go func() {
			select {
			case <-r.cfg.Recorded:
				cancel()
			case <-wctx.Done():
			}
		}()
	}
	check := func(s vt.Snapshot) bool {
		if ok(s) {
			return true
		}
		if screen.SessionsView(s) {
			// The view's own rows, and no form: text of a form's cannot
			// pass for it.
			if _, err := screen.Recognize(s); err != nil {
				r.away = true
				return true
			}
		}
		if r.cfg.Elsewhere != nil && r.onlyMoves {
			r.elsewhere = r.cfg.Elsewhere(s)
			return r.elsewhere
		}
		return false
	}
	s, err := r.cfg.Screen.Wait(wctx, check)
	if r.halted() {
		return s, false
	}
	if err != nil && r.recorded() && ctx.Err() == nil {
		s = r.cfg.Screen.Snapshot()
		return s, ok(s)
	}
	if err != nil {
		var we *vt.WaitError
		if errors.As(err, &we) {
			return we.Last, false
		}
		return r.cfg.Screen.Snapshot(), false
	}
	return s, true
}

// formWhere waits up to d for a recognised form satisfying ok. When none
// comes, it asks Claude for one full redraw (if the screen can) and waits
// once more: Claude's renderer leaves stale or split characters at some
// sizes, which a redraw clears.
func (r *runner) formWhere(ctx context.Context, d time.Duration, ok func(*screen.Form) bool) (*screen.Form, vt.Snapshot, bool) {
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

// maxRedraws bounds the redraws per question. Claude Code 2.1.197 was seen
// to garble a preview page on two keys of one question (each time its
// preview box changed height), so one is not always enough.
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

// page waits for the current question's page with a known focus.
func (r *runner) page(ctx context.Context, d time.Duration) (*screen.Form, error) {
	want := func(fm *screen.Form) bool {
		return r.agrees(fm) && (fm.Focus.Kind != screen.FocusUnknown || hiddenFocus(fm))
	}
	fm, s, ok := r.formWhere(ctx, d, want)
	// A page taller than the screen may show no form at all before any
	// key, as after one (see lost): Claude Code 2.1.197 at 44x18 left the
	// preview box above the top, and only notes and options beside nothing
	// in sight (stress seed 1764045000, s039). Headless, the terminal is
	// made taller; nothing was pressed for it. SetRows has waited for the
	// draw at the new size: a step is enough to look, as in grow.
	for !ok && ctx.Err() == nil && !r.halted() && r.lost(s) {
		grown, err := r.enlarge()
		if err != nil {
			return nil, err
		}
		if !grown {
			break
		}
		fm, s, ok = r.formWhere(ctx, r.cfg.StepTimeout, want)
	}
	if !ok {
		return nil, r.fail("agree", s, "the screen never showed this question as the hook describes it%s", describeDisagreement(s, r))
	}
	if hiddenFocus(fm) {
		var err error
		if fm, err = r.reveal(ctx, fm); err != nil {
			return nil, err
		}
	}
	if r.shown.IsZero() {
		r.shown = time.Now()
		r.guarded = r.cfg.LastKey == nil || guarded(r.shown, r.cfg.LastKey())
	}
	return fm, nil
}

// hiddenFocus reports whether fm is a page taller than the screen whose
// focused row is above the screen's top: a question just shown on a short
// screen keeps its focus on option 1, which the terminal scrolled away.
func hiddenFocus(fm *screen.Form) bool {
	return fm.Cut && fm.Focus.Kind == screen.FocusUnknown && len(fm.Options) > 0 && fm.Options[0].Number > 1 &&
		!slices.ContainsFunc(fm.Options, func(o screen.Option) bool { return o.Focused })
}

// offTop reports whether position target is an option above the top of
// fm, a page taller than the screen whose list is not scrolled: Claude
// Code draws such a page whole and the terminal cuts its top, so that
// option's row never shows, focused or not (every pinned version alike,
// testdata/screens/*/stress-7480-s024-50x16), and it cannot be confirmed.
// That the list is not scrolled is known when the target was seen focused
// and out of sight (see reveal), or from the missing ↑ mark; the mark
// shares its column with the pointer, so not when the first row is focused.
func (r *runner) offTop(fm *screen.Form, target int) bool {
	if !fm.Cut || fm.MoreAbove || len(fm.Options) == 0 || target >= fm.Options[0].Number-1 {
		return false
	}
	return target < r.aboveTop || !fm.Options[0].Focused
}

// grow has the terminal made taller (see enlarge), so that a page taller
// than the screen shows its top, and confirms the page again on the
// taller screen. It returns nil, having changed nothing, when the screen
// cannot grow.
func (r *runner) grow(ctx context.Context, target int) (*screen.Form, error) {
	if grown, err := r.enlarge(); !grown || err != nil {
		return nil, err
	}
	// Claude's draw at the new size may come late: until it does, the old
	// frame sits at the top of the taller screen. Wait a step for a page
	// that shows the target, then take whatever page agrees (a page still
	// cut grows again, within MaxRows and the move limit).
	_, _, _ = r.formWhere(ctx, r.cfg.StepTimeout, func(fm *screen.Form) bool {
		return r.agrees(fm) && fm.Focus.Kind != screen.FocusUnknown && !r.offTop(fm, target)
	})
	return r.page(ctx, r.cfg.FormTimeout)
}

// enlarge makes the terminal twice as tall (at most MaxRows) when the
// screen is a [Grower], and reports whether it did. Claude draws the form
// anew, and may refuse an early Enter again: the guard before the next
// commit counts from now.
func (r *runner) enlarge() (bool, error) {
	g, ok := r.cfg.Screen.(Grower)
	snap := r.cfg.Screen.Snapshot()
	if !ok || snap.Rows >= MaxRows {
		return false, nil
	}
	if r.rows == 0 {
		r.rows = snap.Rows
	}
	rows := min(2*snap.Rows, MaxRows)
	if err := g.SetRows(rows); err != nil {
		return false, r.fail("grow", snap, "make the terminal %d rows tall: %v", rows, err)
	}
	r.shown, r.guarded = time.Now(), true
	return true, nil
}

// lost reports whether s shows no form at all, where the page was or was
// to be, before a key or after one: at most twice per question, so that
// a form that is gone does not grow the terminal to its limit.
func (r *runner) lost(s vt.Snapshot) bool {
	if _, err := screen.Recognize(s); err == nil || r.lostGrows >= 2 {
		return false
	}
	if _, prompt := screen.Prompt(s); prompt {
		return false // the form is gone, not out of sight
	}
	r.lostGrows++
	return true
}

// reveal brings a focus hidden above the screen's top into view with Down,
// one key per hidden option at most. A move commits nothing, and the focus
// it shows is read from the screen, not inferred; give it a moment first,
// in case the page was caught mid-redraw.
func (r *runner) reveal(ctx context.Context, fm *screen.Form) (*screen.Form, error) {
	known := func(s vt.Snapshot) bool {
		nf, err := screen.Recognize(s)
		if err != nil || !r.agrees(nf) || nf.Focus.Kind == screen.FocusUnknown {
			return false
		}
		fm = nf
		return true
	}
	if _, ok := r.wait(ctx, r.cfg.StepTimeout, known); ok {
		return fm, nil
	}
	r.aboveTop = max(r.aboveTop, fm.Options[0].Number-1)
	for range fm.Options[0].Number - 1 {
		s, err := r.press(ctx, "reveal", keyDown, "above the screen", false, known, func(vt.Snapshot) bool { return false })
		if err == nil {
			return fm, nil
		}
		nf, rerr := screen.Recognize(s)
		if rerr != nil || !r.agrees(nf) || !hiddenFocus(nf) {
			return nil, err
		}
	}
	return nil, r.fail("reveal", r.cfg.Screen.Snapshot(), "the focus stayed above the screen's top")
}

func describeDisagreement(s vt.Snapshot, r *runner) string {
	fm, err := screen.Recognize(s)
	if err != nil {
		return " (" + err.Error() + ")"
	}
	if fm.Review != nil {
		return " (the review page is showing)"
	}
	d := append(fm.Disagreements(r.cfg.Questions[r.q]), fm.TabDisagreements(r.headers)...)
	if len(fm.Tabs) > 0 && len(r.headers) > 1 && fm.ActiveTab() != r.q {
		d = append(d, fmt.Sprintf("tab %d is active, not %d", fm.ActiveTab()+1, r.q+1))
	}
	if len(d) == 0 {
		if !fm.Shows(r.cfg.Questions, r.q) {
			return " (the visible part could be another question of the form)"
		}
		return " (focus unknown)"
	}
	return ": " + strings.Join(d, "; ")
}

// press sends key and waits for effect. When the effect does not show and
// the key may be retried, it is sent again only if safe still holds for the
// screen (nothing else happened), at most Retries times. A retried key may
// yet take effect twice, late: the next commit waits for the screen to
// settle first (see [runner.settle]).
func (r *runner) press(ctx context.Context, step, key string, before string, retry bool, effect, safe func(vt.Snapshot) bool) (vt.Snapshot, error) {
	var last vt.Snapshot
	tries := 1
	if retry {
		tries += r.cfg.Retries
	}
	for try := 0; try < tries; try++ {
		if err := ctx.Err(); err != nil {
			return last, r.fail(step, r.cfg.Screen.Snapshot(), "%v", err)
		}
		if r.halted() {
			// A wait before this key saw the other form, or the sessions
			// view: no key goes.
			return last, r.fail(step, r.cfg.Screen.Snapshot(), "%s not sent", r.keyName(key))
		}
		if try > 0 {
			r.unsettled = true
		}
		if key != keyUp && key != keyDown {
			r.onlyMoves = false
		}
		if err := r.cfg.Keys.SendKeys([]byte(key)); err != nil {
			return last, r.fail(step, r.cfg.Screen.Snapshot(), "send %s: %v", r.keyName(key), err)
		}
		r.keys++
		s, ok := r.wait(ctx, r.cfg.StepTimeout, effect)
		last = s
		if r.cfg.OnKey != nil {
			after := focusOf(s)
			if !ok && ctx.Err() != nil {
				after = "" // cut short (the person took over): the screen says nothing of this key yet
			}
			r.cfg.OnKey(KeyEvent{Question: r.q + 1, Key: r.keyName(key), Before: before, After: after, Seen: ok})
		}
		if ok {
			return s, nil
		}
		if ctx.Err() != nil {
			return s, r.fail(step, s, "%v", ctx.Err())
		}
		if r.halted() {
			return s, r.fail(step, s, "%s was sent to this form", r.keyName(key))
		}
		if !safe(s) && r.redraw() {
			// Claude sometimes leaves stale characters that garble the
			// page; a redraw shows what the key really did.
			if s, ok = r.wait(ctx, r.cfg.StepTimeout, effect); ok {
				return s, nil
			}
			last = s
		}
		if !safe(s) && r.lost(s) {
			// The key made the page taller than the screen, and what is
			// left of it is no form (notes wrapped in a narrow preview
			// column pushed the options off a short screen: stress seed
			// 12353519114840221176, s034 at 44x16). Headless, a taller
			// terminal shows what the key did.
			grown, err := r.enlarge()
			if err != nil {
				return s, err
			}
			if grown {
				if s, ok = r.wait(ctx, r.cfg.StepTimeout, effect); ok {
					return s, nil
				}
				last = s
			}
		}
		if !safe(s) {
			return s, r.fail(step, s, "%s had an unexpected effect", r.keyName(key))
		}
		if try+1 < tries && r.cfg.Screen.Snapshot().Seq != s.Seq {
			// Output came after the last settled frame (Claude mid-paint,
			// another form swapping in, the key's own effect late): the
			// key goes again only if the screen it settles on allows.
			ns, ok := r.wait(ctx, r.cfg.StepTimeout, func(n vt.Snapshot) bool { return n.Seq != s.Seq })
			last = ns
			if ok && effect(ns) {
				return ns, nil
			}
			if !ok || !safe(ns) {
				return ns, r.fail(step, ns, "%s had an unexpected effect", r.keyName(key))
			}
		}
	}
	return last, r.fail(step, last, "%s had no visible effect after %d tries", r.keyName(key), tries)
}

// settle waits, after a retried key, until the screen has not changed for
// StepTimeout, so that a late duplicate of the key has landed before the
// focus is trusted for a commit.
func (r *runner) settle(ctx context.Context) error {
	if !r.unsettled {
		return nil
	}
	deadline := time.Now().Add(r.cfg.FormTimeout)
	for time.Now().Before(deadline) {
		seq := r.cfg.Screen.Snapshot().Seq
		s, changed := r.wait(ctx, r.cfg.StepTimeout, func(s vt.Snapshot) bool { return s.Seq != seq })
		if ctx.Err() != nil {
			return r.fail("settle", s, "%v", ctx.Err())
		}
		if r.halted() {
			return r.fail("settle", s, "the screen changed to another form, or to Claude's sessions view")
		}
		if !changed {
			r.unsettled = false
			return nil
		}
	}
	return r.fail("settle", r.cfg.Screen.Snapshot(), "the screen never settled after a retried key")
}

// keyName is keyName, a number sent by pick or tickNumber named as such
// (typed text may be a digit too).
func (r *runner) keyName(k string) string {
	if r.number {
		return "number " + k
	}
	return keyName(k)
}

func keyName(k string) string {
	if n, ok := keyNames[k]; ok {
		return n
	}
	return fmt.Sprintf("text %q", k)
}

func focusOf(s vt.Snapshot) string {
	fm, err := screen.Recognize(s)
	if err != nil {
		return "no form"
	}
	return fm.Focus.String()
}

// position is the focus's place on the current question (see
// [screen.Focus.Position]).
func (r *runner) position(fm *screen.Form) int {
	return fm.Focus.Position(r.cfg.Questions[r.q])
}

// moveTo moves the focus to position target, one confirmed key at a time.
// It looks only at the focused row: the rows around it may be scrolled off.
func (r *runner) moveTo(ctx context.Context, target int) (*screen.Form, error) {
	fm, err := r.page(ctx, r.cfg.FormTimeout)
	if err != nil {
		return nil, err
	}
	// Each move must bring the focus closer; allow some slack for a list
	// that scrolls or wraps, never an endless walk.
	limit := 2*(len(r.cfg.Questions[r.q].Options)+3) + r.cfg.Retries
	for moves := 0; ; moves++ {
		cur := r.position(fm)
		if cur == target {
			return fm, nil
		}
		if moves >= limit {
			return nil, r.fail("move", r.cfg.Screen.Snapshot(), "focus did not reach row %d in %d moves", target+1, limit)
		}
		if r.offTop(fm, target) {
			nf, err := r.grow(ctx, target)
			if err != nil {
				return nil, err
			}
			if nf == nil {
				return nil, r.fail("move", r.cfg.Screen.Snapshot(), "option %d is above the screen's top on a page taller than the screen: "+
					"it is never shown, so it is not pressed (a taller terminal shows it)", target+1)
			}
			fm = nf
			continue
		}
		key := keyDown
		if cur > target || r.upWraps(fm, cur, target) {
			key = keyUp
		}
		var next *screen.Form
		_, err := r.press(ctx, "move", key, fm.Focus.String(), true,
			func(s vt.Snapshot) bool {
				nf, err := screen.Recognize(s)
				if err != nil || !r.agrees(nf) || nf.Focus.Kind == screen.FocusUnknown || r.position(nf) == cur {
					return false
				}
				next = nf
				return true
			},
			func(s vt.Snapshot) bool {
				nf, err := screen.Recognize(s)
				return err == nil && r.agrees(nf)
			})
		if err != nil {
			return nil, err
		}
		fm = next
	}
}

// upWraps reports whether the way up from position cur to target, over
// the wrap from option 1 to "Type something" (see [screen.UpWraps]), takes
// fewer keys than the way down: a typed answer is one Up from option 1,
// not a walk past every option. Each key is still confirmed, and once
// past the wrap the walk goes up like any other. On a multi-select page
// fm must show whole: the check before its button counts on every
// option's tick having been seen, and a jump over a scrolled list would
// skip some.
func (r *runner) upWraps(fm *screen.Form, cur, target int) bool {
	q := r.cfg.Questions[r.q]
	other := screen.OtherPosition(q)
	if !screen.UpWraps(q) || cur < 0 || cur >= target || target > other {
		return false
	}
	if q.MultiSelect && !fm.Whole() {
		return false
	}
	return cur+1+other-target < target-cur
}

// recorded reports whether Claude has recorded the form (see
// [Config.Recorded]).
func (r *runner) recorded() bool {
	select {
	case <-r.cfg.Recorded:
		return r.cfg.Recorded != nil
	default:
		return false
	}
}

// left reports, after an Enter that seemed refused, whether it took effect
// after all: Claude recorded the form, or no form shows (its prompt is
// back), or, for several questions, another page of this form shows.
// Another form on the screen does not tell: Claude may have swapped it in.
func (r *runner) left(s vt.Snapshot) bool {
	if r.recorded() {
		return true
	}
	fm, err := screen.Recognize(s)
	if len(r.headers) == 1 {
		return err != nil
	}
	return err == nil && r.movedOn(s) && (fm.Review != nil || len(fm.TabDisagreements(r.headers)) == 0)
}

// movedOn reports whether the screen has left the current question's page:
// for one question, the form is gone (or shows its review page, or another
// question); for several, another question's page or the review page shows.
// A form still asking this question, even changed, has not moved on.
func (r *runner) movedOn(s vt.Snapshot) bool {
	if r.recorded() {
		return true
	}
	fm, err := screen.Recognize(s)
	if len(r.headers) == 1 {
		// A page with its question cut (see Form.Resembles) is this one.
		q := r.cfg.Questions[r.q]
		return err != nil || !fm.Asks(q) && !fm.Resembles(q)
	}
	if err != nil {
		return false
	}
	if fm.Review != nil {
		return true
	}
	if len(fm.Tabs) > 0 {
		return fm.ActiveTab() >= 0 && fm.ActiveTab() != r.q
	}
	for j := range r.cfg.Questions {
		if j != r.q && fm.Shows(r.cfg.Questions, j) {
			return true
		}
	}
	return false
}

// focusedOn returns a check that the current page shows with the focus at
// position target and, if set, ok holds for it.
func (r *runner) focusedOn(target int, ok func(*screen.Form) bool) func(vt.Snapshot) bool {
	return func(s vt.Snapshot) bool {
		fm, err := screen.Recognize(s)
		return err == nil && r.agrees(fm) && r.position(fm) == target && (ok == nil || ok(fm))
	}
}

// approachRounds bounds how often the focus is put back on its row after
// keys that needed retries, before a commit.
const approachRounds = 3

// approach brings the focus to target for a commit: after any retried key
// the screen must settle (a late copy lands), then the focus is put back,
// until a walk to target needs no retry.
func (r *runner) approach(ctx context.Context, step string, target int) error {
	for round := 0; round < approachRounds; round++ {
		if err := r.settle(ctx); err != nil {
			return err
		}
		// The focus may have moved while settling: put it back first.
		if _, err := r.moveTo(ctx, target); err != nil {
			return err
		}
		if !r.unsettled {
			return nil
		}
	}
	return r.fail(step, r.cfg.Screen.Snapshot(), "keys kept needing retries; nothing more pressed")
}

// ready brings the focus to target (see approach), waits out the guard
// and looks again (see ripened), ok holding for the page if set. A focus
// found on another row of a page still this question's is brought back at
// once, at most approachRounds times: a move that another form's driver
// sent just before it gave the screen up (see Config.Elsewhere) can land
// here, late.
func (r *runner) ready(ctx context.Context, step string, target int, ok func(*screen.Form) bool, what string) (vt.Snapshot, error) {
	want := r.focusedOn(target, ok)
	for round := 1; ; round++ {
		if err := r.approach(ctx, step, target); err != nil {
			return vt.Snapshot{}, err
		}
		s, moved, err := r.ripenedUnless(ctx, step, want, func(fm *screen.Form) bool { return r.position(fm) != target }, what)
		if err == nil && !moved {
			return s, nil
		}
		if err == nil {
			err = r.fail(step, s, "the screen no longer shows %s (the focus moved)", what)
		}
		if !moved || round == approachRounds || r.halted() || ctx.Err() != nil {
			return s, err
		}
	}
}

// enter presses Enter on the focused row, which must be target (and the
// page must satisfy ok, if set), and waits for the page to move on. A
// swallowed Enter is not sent again: its first copy might land late and
// answer the next question.
func (r *runner) enter(ctx context.Context, target int, ok func(*screen.Form) bool) error {
	on := fmt.Sprintf("the focus on row %d", target+1)
	s, err := r.ready(ctx, "enter", target, ok, on)
	if err != nil {
		return err
	}
	_, err = r.press(ctx, "enter", keyEnter, focusOf(s), false, r.movedOn, r.focusedOn(target, ok))
	if err == nil || ctx.Err() != nil {
		return err
	}
	// Claude Code 2.1.330 was seen to drop an Enter now and then (about one
	// form in ten in a long session), leaving the screen exactly as it was.
	// Only then, and only on the last question, is Enter sent again, once:
	// were Claude merely slow, the second copy would land on its empty
	// prompt or on the review page's Submit answers, never on another
	// question's row.
	last := r.q == len(r.cfg.Questions)-1
	if now := r.cfg.Screen.Snapshot(); !last || now.Seq != s.Seq || !r.focusedOn(target, ok)(now) {
		return err
	}
	moved, err := r.refused(ctx, "enter", r.left, r.focusedOn(target, ok), on)
	if err != nil || moved {
		return err
	}
	r.unsettled = true
	_, err = r.press(ctx, "enter", keyEnter, focusOf(s), false, r.movedOn, r.focusedOn(target, ok))
	return err
}

// refused is called when an Enter left no trace: Claude may have refused
// it as typed ahead on a form taken as unguarded. The form is taken as
// guarded from now on, and the next Enter waits for formAge. It then
// reports whether the first Enter took effect meanwhile (done holds: it
// was only slow), else confirms ready again (see ripened), what naming it.
func (r *runner) refused(ctx context.Context, step string, done, ready func(vt.Snapshot) bool, what string) (bool, error) {
	r.guarded = true
	moved := false
	_, err := r.ripened(ctx, step, func(s vt.Snapshot) bool {
		moved = done(s)
		return moved || ready(s)
	}, what)
	return moved, err
}

// single answers a single-select question: the option, and on a preview
// question its notes, typed with n and confirmed before Enter.
func (r *runner) single(ctx context.Context, label, notes string) error {
	target := r.cfg.Questions[r.q].Index(label)
	if !r.cfg.Questions[r.q].PreviewLayout() {
		if done, err := r.pick(ctx, target); done || err != nil {
			return err
		}
	}
	fm, err := r.moveTo(ctx, target)
	if err != nil {
		return err
	}
	if !r.cfg.Questions[r.q].PreviewLayout() {
		return r.enter(ctx, target, nil)
	}
	// Notes already there are compared as typed notes are: on 2.1.321 and
	// older, notes that differ only in a vowel sign cannot be told apart,
	// as with typed notes, and PostToolUse's exact check reports them.
	if fm.Preview.Notes != "" && (notes == "" || !sameTyped(fm.Preview.Notes, notes, fm.MarksJoin)) {
		return r.fail("notes", r.cfg.Screen.Snapshot(), "the notes already hold %q", fm.Preview.Notes)
	}
	if notes != "" && fm.Preview.Notes == "" {
		if err := r.notes(ctx, target, notes); err != nil {
			return err
		}
	}
	// Enter while the notes are being typed would record the notes alone
	// on some versions: the notes must show, done with.
	return r.enter(ctx, target, func(fm *screen.Form) bool {
		return !fm.Preview.Editing && sameTyped(fm.Preview.Notes, notes, fm.MarksJoin)
	})
}

// numberKey returns the key that stands for option target on page fm: its
// number, on every pinned version, commits a single-select question's
// option and moves on, and ticks or unticks a multi-select one's leaving
// the focus where it is (testdata/screens/*/digit-*). It returns "" unless
// the number is what the key would mean here: the option shows with that
// number, so its row confirms which option the key names, and the focus is
// on an option row, so the key goes to the list (with the focus on "Type
// something", or notes open, it would be typed there). The list must show
// from option 1, not scrolled: the recordings hold no number pressed on a
// scrolled list, where a number might count the rows in sight. A preview
// page keeps the walk: notes are typed on the focused option.
func numberKey(fm *screen.Form, target int) string {
	if fm.Preview != nil || fm.Focus.Kind != screen.FocusOption || target < 0 || target > 8 ||
		fm.MoreAbove || len(fm.Options) == 0 || fm.Options[0].Number != 1 {
		return ""
	}
	for _, o := range fm.Options {
		if o.Number == target+1 {
			return strconv.Itoa(target + 1)
		}
	}
	return ""
}

// pick commits option target of a single-select page by its number, one
// key where the walk takes a move a row and Enter. The page must agree
// with the hook and numberKey hold for it, after the guard's wait and a
// fresh look (see ripened), as for an Enter; it is then left for the next
// page as an Enter leaves it. It reports false, having pressed nothing
// that took effect, when the walk is the way: the focus on target already
// (Enter alone), no number for it (see numberKey), before the number or
// during the guard's wait (see ripenedOrWalk), or the number had no
// visible effect. Claude refuses a key typed ahead on a guarded form
// without a trace (see formAge); the form is then taken as guarded and,
// confirmed again after the guard's wait, walked instead. The walk takes
// at least one move (the focus is not on target), each confirmed on this
// page before the Enter; Claude reads keys in order, so a move seen to
// take effect here means the number before it was read and did nothing,
// and a number taken late would have moved the page on first: the moves
// then go unconfirmed, and nothing more is pressed.
func (r *runner) pick(ctx context.Context, target int) (bool, error) {
	fm, err := r.page(ctx, r.cfg.FormTimeout)
	if err != nil {
		return true, err
	}
	key := numberKey(fm, target)
	if key == "" || r.cfg.Walk || r.position(fm) == target {
		return false, nil
	}
	if err := r.settle(ctx); err != nil {
		return true, err
	}
	ready := func(s vt.Snapshot) bool {
		fm, err := screen.Recognize(s)
		return err == nil && r.agrees(fm) && numberKey(fm, target) == key
	}
	what := fmt.Sprintf("option %d numbered, the focus on an option", target+1)
	s, walk, err := r.ripenedOrWalk(ctx, "enter", ready, what)
	if err != nil || walk {
		return err != nil, err
	}
	r.number = true
	_, err = r.press(ctx, "enter", key, focusOf(s), false, r.movedOn, ready)
	r.number = false
	if err == nil || ctx.Err() != nil || r.halted() {
		return true, err
	}
	if !ready(r.cfg.Screen.Snapshot()) {
		return true, err
	}
	moved, err := r.refused(ctx, "enter", r.left, ready, what)
	if moved || err != nil {
		return true, err
	}
	if fm, err := screen.Recognize(r.cfg.Screen.Snapshot()); err != nil || r.position(fm) == target {
		// A stray move put the focus there: an Enter with no move before
		// it would not show that the number was read.
		return true, r.fail("enter", r.cfg.Screen.Snapshot(), "number %s had no visible effect, and the focus moved", key)
	}
	return false, nil
}

// ripenedUnless is ripened for ready that also ends, reporting true, on
// a page that agrees with the hook, its focus known, where off holds.
func (r *runner) ripenedUnless(ctx context.Context, step string, ready func(vt.Snapshot) bool, off func(*screen.Form) bool, what string) (vt.Snapshot, bool, error) {
	gone := false
	s, err := r.ripened(ctx, step, func(s vt.Snapshot) bool {
		if ready(s) {
			gone = false
			return true
		}
		fm, err := screen.Recognize(s)
		gone = err == nil && r.agrees(fm) && fm.Focus.Kind != screen.FocusUnknown && off(fm)
		return gone
	}, what)
	return s, gone && err == nil, err
}

// ripenedOrWalk is ripened for a number key (ready: the page as the
// number needs it), which also ends, reporting walk, when the page agrees
// with the hook but no longer suits the number. A move sent for a form
// asked with this one can land here late, as the guard waits (2.1.197,
// stress seed 1764045000 s045: an Up taken by this form, its focus
// wrapped to "Type something"); the number would then be typed, not
// pressed, and the walk, each move confirmed, brings the focus back.
func (r *runner) ripenedOrWalk(ctx context.Context, step string, ready func(vt.Snapshot) bool, what string) (vt.Snapshot, bool, error) {
	return r.ripenedUnless(ctx, step, ready, func(*screen.Form) bool { return true }, what)
}

// notes types the notes of the focused option: n opens them, the text goes
// in one write, and Esc closes them (it keeps what was typed); each step is
// confirmed on the screen. While open, a narrow notes field shows only part
// of the text: it is compared in full once closed, before any Enter. A
// second Esc would cancel the form, so none is sent.
func (r *runner) notes(ctx context.Context, target int, text string) error {
	shows := func(ok func(p *screen.Preview) bool) func(vt.Snapshot) bool {
		return r.focusedOn(target, func(fm *screen.Form) bool { return fm.Preview != nil && ok(fm.Preview) })
	}
	// Open notes take rows: on a short screen they push the form's top,
	// the focused option with it, off the screen. While they are open the
	// focus cannot move (keys go to the notes), so an open page whose
	// focused row is off the screen will do; the focus is confirmed again
	// once they are closed, before any Enter.
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
	// n changes the form like Enter does: not before the guard's wait,
	// and on the form still there after it (see ripened).
	empty := func(fm *screen.Form) bool { return fm.Preview != nil && !fm.Preview.Editing && fm.Preview.Notes == "" }
	if _, err := r.ready(ctx, "notes", target, empty, fmt.Sprintf("option %d focused, with no notes", target+1)); err != nil {
		return err
	}
	if _, err := r.press(ctx, "notes", keyNotes, fmt.Sprintf("option %d", target+1), true, open, closed); err != nil {
		return err
	}
	// Typed again only while nothing shows: a late first copy then makes
	// the notes differ, which the check after Esc catches.
	if _, err := r.press(ctx, "notes", text, "notes", true, typed, open); err != nil {
		return err
	}
	_, err := r.press(ctx, "notes", keyEsc, "notes", false, done, func(vt.Snapshot) bool { return false })
	return err
}

func (r *runner) multi(ctx context.Context, labels []string) error {
	q := r.cfg.Questions[r.q]
	want := map[int]bool{}
	for _, l := range labels {
		want[q.Index(l)] = true
	}
	if _, err := r.page(ctx, r.cfg.FormTimeout); err != nil {
		return err
	}
	for i, t := range r.ticks {
		if t && !want[i] {
			return r.fail("tick", r.cfg.Screen.Snapshot(), "%q is ticked already and was not asked for", q.Options[i].Label)
		}
	}
	for _, l := range labels {
		i := q.Index(l)
		if done, err := r.tickNumber(ctx, i); done || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		if _, err := r.moveTo(ctx, i); err != nil {
			return err
		}
		if r.ticks[i] {
			// Ticked before we came: the recorded order may differ, and
			// verification will say so.
			continue
		}
		isTicked := func(t bool) func(vt.Snapshot) bool {
			return r.focusedOn(i, func(fm *screen.Form) bool { return r.ticks[i] == t })
		}
		unticked := func(fm *screen.Form) bool { return !r.ticks[i] }
		if _, err := r.ready(ctx, "tick", i, unticked, fmt.Sprintf("option %d focused and not ticked", i+1)); err != nil {
			return err
		}
		if _, err := r.press(ctx, "tick", keyEnter, fmt.Sprintf("option %d", i+1), true, isTicked(true), isTicked(false)); err != nil {
			return err
		}
	}
	button := screen.ButtonPosition(q)
	if err := r.settle(ctx); err != nil {
		return err
	}
	if tabbed, err := r.tabOn(ctx, want); tabbed || err != nil {
		return err
	}
	if _, err := r.moveTo(ctx, button); err != nil {
		return err
	}
	// Every option has been on the screen on the way (the focus walked
	// past it); each must show ticked exactly when asked for. Options only
	// ever above the screen's top were never focused, so never ticked.
	for i := range q.Options {
		t, seen := r.ticks[i]
		if !seen && !want[i] && i < r.aboveTop {
			continue
		}
		if !seen || t != want[i] {
			return r.fail("tick", r.cfg.Screen.Snapshot(), "%q ticked=%t (seen %t) before the button", q.Options[i].Label, t, seen)
		}
	}
	return r.enter(ctx, button, nil)
}

// tickNumber ticks option i of a multi-select page by its number (see
// numberKey), the focus left where it is: one key where the walk takes a
// move a row. The page must show whole, so that every option's tick is
// seen at each look (the check before leaving the page counts on it). It
// reports false, having pressed nothing, when the walk is the way: the
// focus on i already, no number for it or a page not whole, before the
// number or during the guard's wait (see ripenedOrWalk). Like a tick
// by Enter, a number with no visible effect is sent again: a late first
// copy would then untick the option, which the check before leaving the
// page catches.
func (r *runner) tickNumber(ctx context.Context, i int) (bool, error) {
	fm, err := r.page(ctx, r.cfg.FormTimeout)
	if err != nil {
		return true, err
	}
	key := numberKey(fm, i)
	if key == "" || r.cfg.Walk || !fm.Whole() || r.position(fm) == i {
		return false, nil
	}
	if r.ticks[i] {
		// Ticked before we came: the recorded order may differ, and
		// verification will say so.
		return true, nil
	}
	if err := r.settle(ctx); err != nil {
		return true, err
	}
	shows := func(ticked bool) func(vt.Snapshot) bool {
		return func(s vt.Snapshot) bool {
			fm, err := screen.Recognize(s)
			return err == nil && r.agrees(fm) && fm.Whole() && numberKey(fm, i) == key && r.ticks[i] == ticked
		}
	}
	s, walk, err := r.ripenedOrWalk(ctx, "tick", shows(false), fmt.Sprintf("option %d numbered and not ticked", i+1))
	if err != nil || walk {
		return err != nil, err
	}
	r.number = true
	_, err = r.press(ctx, "tick", key, focusOf(s), true, shows(true), shows(false))
	r.number = false
	return true, err
}

// tabOn leaves a multi-select question by Tab from the focused option,
// when the page shows whole, its tab row included, with every option
// ticked exactly as asked and Type something empty. On every pinned
// version Tab moves on to the next page as the button does, keeping the
// ticks in the order they were made (testdata/screens/*/*-tab-review-*),
// and it saves the walk down to the button and the Enter on it. It
// reports false, having pressed nothing, on any other page (a list
// scrolled on a short screen, options off the screen): the walk to the
// button then sees every option on the way. Like an Enter, a Tab with no
// visible effect is not sent again.
func (r *runner) tabOn(ctx context.Context, want map[int]bool) (bool, error) {
	q := r.cfg.Questions[r.q]
	whole := func(fm *screen.Form) bool {
		if len(fm.Tabs) == 0 || !fm.Whole() || fm.Preview != nil ||
			fm.Focus.Kind != screen.FocusOption || len(fm.Options) != len(q.Options) ||
			fm.Other == nil || !fm.Other.Placeholder {
			return false
		}
		for _, o := range fm.Options {
			if o.Ticked != want[o.Number-1] {
				return false
			}
		}
		return true
	}
	fm, err := r.page(ctx, r.cfg.FormTimeout)
	if err != nil {
		return false, err
	}
	if !whole(fm) {
		return false, nil
	}
	at := r.position(fm)
	s, err := r.ready(ctx, "next", at, whole, "the whole page with the options ticked as asked")
	if err != nil {
		return true, err
	}
	_, err = r.press(ctx, "next", keyTab, focusOf(s), false, r.movedOn, r.focusedOn(at, whole))
	return true, err
}

func (r *runner) typed(ctx context.Context, text string) error {
	other := screen.OtherPosition(r.cfg.Questions[r.q])
	fm, err := r.moveTo(ctx, other)
	if err != nil {
		return err
	}
	if fm.Other == nil || !fm.Other.Placeholder {
		return r.fail("type", r.cfg.Screen.Snapshot(), "the Type something row does not show empty")
	}
	// Typing changes the form like Enter does: not before the guard's
	// wait, and on the form still there after it (see ripened).
	blank := func(fm *screen.Form) bool { return fm.Other != nil && fm.Other.Placeholder }
	if _, err := r.ready(ctx, "type", other, blank, "the focus on the empty Type something row"); err != nil {
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

// sameText compares text as review page rv shows it with text as asked:
// white space does not count (the page wraps, sometimes inside a word), nor
// what the screen gives no cell (see screen.Squash), and what Claude lost
// at a row's end does not (screen.SameWrapped).
func sameText(rv *screen.Review, shown, asked string) bool {
	return screen.SameWrapped(shown, asked, rv.Silent)
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

func (r *runner) review(ctx context.Context) error {
	// A frame drawn while the terminal was being resized may show the page
	// garbled: judge the page by the first settled frame that lists the
	// intended answers, and report the last one seen if none ever does.
	var why string
	fm, s, ok := r.formWhere(ctx, r.cfg.FormTimeout, func(fm *screen.Form) bool {
		if fm.Review == nil || fm.Focus.Kind == screen.FocusUnknown {
			why = "the review page never showed"
			return false
		}
		why = r.reviewMismatch(fm)
		return why == ""
	})
	if !ok {
		if why == "" {
			why = "the review page never showed"
		}
		return r.fail("review", s, "%s", why)
	}
	onSubmit := func(s vt.Snapshot) bool {
		fm, err := screen.Recognize(s)
		return err == nil && fm.Review != nil && fm.Focus.Kind == screen.FocusSubmit && r.reviewMismatch(fm) == ""
	}
	if fm.Focus.Kind != screen.FocusSubmit {
		onReview := func(s vt.Snapshot) bool {
			fm, err := screen.Recognize(s)
			return err == nil && fm.Review != nil
		}
		if _, err := r.press(ctx, "review", keyUp, fm.Focus.String(), true, onSubmit, onReview); err != nil {
			return err
		}
	}
	if err := r.settle(ctx); err != nil {
		return err
	}
	if s, ok := r.wait(ctx, r.cfg.StepTimeout, onSubmit); !ok {
		return r.fail("submit", s, "focus is not on %q before Enter", "Submit answers")
	}
	gone := func(s vt.Snapshot) bool {
		_, err := screen.Recognize(s)
		return err != nil || r.recorded()
	}
	_, err := r.press(ctx, "submit", keyEnter, "submit", false, gone, onSubmit)
	return err
}

func (r *runner) cancel(ctx context.Context) error {
	fm, s, ok := r.formWhere(ctx, r.cfg.FormTimeout, func(fm *screen.Form) bool {
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

// reviewMismatch says how the review page differs from the intent, or "".
// The page lists every question with its answer; when it is taller than
// the screen, the visible entries must be the last ones intended.
func (r *runner) reviewMismatch(fm *screen.Form) string {
	rv := fm.Review
	n := len(r.cfg.Questions)
	if rv.Incomplete {
		return "the review page says not all questions were answered"
	}
	if len(rv.Answers) > n || (!fm.Cut && len(rv.Answers) != n) {
		return fmt.Sprintf("the review page lists %d answers, want %d", len(rv.Answers), n)
	}
	first := n - len(rv.Answers)
	for k, a := range rv.Answers {
		i := first + k
		q := r.cfg.Questions[i]
		d := r.cfg.Decisions[i]
		// What Claude records, another pick's look-alike too: the page is
		// read loosely, and what Claude records is checked (session).
		if !sameText(rv, a.Question, q.Question) || !slices.ContainsFunc(d.Renderings(q.MultiSelect), func(w string) bool { return sameText(rv, a.Answer, w) }) {
			return fmt.Sprintf("the review page lists %q -> %q, want %q -> %q", a.Question, a.Answer, q.Question, d.Recorded())
		}
	}
	return ""
}

// chat presses "Chat about this". The message follows with [Message] once
// Claude's turn has ended.
func (r *runner) chat(ctx context.Context) error {
	chat := screen.ChatPosition(r.cfg.Questions[r.q])
	on := fmt.Sprintf("the focus on %q", "Chat about this")
	s, err := r.ready(ctx, "chat", chat, nil, on)
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
	// A dropped Enter (see enter) leaves the screen as it was; sent again,
	// a late first copy lands on Claude's empty prompt, which ignores it.
	if now := r.cfg.Screen.Snapshot(); now.Seq != s.Seq || !r.focusedOn(chat, nil)(now) {
		return err
	}
	moved, err := r.refused(ctx, "chat", gone, r.focusedOn(chat, nil), on)
	if err != nil || moved {
		return err
	}
	r.unsettled = true
	_, err = r.press(ctx, "chat", keyEnter, focusOf(s), false, gone, r.focusedOn(chat, nil))
	return err
}

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
	ready := func(s vt.Snapshot) bool {
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
		shorter := func(s vt.Snapshot) bool {
			u, ok := screen.Prompt(s)
			return ok && len(squashTyped(u, s.MarksJoin)) < was && (u == "" || ofLeft(u, s.MarksJoin))
		}
		unchanged := func(s vt.Snapshot) bool {
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

// Undo is the key that takes back key, an arrow claudewrap sent, and both
// their names; ok is false for a key that cannot be taken back (Enter, Esc,
// text).
func Undo(key []byte) (undo []byte, name, undoName string, ok bool) {
	switch string(key) {
	case keyDown:
		return []byte(keyUp), "Down", "Up", true
	case keyUp:
		return []byte(keyDown), "Up", "Down", true
	}
	return nil, keyName(string(key)), "", false
}
