package askflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// ElicitKind is how a field of an MCP server's form takes its value on
// the screen.
type ElicitKind int

// Field kinds.
const (
	ElicitEnum  ElicitKind = iota + 1 // → opens the list, Space picks
	ElicitBool                        // Space toggles ☐ and ☒
	ElicitText                        // typed (a string or a number)
	ElicitMulti                       // → opens the list, Space ticks, ← closes it
)

// ElicitValue is the value the answer gives one field.
type ElicitValue struct {
	// Title is the field's title as drawn.
	Title string
	Kind  ElicitKind
	// Text is an enum's option label as drawn, or the text to type.
	Text string
	Bool bool
	// List are a multi-select's option labels to tick, as drawn.
	List []string
}

// ElicitConfig is one MCP server's form to answer on the screen.
type ElicitConfig struct {
	Screen Screen
	Keys   Keys
	// Server is the server's name, as the form's title shows it.
	Server string
	// Titles are every field's title, in the order Claude draws them (the
	// schema's).
	Titles []string
	// Action is "accept" (with Values), "decline" or "cancel".
	Action string
	Values []ElicitValue

	// FormTimeout bounds the wait for the form (default 20s); StepTimeout
	// the wait for one key's effect (default 3s); Retries is how often an
	// arrow with no visible effect is sent again (default 2).
	FormTimeout time.Duration
	StepTimeout time.Duration
	Retries     int
	// OnKey, if set, is called after each key's effect was seen (or not).
	OnKey func(KeyEvent)
	// Answered, if set, is closed when Claude reports the form answered
	// (its ElicitationResult hook): the last key took effect, though
	// Claude may leave the form drawn a moment longer.
	Answered <-chan struct{}
}

// Keys an MCP form takes besides the arrows, Enter and Esc.
const (
	keyRight = "\x1b[C"
	keyLeft  = "\x1b[D"
	keySpace = " "
)

// Elicit answers an MCP server's input form on the screen: for each value,
// it moves to the field, sets it (opening an enum's or a multi-select's
// list, toggling a box, typing text) and sees it set; then it presses
// Accept, Decline, or Esc to cancel. Every key goes only once the screen
// shows the form as expected before it: the fields in sight those of
// Titles in order, every field already set showing its value, the focus
// where the key means it. Accept goes only once every value was seen on
// the screen after the last key that set one. When the screen does not
// confirm a step, it presses nothing more and returns an *Error; when ctx
// ends (the person typed), ErrInterrupted.
func Elicit(ctx context.Context, cfg ElicitConfig) (keys int, err error) {
	timings(&cfg.FormTimeout, &cfg.StepTimeout, &cfg.Retries)
	d := &elicitDriver{cfg: cfg, done: map[string]bool{}, seen: map[string]bool{}}
	err = d.run(ctx)
	if err != nil && ctx.Err() != nil && !errors.Is(err, ErrInterrupted) {
		err = fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	return d.keys, err
}

// elicitGap is how long a key that commits (Space, typed text, Enter,
// Esc, ←) waits after the key before it. Claude Code 2.1.332 drops an
// Enter on Accept sent 60 ms after the Down that focused it, though the
// screen shows the focus there; 150 ms is enough, and 100 ms more covers
// Claude's clock and ours.
const elicitGap = 250 * time.Millisecond

type elicitDriver struct {
	cfg  ElicitConfig
	keys int
	sent time.Time // when the last key went
	// done are the fields set so far; seen those of them the screen showed
	// with their values since the last key that set one.
	done, seen map[string]bool
}

func (d *elicitDriver) run(ctx context.Context) error {
	e, err := d.waitForm(ctx)
	if err != nil {
		return err
	}
	if v := d.unknownTitle(); v != "" {
		return d.fail("start", fmt.Sprintf("the answer sets %q, which is not one of the form's fields", v))
	}
	switch d.cfg.Action {
	case "cancel":
		_, err := d.press(ctx, "cancel", keyEsc, 1, "the form", func(e screen.Elicitation) bool { return !open(e) }, nil)
		return err
	case "decline":
		if _, err := d.moveTo(ctx, e, len(d.cfg.Titles)+1, false); err != nil {
			return err
		}
		_, err := d.press(ctx, "decline", keyEnter, 1, "Decline", func(e screen.Elicitation) bool { return e.Button == "Decline" }, nil)
		return err
	case "accept":
	default:
		return d.fail("start", fmt.Sprintf("no action %q", d.cfg.Action))
	}
	order := make([]ElicitValue, 0, len(d.cfg.Values))
	for _, t := range d.cfg.Titles {
		for _, v := range d.cfg.Values {
			if v.Title == t {
				order = append(order, v)
			}
		}
	}
	for _, v := range order {
		if e, err = d.moveTo(ctx, e, slices.Index(d.cfg.Titles, v.Title), false); err != nil {
			return err
		}
		if e, err = d.set(ctx, e, v); err != nil {
			return err
		}
		d.done[v.Title] = true
		clear(d.seen)
		d.check(e)
	}
	// Walk to Accept from the top, so that every value shows on the
	// screen after the last key that set one.
	accept := len(d.cfg.Titles)
	down := !d.allSeen()
	if down {
		if e, err = d.moveTo(ctx, e, 0, false); err != nil {
			return err
		}
	}
	if _, err = d.moveTo(ctx, e, accept, down); err != nil {
		return err
	}
	if !d.allSeen() {
		return d.fail("accept", "not every value the answer sets was seen on the screen")
	}
	_, err = d.press(ctx, "accept", keyEnter, 1, "Accept", func(e screen.Elicitation) bool {
		return e.Button == "Accept" && d.allSeen()
	}, nil)
	return err
}

// unknownTitle is a value's title that is not among the form's fields.
func (d *elicitDriver) unknownTitle() string {
	for _, v := range d.cfg.Values {
		if !slices.Contains(d.cfg.Titles, v.Title) {
			return v.Title
		}
	}
	return ""
}

func (d *elicitDriver) allSeen() bool {
	for _, v := range d.cfg.Values {
		if !d.seen[v.Title] {
			return false
		}
	}
	return true
}

func (d *elicitDriver) fail(step, reason string) error {
	return &Error{Step: step, Reason: reason, Keys: d.keys, Last: d.cfg.Screen.Snapshot()}
}

// read parses the form on s when it is the expected one and agrees with
// what was set so far (see check).
func (d *elicitDriver) read(s vt.Snapshot) (screen.Elicitation, bool) {
	e, ok := screen.ParseElicitation(s)
	if !ok || e.Server != d.cfg.Server || !e.Buttons || !d.check(e) {
		return e, false
	}
	return e, true
}

// check reports whether the fields in sight are a run of Titles in order
// (with "more" marks where fields are out of sight) and every field set so
// far shows its value; it notes the values seen.
func (d *elicitDriver) check(e screen.Elicitation) bool {
	if len(e.Fields) == 0 {
		return false
	}
	first := -1
	for i, t := range d.cfg.Titles {
		if e.Fields[0].Line == t+":" || strings.HasPrefix(e.Fields[0].Line, t+": ") {
			first = i
			break
		}
	}
	if first < 0 || first+len(e.Fields) > len(d.cfg.Titles) {
		return false
	}
	if (first > 0) != e.Above || (first+len(e.Fields) < len(d.cfg.Titles)) != e.Below {
		return false
	}
	shown := map[string]bool{}
	for i, f := range e.Fields {
		t := d.cfg.Titles[first+i]
		if f.Line != t+":" && !strings.HasPrefix(f.Line, t+": ") {
			return false
		}
		v := d.value(t)
		if v == nil || !d.done[t] {
			continue
		}
		if f.Open || !shows(f, *v) {
			return false
		}
		shown[t] = true
	}
	for t := range shown {
		d.seen[t] = true
	}
	return true
}

func (d *elicitDriver) value(title string) *ElicitValue {
	for i := range d.cfg.Values {
		if d.cfg.Values[i].Title == title {
			return &d.cfg.Values[i]
		}
	}
	return nil
}

// shows reports whether a field's row shows v, set.
func shows(f screen.ElicitField, v ElicitValue) bool {
	got, ok := f.Value(v.Title)
	if !ok || !f.Set {
		return false
	}
	switch v.Kind {
	case ElicitBool:
		return got == boxOf(v.Bool)
	case ElicitMulti:
		return sameSet(strings.Split(got, ", "), v.List)
	}
	return got == v.Text
}

func boxOf(on bool) string {
	if on {
		return "☒"
	}
	return "☐"
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// open reports whether a field's list is open.
func open(e screen.Elicitation) bool {
	for _, f := range e.Fields {
		if f.Open {
			return true
		}
	}
	return false
}

// pos is the focus's place in the ring Up and Down walk: the fields in
// order, then Accept, then Decline; -1 when unknown.
func (d *elicitDriver) pos(e screen.Elicitation) int {
	switch e.Button {
	case "Accept":
		return len(d.cfg.Titles)
	case "Decline":
		return len(d.cfg.Titles) + 1
	}
	i := e.Focused()
	if i < 0 {
		return -1
	}
	for j, t := range d.cfg.Titles {
		if _, ok := e.Fields[i].Value(t); ok {
			return j
		}
	}
	return -1
}

// waitForm waits for the form to show and agree with Titles, and for the
// screen to be still a moment: Claude may draw it again as it mounts.
func (d *elicitDriver) waitForm(ctx context.Context) (screen.Elicitation, error) {
	wctx, cancel := context.WithTimeout(ctx, d.cfg.FormTimeout)
	defer cancel()
	_, err := d.cfg.Screen.Wait(wctx, func(s vt.Snapshot) bool { _, ok := d.read(s); return ok })
	if err != nil {
		if ctx.Err() != nil {
			return screen.Elicitation{}, ErrInterrupted
		}
		return screen.Elicitation{}, d.fail("find", fmt.Sprintf("the form of MCP server %q with the fields %s never showed", d.cfg.Server, strings.Join(d.cfg.Titles, ", ")))
	}
	e, ok := d.settled(ctx)
	if !ok {
		return e, d.fail("find", "the form changed as it was drawn")
	}
	return e, nil
}

// settled waits (at most StepTimeout) until the form as read has not
// changed for dialogQuiet, and reads it. The screen itself never stands
// still: the "Calling…" line above the form blinks.
func (d *elicitDriver) settled(ctx context.Context) (screen.Elicitation, bool) {
	deadline := time.Now().Add(d.cfg.StepTimeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		last, _ := screen.ParseElicitation(d.cfg.Screen.Snapshot())
		qctx, cancel := context.WithTimeout(ctx, dialogQuiet)
		_, err := d.cfg.Screen.Wait(qctx, func(s vt.Snapshot) bool {
			e, _ := screen.ParseElicitation(s)
			return e.String() != last.String()
		})
		cancel()
		if err != nil {
			break // unchanged for dialogQuiet, or ctx ended
		}
	}
	return d.read(d.cfg.Screen.Snapshot())
}

// moveTo walks the focus to place p of the ring (see pos) the shorter way,
// or with down set Down only, one arrow at a time, each seen to land one
// place on.
func (d *elicitDriver) moveTo(ctx context.Context, e screen.Elicitation, p int, down bool) (screen.Elicitation, error) {
	n := len(d.cfg.Titles) + 2
	for steps := 0; ; steps++ {
		cur := d.pos(e)
		if cur < 0 {
			return e, d.fail("move", "the focus is on no field or button")
		}
		if cur == p {
			return e, nil
		}
		if steps > 2*n {
			return e, d.fail("move", "the focus never reached its place")
		}
		key, next := keyDown, (cur+1)%n
		if !down && (cur-p+n)%n < (p-cur+n)%n {
			key, next = keyUp, (cur-1+n)%n
		}
		var err error
		e, err = d.press(ctx, "move", key, 1+d.cfg.Retries, d.placeName(cur),
			func(e screen.Elicitation) bool { return d.pos(e) == cur && !open(e) },
			func(e screen.Elicitation) bool { return d.pos(e) == next && !open(e) })
		if err != nil {
			return e, err
		}
	}
}

func (d *elicitDriver) placeName(p int) string {
	switch {
	case p == len(d.cfg.Titles):
		return "Accept"
	case p == len(d.cfg.Titles)+1:
		return "Decline"
	case p >= 0 && p < len(d.cfg.Titles):
		return d.cfg.Titles[p]
	}
	return ""
}

// focusedField is the focused field's row when it is the one titled t.
func focusedField(e screen.Elicitation, t string) (screen.ElicitField, bool) {
	i := e.Focused()
	if i < 0 || e.Button != "" {
		return screen.ElicitField{}, false
	}
	_, ok := e.Fields[i].Value(t)
	return e.Fields[i], ok
}

// set gives the focused field its value.
func (d *elicitDriver) set(ctx context.Context, e screen.Elicitation, v ElicitValue) (screen.Elicitation, error) {
	f, ok := focusedField(e, v.Title)
	if !ok {
		return e, d.fail("set", fmt.Sprintf("the focus is not on %q", v.Title))
	}
	if shows(f, v) {
		return e, nil
	}
	here := func(more func(screen.Elicitation, screen.ElicitField) bool) func(screen.Elicitation) bool {
		return func(e screen.Elicitation) bool {
			f, ok := focusedField(e, v.Title)
			return ok && more(e, f)
		}
	}
	closed := func(e screen.Elicitation, f screen.ElicitField) bool { return !f.Open }
	switch v.Kind {
	case ElicitBool:
		for range 2 {
			got, _ := f.Value(v.Title)
			want := "☒"
			if got == "☒" {
				want = "☐"
			}
			if e, err := d.press(ctx, "toggle", keySpace, 1, v.Title, here(func(_ screen.Elicitation, g screen.ElicitField) bool {
				cur, _ := g.Value(v.Title)
				return cur == got && !g.Open
			}), here(func(_ screen.Elicitation, g screen.ElicitField) bool {
				cur, _ := g.Value(v.Title)
				return cur == want && g.Set
			})); err != nil {
				return e, err
			} else if f, _ = focusedField(e, v.Title); shows(f, v) {
				return e, nil
			}
		}
		return e, d.fail("toggle", fmt.Sprintf("%q does not show %s", v.Title, boxOf(v.Bool)))
	case ElicitText:
		if f.Set {
			return e, d.fail("type", fmt.Sprintf("%q already holds another value", v.Title))
		}
		return d.press(ctx, "type", v.Text, 1, v.Title, here(func(_ screen.Elicitation, g screen.ElicitField) bool {
			return !g.Open && !g.Set
		}), here(func(_ screen.Elicitation, g screen.ElicitField) bool { return shows(g, v) }))
	case ElicitEnum, ElicitMulti:
		e, err := d.press(ctx, "expand", keyRight, 1+d.cfg.Retries, v.Title, here(closed),
			here(func(e screen.Elicitation, g screen.ElicitField) bool { return g.Open && len(e.Options) > 0 }))
		if err != nil {
			return e, err
		}
		if v.Kind == ElicitEnum {
			if e, err = d.moveInList(ctx, e, v.Title, v.Text); err != nil {
				return e, err
			}
			return d.press(ctx, "pick", keySpace, 1, v.Text, here(func(e screen.Elicitation, g screen.ElicitField) bool {
				i := e.FocusedOption()
				return g.Open && i >= 0 && e.Options[i].Label == v.Text
			}), here(func(_ screen.Elicitation, g screen.ElicitField) bool { return shows(g, v) }))
		}
		for _, o := range e.Options {
			want := slices.Contains(v.List, o.Label)
			if o.Checked == want {
				continue
			}
			if e, err = d.moveInList(ctx, e, v.Title, o.Label); err != nil {
				return e, err
			}
			label := o.Label
			if e, err = d.press(ctx, "tick", keySpace, 1, label, here(func(e screen.Elicitation, g screen.ElicitField) bool {
				i := e.FocusedOption()
				return g.Open && i >= 0 && e.Options[i].Label == label && e.Options[i].Checked != want
			}), here(func(e screen.Elicitation, g screen.ElicitField) bool {
				i := e.Option(label)
				return g.Open && i >= 0 && e.Options[i].Checked == want
			})); err != nil {
				return e, err
			}
		}
		return d.press(ctx, "close", keyLeft, 1, v.Title, here(func(e screen.Elicitation, g screen.ElicitField) bool {
			if !g.Open {
				return false
			}
			for _, o := range e.Options {
				if o.Checked != slices.Contains(v.List, o.Label) {
					return false
				}
			}
			return true
		}), here(func(_ screen.Elicitation, g screen.ElicitField) bool { return shows(g, v) }))
	}
	return e, d.fail("set", fmt.Sprintf("no way to set %q", v.Title))
}

// moveInList walks the open list's focus to the option labelled label.
func (d *elicitDriver) moveInList(ctx context.Context, e screen.Elicitation, title, label string) (screen.Elicitation, error) {
	target := e.Option(label)
	if target < 0 {
		return e, d.fail("choose", fmt.Sprintf("%q has no option %q", title, label))
	}
	for steps := 0; steps <= len(e.Options); steps++ {
		cur := e.FocusedOption()
		if cur < 0 {
			return e, d.fail("choose", "the list shows no focus")
		}
		if cur == target {
			return e, nil
		}
		key, next := keyDown, cur+1
		if cur > target {
			key, next = keyUp, cur-1
		}
		labels := optionLabels(e)
		var err error
		e, err = d.press(ctx, "choose", key, 1+d.cfg.Retries, e.Options[cur].Label,
			func(e screen.Elicitation) bool {
				return e.FocusedOption() == cur && slices.Equal(optionLabels(e), labels)
			},
			func(e screen.Elicitation) bool {
				return e.FocusedOption() == next && slices.Equal(optionLabels(e), labels)
			})
		if err != nil {
			return e, err
		}
	}
	return e, d.fail("choose", fmt.Sprintf("the focus never reached %q", label))
}

func optionLabels(e screen.Elicitation) []string {
	out := make([]string, len(e.Options))
	for i, o := range e.Options {
		out[i] = o.Label
	}
	return out
}

// press sends key once the screen shows the form with pre holding, and
// waits for done; a nil done waits for the form to leave the screen. A
// key with tries above 1 (an arrow) goes again only while pre still holds:
// its effect never came, and nothing else changed.
func (d *elicitDriver) press(ctx context.Context, step, key string, tries int, before string,
	pre, done func(screen.Elicitation) bool) (screen.Elicitation, error) {
	var got screen.Elicitation
	leaves := done == nil
	fail := func(reason string) error { return d.fail(step, reason) }
	p := keyPress{
		tries: tries,
		before: func(int) error {
			if wait := time.Until(d.sent.Add(elicitGap)); tries == 1 && wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-ctx.Done():
				}
				t.Stop()
			}
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			e, ok := d.read(d.cfg.Screen.Snapshot())
			if !ok || !pre(e) {
				return fail(fmt.Sprintf("before %s: the screen does not show the form as expected", keyName(key)))
			}
			return nil
		},
		send: func() error {
			if err := d.cfg.Keys.SendKeys([]byte(key)); err != nil {
				return err
			}
			d.keys++
			d.sent = time.Now()
			return nil
		},
		await: func() (vt.Snapshot, bool) {
			wctx, cancel := context.WithTimeout(ctx, d.cfg.StepTimeout)
			defer cancel()
			s, err := d.cfg.Screen.Wait(wctx, func(s vt.Snapshot) bool {
				if leaves {
					select {
					case <-d.cfg.Answered:
						return true
					default:
					}
					_, on := screen.ParseElicitation(s)
					return !on
				}
				e, ok := d.read(s)
				if ok && done(e) {
					got = e
					return true
				}
				return false
			})
			return s, err == nil
		},
		report: func(s vt.Snapshot, seen bool) {
			if d.cfg.OnKey == nil {
				return
			}
			after := ""
			if e, ok := screen.ParseElicitation(s); ok {
				after = d.placeName(d.pos(e))
			}
			d.cfg.OnKey(KeyEvent{Key: keyName(key), Before: before, After: after, Seen: seen})
		},
		unseen: func(s vt.Snapshot, _ int) (vt.Snapshot, bool, error) {
			if ctx.Err() != nil {
				return s, false, ErrInterrupted
			}
			if tries > 1 {
				if e, ok := d.read(d.cfg.Screen.Snapshot()); !ok || !pre(e) {
					return s, false, fail(fmt.Sprintf("%s had an effect other than the one expected", keyName(key)))
				}
			}
			return s, false, nil
		},
		fail: func(vt.Snapshot) error {
			return fail(fmt.Sprintf("%s had no visible effect on the form", keyName(key)))
		},
	}
	_, err := p.run()
	return got, err
}
