package fakeclaude

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

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

// Positions on a question page, in the order Up/Down walk through them:
// options 0..n-1, "Type something" n, the button n+1 (multi-select only),
// "Chat about this" last.
func OtherPos(q Question) int { return len(q.Options) }

func ButtonPos(q Question) int { return len(q.Options) + 1 }

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
	// the input box, as Claude Code 2.1.197 sometimes does (stress seed
	// 9737646259466774155, s035).
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
// 2.1.197 left a short screen when a form asked with another took its
// place.
func (fc *Claude) Garble() {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.garbled = true
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

// splitKeys cuts what a terminal sends into keys.
func splitKeys(s string) []string {
	var out []string
	for s != "" {
		switch {
		case strings.HasPrefix(s, "\x1b[") && len(s) >= 3:
			out, s = append(out, s[:3]), s[3:]
		case s[0] < 0x20 || s[0] == 0x7f:
			out, s = append(out, s[:1]), s[1:]
		default:
			_, size := utf8.DecodeRuneInString(s)
			out, s = append(out, s[:size]), s[size:]
		}
	}
	return out
}

func (fc *Claude) keysLocked(s string, wrongWay bool) {
	for _, k := range splitKeys(s) {
		if wrongWay {
			switch k {
			case "\x1b[A":
				k = "\x1b[B"
			case "\x1b[B":
				k = "\x1b[A"
			}
		}
		switch fc.st.State {
		case Open:
			if fc.st.Page == len(fc.qs) {
				fc.reviewKey(k)
			} else {
				fc.questionKey(k)
			}
		case Submitted, Cancelled, Chatted:
			fc.promptKey(k)
		}
	}
}

func (fc *Claude) questionKey(k string) {
	q := fc.qs[fc.st.Page]
	p := fc.st.Page
	last := ChatPos(q)
	if previewLayout(q) && fc.notesKey(p, k) {
		return
	}
	switch k {
	case "\x1b[A":
		switch {
		case fc.st.Focus[p] > 0:
			fc.st.Focus[p]--
		case !previewLayout(q):
			// Up on option 1 wraps to Type something, as Claude does.
			fc.st.Focus[p] = OtherPos(q)
		}
		fc.st.Visited[p] = fc.st.Visited[p] || fc.st.Focus[p] == OtherPos(q)
		fc.st.Normal[p] = false
	case "\x1b[B":
		fc.st.Focus[p] = min(last, fc.st.Focus[p]+1)
		fc.st.Visited[p] = fc.st.Visited[p] || fc.st.Focus[p] == OtherPos(q)
		fc.st.Normal[p] = false
	case "\x1b[C", "\t":
		if fc.tabbed() {
			fc.st.Page++
		}
	case "\x1b[D":
		if fc.st.Page > 0 {
			fc.st.Page--
		}
	case "\x1b", "\x03":
		if k == "\x1b" && fc.insert(p) {
			fc.st.Normal[p] = true // vim: Esc leaves insert mode
			return
		}
		fc.st.State = Cancelled
	case "\r":
		fc.enters = append(fc.enters, EnterRec{Page: p, Focus: fc.st.Focus[p]})
		fc.activate(fc.st.Focus[p])
	case "\x7f":
		if fc.st.Focus[p] == OtherPos(q) && fc.st.Text[p] != "" {
			r := []rune(fc.st.Text[p])
			fc.st.Text[p] = string(r[:len(r)-1])
		}
	default:
		r, _ := utf8.DecodeRuneInString(k)
		switch {
		case fc.st.Focus[p] == OtherPos(q) && !previewLayout(q) && unicode.IsPrint(r):
			if fc.f.Mangle != nil {
				k = fc.f.Mangle(k)
			}
			fc.st.Text[p] += k
		case r >= '1' && int(r-'0') <= len(q.Options) && q.Multi:
			// A digit ticks or unticks its option, the focus left where
			// it is (every pinned version: testdata/screens/*/digit-*).
			fc.enters = append(fc.enters, EnterRec{Page: p, Focus: int(r - '1'), Key: k})
			fc.toggle(p, int(r-'1'))
		case r >= '1' && int(r-'0') <= len(q.Options):
			// A digit picks its option and moves on.
			fc.enters = append(fc.enters, EnterRec{Page: p, Focus: int(r - '1'), Key: k})
			fc.st.Focus[p] = int(r - '1')
			fc.activate(fc.st.Focus[p])
		}
	}
}

// insert reports whether page p's Type something row is typed in vim's
// insert mode (Faults.Vim): it has the focus, and Esc has not left the mode.
func (fc *Claude) insert(p int) bool {
	q := fc.qs[p]
	return fc.f.Vim && !previewLayout(q) && !q.Multi && fc.st.Focus[p] == OtherPos(q) && !fc.st.Normal[p]
}

// notesKey handles k on a preview page if it concerns the notes: n
// opens them on an option; while open, text goes into them, and Esc
// closes them, keeping what was typed.
func (fc *Claude) notesKey(p int, k string) bool {
	if !fc.st.Editing[p] {
		if k == "n" && fc.st.Focus[p] < len(fc.qs[p].Options) {
			fc.st.Editing[p] = true
			return true
		}
		return false
	}
	switch r, _ := utf8.DecodeRuneInString(k); {
	case k == "\x1b":
		fc.st.Editing[p] = false
	case k == "\x7f":
		if r := []rune(fc.st.Notes[p]); len(r) > 0 {
			fc.st.Notes[p] = string(r[:len(r)-1])
		}
	case unicode.IsPrint(r):
		fc.st.Notes[p] += k
	default:
		return false // Enter selects with the notes open
	}
	return true
}

// activate is Enter on position pos of the current page.
func (fc *Claude) activate(pos int) {
	p := fc.st.Page
	q := fc.qs[p]
	switch {
	case pos == ChatPos(q):
		fc.st.State = Chatted
	case q.Multi && pos == ButtonPos(q):
		fc.advance()
	case q.Multi && (pos < len(q.Options) || fc.st.Text[p] != ""):
		fc.toggle(p, pos)
	case pos < len(q.Options):
		fc.st.Chosen[p] = q.Options[pos].Label
		fc.advance()
	case fc.st.Text[p] != "":
		fc.st.Chosen[p] = fc.st.Text[p]
		fc.advance()
	}
}

func (fc *Claude) toggle(p, pos int) {
	for i, t := range fc.st.Ticks[p] {
		if t == pos {
			fc.st.Ticks[p] = append(fc.st.Ticks[p][:i:i], fc.st.Ticks[p][i+1:]...)
			return
		}
	}
	fc.st.Ticks[p] = append(fc.st.Ticks[p], pos)
}

func (fc *Claude) ticked(p, pos int) bool {
	for _, t := range fc.st.Ticks[p] {
		if t == pos {
			return true
		}
	}
	return false
}

// tabbed reports whether the form has a tab row and a review page: several
// questions, or one multi-select question (its own tab and Submit).
func (fc *Claude) tabbed() bool { return len(fc.qs) > 1 || fc.qs[0].Multi }

func (fc *Claude) advance() {
	if !fc.tabbed() {
		fc.submit()
		return
	}
	fc.st.Page++
	fc.st.Review = 0
}

// answer is what Claude reports for question p.
func (fc *Claude) answer(p int) string {
	q := fc.qs[p]
	if !q.Multi {
		return fc.st.Chosen[p]
	}
	var labels []string
	for _, t := range fc.st.Ticks[p] {
		if t < len(q.Options) {
			labels = append(labels, q.Options[t].Label)
		} else {
			labels = append(labels, fc.st.Text[p])
		}
	}
	return strings.Join(labels, ", ")
}

func (fc *Claude) answered(p int) bool { return fc.answer(p) != "" }

func (fc *Claude) submit() {
	fc.submitted, fc.notes = map[string]string{}, map[string]string{}
	for i, q := range fc.qs {
		fc.submitted[q.Question] = fc.answer(i)
		if fc.st.Notes[i] != "" {
			fc.notes[q.Question] = fc.st.Notes[i]
		}
	}
	fc.st.State = Submitted
}

func (fc *Claude) reviewKey(k string) {
	switch k {
	case "\x1b[A":
		fc.st.Review = 0
	case "\x1b[B":
		fc.st.Review = 1
	case "\x1b[D":
		fc.st.Page--
	case "\x1b", "\x03":
		fc.st.State = Cancelled
	case "\r", "1", "2":
		if k != "\r" {
			fc.st.Review = int(k[0] - '1')
		}
		fc.enters = append(fc.enters, EnterRec{Page: fc.st.Page, Focus: fc.st.Review})
		if fc.st.Review == 0 {
			fc.submit()
		} else {
			fc.st.State = Cancelled
		}
	}
}

func (fc *Claude) promptKey(k string) {
	switch k {
	case "\r":
		if fc.st.Prompt != "" {
			fc.sent = append(fc.sent, fc.st.Prompt)
			if !fc.f.KeepSent {
				fc.st.Prompt = ""
			}
		}
	case "\x15":
		// Ctrl-U: the input box's last line goes, as Claude Code deletes
		// from the cursor (at the end) to the start of its line.
		ls := wrap(fc.st.Prompt, fc.cols-2)
		fc.st.Prompt = strings.Join(ls[:len(ls)-1], " ")
	case "\x7f":
		if r := []rune(fc.st.Prompt); len(r) > 0 {
			fc.st.Prompt = string(r[:len(r)-1])
		}
	default:
		if r, _ := utf8.DecodeRuneInString(k); unicode.IsPrint(r) {
			fc.st.Prompt += k
		}
	}
}

// Drawing, as 2.1.330 does at 100 columns.

const (
	sgrDim     = "\x1b[38;5;246m"
	sgrFocus   = "\x1b[38;5;153m"
	sgrWhite   = "\x1b[38;5;231m"
	sgrGreen   = "\x1b[38;5;114m"
	sgrRule    = "\x1b[38;5;244m"
	sgrFG      = "\x1b[39m"
	sgrBold    = "\x1b[1m"
	sgrNoBold  = "\x1b[22m"
	sgrTabOn   = "\x1b[38;5;16m\x1b[48;5;153m"
	sgrTabOff  = "\x1b[39m\x1b[49m"
	pointerRow = sgrFocus + "❯" + sgrFG + " "
)

func (fc *Claude) redrawLocked() {
	var b strings.Builder
	if !fc.f.NoSync {
		b.WriteString("\x1b[?2026h")
	}
	b.WriteString("\x1b[H\x1b[2J")
	if fc.st.State == Killed {
		b.WriteString("$ ")
	} else {
		ls := fc.linesLocked()
		if _, rows := fc.em.Size(); fc.f.TallAfter > 0 && fc.handled+1 >= fc.f.TallAfter && rows < fc.f.TallRows && len(ls) > 2 {
			ls = ls[len(ls)-2:]
		}
		if fc.garbled && fc.st.State == Open && fc.st.Page < len(fc.qs) {
			q := fc.qs[fc.st.Page].Question
			for i, l := range ls {
				ls[i] = strings.Replace(l, q, q[:len(q)-1], 1)
			}
		}
		b.WriteString(strings.Join(ls, "\r\n"))
	}
	if !fc.f.NoSync {
		b.WriteString("\x1b[?2026l")
	}
	if _, err := fc.em.Write([]byte(b.String())); err != nil {
		fc.t.Errorf("emulator write: %v", err)
	}
}

// wrap breaks s into lines of at most width runes, at spaces.
func wrap(s string, width int) []string {
	width = max(width, 8)
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			out = append(out, line)
			line = w
		}
	}
	return append(out, line)
}

func (fc *Claude) rule(sgr string) string {
	return sgr + strings.Repeat("─", fc.cols) + sgrFG
}

func (fc *Claude) linesLocked() []string {
	ls := []string{sgrWhite + "●" + sgrFG + " Let me ask you a few questions.", ""}
	switch fc.st.State {
	case Thinking:
		return append(ls, "\x1b[38;5;174m✢ Thinking…"+sgrFG)
	case Open:
		ls = append(ls, fc.rule(sgrDim))
		if fc.st.Page == len(fc.qs) {
			return append(ls, fc.reviewLines()...)
		}
		return append(ls, fc.questionLines()...)
	}
	switch fc.st.State {
	case Submitted:
		ls = append(ls, sgrWhite+"●"+sgrFG+" Answered Claude's questions:")
		for _, q := range fc.qs {
			ls = append(ls, "  ⎿  · "+q.Question+" → "+fc.submitted[q.Question])
		}
	case Cancelled:
		ls = append(ls, sgrWhite+"●"+sgrFG+" User declined to answer questions")
	}
	for _, m := range fc.sent {
		ls = append(ls, "")
		for i, l := range wrap(m, fc.cols-2) {
			lead := "  "
			if i == 0 {
				lead = sgrDim + "❯ "
			}
			ls = append(ls, "\x1b[48;5;237m"+lead+sgrWhite+l+sgrFG+"\x1b[49m")
		}
	}
	ls = append(ls, "", fc.rule(sgrRule))
	for i, l := range wrap(fc.st.Prompt, fc.cols-2) {
		if i == 0 {
			ls = append(ls, "❯ "+l)
		} else {
			ls = append(ls, "  "+l)
		}
	}
	return append(ls, fc.rule(sgrRule), "  \x1b[38;5;220m⏵⏵ auto mode on"+sgrFG)
}

func (fc *Claude) header() string {
	chip := func(mark, title string, active bool) string {
		if active {
			return sgrTabOn + " " + mark + " " + title + " " + sgrTabOff
		}
		return " " + mark + " " + title + " "
	}
	if !fc.tabbed() {
		mark := "☐"
		if fc.answered(0) {
			mark = "☒"
		}
		return chip(mark, fc.qs[0].Header, true)
	}
	var tabs []string
	for i, q := range fc.qs {
		mark := "☐"
		if fc.answered(i) {
			mark = "☒"
		}
		tabs = append(tabs, chip(mark, q.Header, i == fc.st.Page))
	}
	tabs = append(tabs, chip("✔", "Submit", fc.st.Page == len(fc.qs)))
	// An arrow is dim where there is nothing further that way.
	left, right := "←", "→"
	if fc.st.Page == 0 {
		left = sgrDim + left + sgrFG
	}
	if fc.st.Page == len(fc.qs) {
		right = sgrDim + right + sgrFG
	}
	return left + " " + strings.Join(tabs, "") + " " + right
}

func (fc *Claude) questionLines() []string {
	p := fc.st.Page
	q := fc.qs[p]
	focus := fc.st.Focus[p]
	ls := []string{fc.header(), ""}
	// A question that wraps is drawn behind a bar (2.1.330).
	if ql := wrap(q.Question, fc.cols); len(ql) == 1 {
		ls = append(ls, sgrWhite+sgrBold+ql[0]+sgrNoBold+sgrFG)
	} else {
		for _, l := range wrap(q.Question, fc.cols-2) {
			ls = append(ls, "\x1b[2m│ "+sgrNoBold+sgrWhite+sgrBold+l+sgrNoBold+sgrFG)
		}
	}
	ls = append(ls, "")
	if previewLayout(q) {
		return append(ls, fc.previewLines()...)
	}

	indent := 5 // where the label starts
	descIndent := indent
	if q.Multi {
		descIndent = 9
	}
	row := func(pos int, label, desc string, placeholder, typed bool) {
		focused := pos == focus
		lead := "  "
		if focused {
			lead = pointerRow
		}
		box := ""
		if q.Multi {
			box = "[ ] "
			if fc.ticked(p, pos) {
				box = sgrGreen + "[✔]" + sgrFG + " "
			}
		}
		colour, cursor := "", ""
		switch {
		case placeholder && !focused:
			colour = sgrDim
		case typed && focused:
			cursor = "\x1b[7m \x1b[27m" // the text field's cursor
		case placeholder: // focused: drawn with the cursor below
		case focused:
			colour = sgrFocus
		}
		// Label lines after the first line up with the label's text.
		if placeholder && focused {
			// The text field's cursor on the first letter, the rest dim.
			r := []rune(label)
			label = "\x1b[7m" + string(r[0]) + "\x1b[27m\x1b[2m" + string(r[1:]) + sgrNoBold
		}
		for i, l := range wrap(label, fc.cols-descIndent) {
			if i == 0 {
				ls = append(ls, fmt.Sprintf("%s%s%d.%s %s%s%s%s%s", lead, sgrDim, pos+1, sgrFG, box, colour, l, sgrFG, cursor))
			} else {
				ls = append(ls, strings.Repeat(" ", descIndent)+colour+l+sgrFG)
			}
		}
		if desc != "" {
			for _, l := range wrap(desc, fc.cols-descIndent) {
				ls = append(ls, strings.Repeat(" ", descIndent)+sgrDim+l+sgrFG)
			}
		}
	}
	for i, o := range q.Options {
		row(i, o.Label, o.Desc, false, false)
	}
	placeholder := "Type something."
	if q.Multi {
		placeholder = "Type something"
	}
	if fc.st.Text[p] != "" {
		row(OtherPos(q), fc.st.Text[p], "", false, true)
	} else {
		row(OtherPos(q), placeholder, "", true, false)
	}
	if q.Multi {
		label := "Next"
		if p == len(fc.qs)-1 {
			label = "Submit"
		}
		if focus == ButtonPos(q) {
			ls = append(ls, pointerRow+"   "+sgrFocus+sgrBold+label+sgrNoBold+sgrFG)
		} else {
			ls = append(ls, strings.Repeat(" ", indent)+sgrBold+label+sgrNoBold)
		}
	}
	ls = append(ls, fc.rule(sgrDim))
	// The button has no number: Chat about this follows Type something.
	number := len(q.Options) + 2
	if focus == ChatPos(q) {
		ls = append(ls, fmt.Sprintf("%s%s%d. Chat about this%s", pointerRow, sgrFocus, number, sgrFG))
	} else {
		ls = append(ls, fmt.Sprintf("  %d. Chat about this", number))
	}
	footer := "Enter to select · ↑/↓ to navigate · Esc to cancel"
	if len(fc.qs) > 1 {
		footer = "Enter to select · Tab/Arrow keys to navigate · Esc to cancel"
	}
	if fc.st.Visited[p] || focus == OtherPos(q) {
		// Shown once the Type something row has had the focus.
		footer = strings.Replace(footer, " · Esc", " · ctrl+g to edit in Vim · Esc", 1)
	}
	if fc.insert(p) {
		footer = "-- INSERT -- · " + strings.TrimSuffix(footer, " · Esc to cancel")
	}
	return append(ls, "", sgrDim+footer+sgrFG)
}

// previewLines draws a preview page under its question as 2.1.330 does at
// 100 columns: the options in a column of their own, the focused option's
// preview in a box beside them, the notes under the box, then Chat about
// this, unnumbered. Labels are not wrapped: keep them within the column
// (about 28 cells); narrower screens and longer labels are the golden
// screens' business.
func (fc *Claude) previewLines() []string {
	const left, boxWidth = 34, 44
	p := fc.st.Page
	q := fc.qs[p]
	focus := fc.st.Focus[p]
	// With Chat about this focused, the last option keeps its pointer and
	// its preview.
	shown := min(focus, len(q.Options)-1)
	var rows []string
	for i, o := range q.Options {
		label := " " + o.Label
		if i == shown {
			rows = append(rows, sgrFocus+"❯"+sgrDim+fmt.Sprintf(" %d.", i+1)+sgrFocus+sgrBold+label+sgrNoBold+sgrFG)
		} else {
			rows = append(rows, " "+sgrDim+fmt.Sprintf(" %d.", i+1)+sgrFG+label)
		}
	}
	pad := func(s string, width int) string {
		return s + strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
	}
	// The box beside the options, from the first option's row down.
	box := []string{sgrDim + "┌" + strings.Repeat("─", boxWidth-2) + "┐" + sgrFG}
	for _, l := range strings.Split(q.Options[shown].Preview, "\n") {
		box = append(box, sgrDim+"│"+sgrFG+" "+pad(l, boxWidth-4)+" "+sgrDim+"│"+sgrFG)
	}
	box = append(box, sgrDim+"└"+strings.Repeat("─", boxWidth-2)+"┘"+sgrFG)
	var ls []string
	for i := range max(len(rows), len(box)) {
		row, width := "", 0
		if i < len(rows) {
			row = rows[i]
			width = 2 + len(fmt.Sprint(i+1)) + 1 + 1 + utf8.RuneCountInString(q.Options[i].Label)
		}
		if i < len(box) {
			row += strings.Repeat(" ", max(1, left-width)) + box[i]
		}
		ls = append(ls, row)
	}
	notes := "\x1b[3m" + sgrDim + "press n to add notes" + "\x1b[23m" + sgrFG
	switch {
	case fc.st.Editing[p] && fc.st.Notes[p] == "":
		// The text field's cursor on the first letter, the rest dim.
		notes = "\x1b[7mA\x1b[27m\x1b[2mdd notes on this design…" + sgrNoBold
	case fc.st.Editing[p]:
		notes = fc.st.Notes[p] + "\x1b[7m \x1b[27m"
	case fc.st.Notes[p] != "":
		notes = "\x1b[3m" + sgrDim + fc.st.Notes[p] + "\x1b[23m" + sgrFG
	}
	ls = append(ls, "", strings.Repeat(" ", left)+sgrFocus+"Notes:"+sgrFG+" "+notes, "", fc.rule(sgrDim))
	if focus == ChatPos(q) {
		ls = append(ls, sgrFocus+"❯"+sgrFG+" "+sgrFocus+"Chat about this"+sgrFG)
	} else {
		ls = append(ls, "  Chat about this")
	}
	footer := "Enter to select · ↑/↓ to navigate · n to add notes · Esc to cancel"
	if len(fc.qs) > 1 {
		footer = "Enter to select · ↑/↓ to navigate · n to add notes · Tab to switch questions · Esc to cancel"
	}
	if fc.st.Editing[p] {
		footer = strings.Replace(footer, " · Esc", " · ctrl+g to edit in Vim · Esc", 1)
	}
	ls = append(ls, "")
	// A footer too long for the screen breaks before a " · ".
	for r := []rune(footer); len(r) > fc.cols; r = []rune(footer) {
		// The last " · " whose line before it fits.
		i := strings.LastIndex(string(r[:min(len(r), fc.cols+3)]), " · ")
		if i <= 0 {
			break
		}
		ls = append(ls, sgrDim+footer[:i]+sgrFG)
		footer = footer[i+1:]
	}
	return append(ls, sgrDim+footer+sgrFG)
}

func (fc *Claude) reviewLines() []string {
	ls := []string{fc.header(), "", sgrWhite + sgrBold + "Review your answers" + sgrNoBold + sgrFG, ""}
	for i, q := range fc.qs {
		for j, l := range wrap(q.Question, fc.cols-3) {
			if j == 0 {
				ls = append(ls, " ● "+l)
			} else {
				ls = append(ls, "   "+l)
			}
		}
		for j, l := range wrap(fc.answer(i), fc.cols-5) {
			if j == 0 {
				ls = append(ls, "   "+sgrGreen+"→ "+l+sgrFG)
			} else {
				ls = append(ls, "     "+sgrGreen+l+sgrFG)
			}
		}
	}
	ls = append(ls, "")
	for i, label := range []string{"Submit answers", "Cancel"} {
		if fc.st.Review == i {
			ls = append(ls, fmt.Sprintf("%s%s%d. %s%s%s", pointerRow, sgrDim, i+1, sgrFocus, label, sgrFG))
		} else {
			ls = append(ls, fmt.Sprintf("  %s%d. %s%s", sgrDim, i+1, sgrFG, label))
		}
	}
	return ls
}

// Records, read after settle.

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

func (fc *Claude) State() State {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.st.State
}

func (fc *Claude) Sent() []string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]string(nil), fc.sent...)
}

func (fc *Claude) Received() []KeyRec {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]KeyRec(nil), fc.received...)
}

func (fc *Claude) Enters() []EnterRec {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]EnterRec(nil), fc.enters...)
}

func (s State) String() string {
	return [...]string{"thinking", "open", "submitted", "cancelled", "chatted", "killed"}[s]
}
