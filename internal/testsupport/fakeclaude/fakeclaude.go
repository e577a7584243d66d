package fakeclaude

import (
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// Question is one question of the fake form.
type Question struct {
	Header   string
	Question string
	Multi    bool
	Options  []Option
}

// Option is one offered option. An option with a Preview puts a
// single-select question in the preview layout.
type Option struct{ Label, Desc, Preview string }

func (q Question) hook() answer.Question {
	h := answer.Question{Header: q.Header, Question: q.Question, MultiSelect: q.Multi}
	for _, o := range q.Options {
		h.Options = append(h.Options, answer.Option{Label: o.Label, Description: o.Desc, Preview: o.Preview})
	}
	return h
}

// previewLayout reports whether q is drawn with a preview box beside its
// options: no Type something row, notes typed with n.
func previewLayout(q Question) bool { return q.hook().PreviewLayout() }

// Answers is qs as the hook receives them.
func Answers(qs []Question) []answer.Question {
	var h []answer.Question
	for _, q := range qs {
		h = append(h, q.hook())
	}
	return h
}

func cloneQuestions(qs []Question) []Question {
	out := make([]Question, len(qs))
	for i, q := range qs {
		q.Options = append([]Option(nil), q.Options...)
		out[i] = q
	}
	return out
}

// OtherPos is the place of "Type something" on q's page. The places are in
// the order Up/Down walk through them: options 0..n-1, "Type something" n,
// the button n+1 (multi-select only), "Chat about this" last.
func OtherPos(q Question) int { return len(q.Options) }

// ButtonPos is the place of a multi-select page's Next or Submit button.
func ButtonPos(q Question) int { return len(q.Options) + 1 }

// ChatPos is the place of "Chat about this" on q's page.
func ChatPos(q Question) int {
	if previewLayout(q) {
		return len(q.Options)
	}
	if q.Multi {
		return len(q.Options) + 2
	}
	return len(q.Options) + 1
}

// Faults make the fake misbehave. Keys are counted by SendKeys call, from 1.
type Faults struct {
	Swallow map[int]bool // the key has no effect
	// Refuse drops the key without drawing anything, as Claude Code
	// 2.1.266+ refuse an Enter typed ahead on a guarded dialog.
	Refuse   map[int]bool
	Double   map[int]bool          // the key takes effect twice
	WrongWay map[int]bool          // Up moves down and Down moves up
	Delay    map[int]time.Duration // the key takes effect this much later
	Ignore   bool                  // no key has any effect
	// DoubleDowns makes every Down take effect twice.
	DoubleDowns bool

	// After key ChangeAfter (whether it had an effect or not), Change edits
	// the questions on screen: the form changing under the wrapper.
	ChangeAfter int
	Change      func(qs []Question)
	// Typed is text the person types into Claude's prompt right after key
	// n took effect, drawn in the same frame.
	Typed map[int]string
	// After key CloseAfter, Claude is gone: the screen shows a shell.
	CloseAfter int
	// After key ResizeAfter, the terminal becomes ResizeCols wide.
	ResizeAfter int
	ResizeCols  int
	// ResizeLate has the fake draw key ResizeAfter's effect, at the new
	// width, only this much after the resize, as Claude draws after
	// SIGWINCH: meanwhile the screen holds the frame before the key, cut to
	// the new width (a wrapped question loses the end of its first line).
	ResizeLate time.Duration
	// From key TallAfter on, while the terminal is shorter than TallRows,
	// only the page's footer shows: the key made the page taller than the
	// screen and no form is left to see (notes wrapped in a narrow
	// preview column on a short screen).
	TallAfter, TallRows int
	// LateDraw delays the fake's draw after SetRows, as a busy Claude
	// redraws late: meanwhile the old frame stays on the taller screen.
	LateDraw time.Duration

	// StartFocus is the focus position on the first page when the form
	// appears.
	StartFocus int
	// AppearAfter draws Claude "thinking" first and the form this much later.
	AppearAfter time.Duration
	// NoSync draws without synchronized updates, so the emulator settles on
	// its quiet period only.
	NoSync bool
	// OnSend is called synchronously in SendKeys with the key's number.
	OnSend func(n int)
	// KeepSent sends a message from Claude's prompt but leaves its text in
	// the input box, as Claude Code 2.1.197 sometimes does.
	KeepSent bool
	// Garble leaves the screen garbled after the key (the page's question
	// loses its last character, as Claude Code 2.1.197's renderer drops
	// one) until the next Redraw.
	Garble map[int]bool
	// Mangle, when set, is what becomes of text typed into Type something
	// on its way to Claude: drawn and recorded as Mangle(key).
	Mangle func(string) string
	// Version is the Claude Code version the fake's emulator measures by
	// (screen.Options.Version): "" for the newest.
	Version string
	// Vim has "Type something" typed in vim's insert mode, as Claude Code
	// 2.1.321 and later do in its vim mode: while the row has the focus the
	// footer begins "-- INSERT -- · " and offers no Esc, and Esc leaves the
	// mode (normal mode, the plain footer) instead of cancelling.
	Vim bool
}

// State is where the fake is: before, on or after its form.
type State int

// States.
const (
	Thinking State = iota // before the form shows
	Open                  // the form is on the screen
	Submitted
	Cancelled
	Chatted
	Killed // Claude is gone: the screen shows a shell
)

// KeyRec is one SendKeys call as the fake saw it.
type KeyRec struct {
	N       int
	Keys    string
	Applied bool // the key was handled (not swallowed or ignored)
}

// EnterRec is one Enter that reached the form, with where the focus was,
// or one number key, with the place of the option it names as Focus.
type EnterRec struct {
	Page  int // question index; len(questions) is the review page
	Focus int
	Key   string // "" for Enter; the digit for a number key
}

// Form is the fake's state, which tests may set with [Claude.Edit].
type Form struct {
	State   State
	Page    int      // the question page shown; len(questions) is the review page
	Focus   []int    // per question page
	Ticks   [][]int  // per question, option indices in tick order (n: Type something)
	Text    []string // per question, what was typed into Type something
	Visited []bool   // per question, the Type something row has had the focus
	Chosen  []string // per question, the single-select answer
	Notes   []string // per question, the notes of a preview question
	Editing []bool   // per question, the notes are open for typing
	Normal  []bool   // per question, vim's normal mode on Type something (Faults.Vim)
	Review  int      // review page focus: 0 Submit answers, 1 Cancel
	Prompt  string   // Claude's input box after the form closed
}

type pending struct {
	n int
	b []byte
}

// Claude is the fake form. Create it with New.
type Claude struct {
	t  testing.TB
	em vt.Emulator
	f  Faults

	mu        sync.Mutex
	qs        []Question
	cols      int
	st        Form
	onState   func(State)
	received  []KeyRec
	enters    []EnterRec
	submitted map[string]string // the answers Claude would report; nil until submitted
	notes     map[string]string // the notes Claude would report, by question
	sent      []string          // messages sent from Claude's prompt
	handled   int               // keys taken off the queue
	garbled   bool              // the screen is garbled until a Redraw
	redraws   int               // Redraw calls
	progress  chan struct{}     // closed and replaced whenever a key was handled

	queue chan pending
	done  chan struct{}
	wg    sync.WaitGroup
	// mirror gets a copy of every frame drawn (see Mirror).
	mirror io.Writer
}

const keyLatency = 5 * time.Millisecond

// New draws the form (a copy of qs) into a new cols x rows emulator.
// It stops when the test ends.
func New(t testing.TB, qs []Question, cols, rows int, f Faults) *Claude {
	t.Helper()
	fc := &Claude{
		t:        t,
		em:       screen.New(screen.Options{Cols: cols, Rows: rows, Version: f.Version}),
		f:        f,
		qs:       cloneQuestions(qs),
		cols:     cols,
		st:       newForm(len(qs)),
		progress: make(chan struct{}),
		queue:    make(chan pending, 1024),
		done:     make(chan struct{}),
	}
	fc.st.Focus[0] = f.StartFocus
	fc.wg.Add(1)
	go fc.loop()
	t.Cleanup(func() {
		close(fc.done)
		fc.wg.Wait()
	})
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if f.AppearAfter > 0 {
		fc.redrawLocked()
		fc.wg.Add(1)
		go func() {
			defer fc.wg.Done()
			select {
			case <-time.After(f.AppearAfter):
			case <-fc.done:
				return
			}
			fc.become(Open, func(st State) bool { return st == Thinking })
		}()
		return fc
	}
	fc.st.State = Open
	fc.redrawLocked()
	return fc
}

// Redraw draws the screen again, clean.
func (fc *Claude) Redraw() error {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.redraws++
	fc.garbled = false
	fc.redrawLocked()
	return nil
}

// SetRows makes the fake's terminal rows tall and redraws, as Claude
// draws anew on a size change (see askflow.Grower).
func (fc *Claude) SetRows(rows int) error {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.em.Resize(fc.cols, rows)
	if fc.f.LateDraw == 0 {
		fc.redrawLocked()
		return nil
	}
	fc.drawLate(fc.f.LateDraw)
	return nil
}

// drawLate redraws d from now, unless the fake is closed first.
func (fc *Claude) drawLate(d time.Duration) {
	fc.wg.Add(1)
	go func() {
		defer fc.wg.Done()
		select {
		case <-time.After(d):
		case <-fc.done:
			return
		}
		fc.mu.Lock()
		defer fc.mu.Unlock()
		fc.redrawLocked()
	}()
}

// SendKeys queues p; it takes effect a little later, on the fake's goroutine.
func (fc *Claude) SendKeys(p []byte) error {
	fc.mu.Lock()
	if fc.st.State == Killed {
		fc.mu.Unlock()
		return errors.New("write /dev/ptmx: input/output error")
	}
	n := len(fc.received) + 1
	fc.received = append(fc.received, KeyRec{N: n, Keys: string(p)})
	fc.mu.Unlock()
	if fc.f.OnSend != nil {
		fc.f.OnSend(n)
	}
	fc.queue <- pending{n: n, b: append([]byte(nil), p...)}
	return nil
}

func (fc *Claude) loop() {
	defer fc.wg.Done()
	for {
		select {
		case <-fc.done:
			return
		case k := <-fc.queue:
			d := keyLatency + fc.f.Delay[k.n]
			select {
			case <-time.After(d):
			case <-fc.done:
				return
			}
			before, after, on := fc.apply(k)
			if after != before && on != nil {
				on(after)
			}
		}
	}
}

// apply handles one key; it returns the state before and after, and whom
// to tell of a change.
func (fc *Claude) apply(k pending) (before, after State, on func(State)) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	before = fc.st.State
	applied := !fc.f.Ignore && !fc.f.Swallow[k.n] && !fc.f.Refuse[k.n]
	if applied {
		times := 1
		if fc.f.Double[k.n] || fc.f.DoubleDowns && string(k.b) == "\x1b[B" {
			times = 2
		}
		for range times {
			fc.keysLocked(string(k.b), fc.f.WrongWay[k.n])
		}
	}
	fc.received[k.n-1].Applied = applied
	if fc.f.Refuse[k.n] {
		fc.handled++
		close(fc.progress)
		fc.progress = make(chan struct{})
		return before, before, nil
	}
	if t, ok := fc.f.Typed[k.n]; ok {
		fc.st.Prompt += t
	}
	if k.n == fc.f.ChangeAfter && fc.f.Change != nil {
		fc.f.Change(fc.qs)
	}
	if k.n == fc.f.CloseAfter {
		fc.st.State = Killed
	}
	if fc.f.Garble[k.n] {
		fc.garbled = true
	}
	late := false
	if k.n == fc.f.ResizeAfter {
		_, rows := fc.em.Size()
		fc.em.Resize(fc.f.ResizeCols, rows)
		fc.cols = fc.f.ResizeCols
		if late = fc.f.ResizeLate > 0; late {
			fc.drawLate(fc.f.ResizeLate)
		}
	}
	if !late {
		fc.redrawLocked()
	}
	fc.handled++
	close(fc.progress)
	fc.progress = make(chan struct{})
	return before, fc.st.State, fc.onState
}

// Garble leaves the screen garbled until the next Redraw, as Claude Code
// 2.1.197 can leave a short screen when a form asked with another takes
// its place.
func (fc *Claude) Garble() {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.garbled = true
	fc.redrawLocked()
}

// Mirror has every frame the fake draws from now on written to w too, as
// a process standing for Claude writes them to its terminal.
func (fc *Claude) Mirror(w io.Writer) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.mirror = w
	fc.redrawLocked()
}

// Screen is the emulated terminal the fake draws into.
func (fc *Claude) Screen() vt.Emulator { return fc.em }

// OnState has fn called, on the fake's goroutine, whenever its state
// changes (the form shows, is submitted, cancelled, ...).
func (fc *Claude) OnState(fn func(State)) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.onState = fn
}

// Edit changes the fake's state and redraws, as if Claude had got there.
func (fc *Claude) Edit(fn func(*Form)) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fn(&fc.st)
	fc.redrawLocked()
}

// Ask shows a new form asking qs, as Claude's next AskUserQuestion call
// would.
func (fc *Claude) Ask(qs []Question) {
	fc.mu.Lock()
	fc.qs = cloneQuestions(qs)
	prompt := fc.st.Prompt // the input box keeps its text under a form
	fc.st = newForm(len(qs))
	fc.st.State, fc.st.Prompt = Open, prompt
	fc.submitted, fc.notes = nil, nil
	fc.redrawLocked()
	on := fc.onState
	fc.mu.Unlock()
	if on != nil {
		on(Open)
	}
}

func newForm(n int) Form {
	return Form{
		Focus:   make([]int, n),
		Ticks:   make([][]int, n),
		Text:    make([]string, n),
		Visited: make([]bool, n),
		Chosen:  make([]string, n),
		Notes:   make([]string, n),
		Editing: make([]bool, n),
		Normal:  make([]bool, n),
	}
}

// Kill ends the fake Claude: its screen shows a shell and keys fail.
func (fc *Claude) Kill() {
	fc.become(Killed, func(st State) bool { return st != Killed })
}

// become moves the fake to state to when ok holds for the state it is in,
// redraws, and tells the OnState function (outside the lock).
func (fc *Claude) become(to State, ok func(State) bool) {
	fc.mu.Lock()
	changed := ok(fc.st.State)
	if changed {
		fc.st.State = to
		fc.redrawLocked()
	}
	on := fc.onState
	fc.mu.Unlock()
	if changed && on != nil {
		on(to)
	}
}

// Settle waits until every key sent has been handled, so that the records
// are final.
func (fc *Claude) Settle() {
	fc.t.Helper()
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	for {
		fc.mu.Lock()
		done, ch := fc.handled == len(fc.received), fc.progress
		fc.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			fc.t.Fatalf("the fake still has unhandled keys after 5s")
		}
	}
}

// Submitted are the answers Claude would report, by question; nil until
// submitted. Read the records after [Claude.Settle].
func (fc *Claude) Submitted() map[string]string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.submitted
}

// Notes are the notes Claude would report with the answers, by question;
// nil until submitted.
func (fc *Claude) Notes() map[string]string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.notes
}

// State is where the fake is now.
func (fc *Claude) State() State {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.st.State
}

// Sent are the messages sent from Claude's prompt.
func (fc *Claude) Sent() []string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]string(nil), fc.sent...)
}

// Received is every SendKeys call, in order.
func (fc *Claude) Received() []KeyRec {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]KeyRec(nil), fc.received...)
}

// Enters is every Enter and number key that reached the form, in order.
func (fc *Claude) Enters() []EnterRec {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]EnterRec(nil), fc.enters...)
}

func (s State) String() string {
	return [...]string{"thinking", "open", "submitted", "cancelled", "chatted", "killed"}[s]
}
