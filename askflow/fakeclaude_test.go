package askflow_test

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
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/screen"
)

// This file holds fakeClaude: a model of Claude Code 2.1.330's
// AskUserQuestion form. It draws into a real screen.Emulator the way the
// recorded screens show it (testdata/screens/2.1.330), clearing and
// redrawing inside a synchronized update on every change, and implements
// askflow.Keys: keys take effect on a goroutine after a small delay, like a
// real TUI. It records what Claude would report (the submitted answers, a
// chat message) and every key with the focus it landed on, and it has knobs
// to misbehave.

// fq is one question of the fake form.
type fq struct {
	Header   string
	Question string
	Multi    bool
	Options  []fo
}

// fo is one offered option.
type fo struct{ Label, Desc string }

func (q fq) hook() answer.Question {
	h := answer.Question{Header: q.Header, Question: q.Question, MultiSelect: q.Multi}
	for _, o := range q.Options {
		h.Options = append(h.Options, answer.Option{Label: o.Label, Description: o.Desc})
	}
	return h
}

func hookOf(qs []fq) []answer.Question {
	var h []answer.Question
	for _, q := range qs {
		h = append(h, q.hook())
	}
	return h
}

func cloneQuestions(qs []fq) []fq {
	out := make([]fq, len(qs))
	for i, q := range qs {
		q.Options = append([]fo(nil), q.Options...)
		out[i] = q
	}
	return out
}

// Positions on a question page, in the order Up/Down walk through them:
// options 0..n-1, "Type something" n, the button n+1 (multi-select only),
// "Chat about this" last.
func otherPos(q fq) int { return len(q.Options) }

func buttonPos(q fq) int { return len(q.Options) + 1 }

func chatPos(q fq) int {
	if q.Multi {
		return len(q.Options) + 2
	}
	return len(q.Options) + 1
}

// faults make the fake misbehave. Keys are counted by SendKeys call, from 1.
type faults struct {
	Swallow  map[int]bool          // the key has no effect
	Double   map[int]bool          // the key takes effect twice
	WrongWay map[int]bool          // Up moves down and Down moves up
	Delay    map[int]time.Duration // the key takes effect this much later
	Ignore   bool                  // no key has any effect
	// DoubleDowns makes every Down take effect twice.
	DoubleDowns bool

	// After key ChangeAfter (whether it had an effect or not), Change edits
	// the questions on screen: the form changing under the wrapper.
	ChangeAfter int
	Change      func(qs []fq)
	// After key CloseAfter, Claude is gone: the screen shows a shell.
	CloseAfter int
	// After key ResizeAfter, the terminal becomes ResizeCols wide.
	ResizeAfter int
	ResizeCols  int

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
	// Garble leaves the screen garbled after the key (the page's question
	// loses its last character, as Claude Code 2.1.197's renderer drops
	// one) until the next Redraw.
	Garble map[int]bool
}

type fakeState int

const (
	stateThinking fakeState = iota
	stateOpen
	stateSubmitted
	stateCancelled
	stateChatted
	stateKilled
)

// keyRec is one SendKeys call as the fake saw it.
type keyRec struct {
	N       int
	Keys    string
	Applied bool // the key was handled (not swallowed or ignored)
}

// enterRec is one Enter that reached the form, with where the focus was.
type enterRec struct {
	Page  int // question index; len(questions) is the review page
	Focus int
}

type pending struct {
	n int
	b []byte
}

// fakeClaude is the fake form. Create it with newFake.
type fakeClaude struct {
	t  *testing.T
	em screen.Emulator
	f  faults

	mu        sync.Mutex
	qs        []fq
	cols      int
	state     fakeState
	page      int
	focus     []int    // per question page
	ticks     [][]int  // per question, option indices in tick order (n: Type something)
	text      []string // per question, what was typed into Type something
	visited   []bool   // per question, the Type something row has had the focus
	chosen    []string // per question, the single-select answer
	review    int      // review page focus: 0 Submit answers, 1 Cancel
	prompt    string   // Claude's input box after the form closed
	received  []keyRec
	enters    []enterRec
	submitted map[string]string // the answers Claude would report; nil until submitted
	sent      []string          // messages sent from Claude's prompt
	handled   int               // keys taken off the queue
	garbled   bool              // the screen is garbled until a Redraw
	redraws   int               // Redraw calls
	progress  chan struct{}     // closed and replaced whenever a key was handled

	queue chan pending
	done  chan struct{}
	wg    sync.WaitGroup
}

var _ askflow.Keys = (*fakeClaude)(nil)

const keyLatency = 5 * time.Millisecond

// newFake draws the form (a copy of qs) into a new cols x rows emulator.
func newFake(t *testing.T, qs []fq, cols, rows int, f faults) *fakeClaude {
	t.Helper()
	fc := &fakeClaude{
		t:        t,
		em:       screen.New(screen.Options{Cols: cols, Rows: rows}),
		f:        f,
		qs:       cloneQuestions(qs),
		cols:     cols,
		focus:    make([]int, len(qs)),
		ticks:    make([][]int, len(qs)),
		text:     make([]string, len(qs)),
		visited:  make([]bool, len(qs)),
		chosen:   make([]string, len(qs)),
		progress: make(chan struct{}),
		queue:    make(chan pending, 1024),
		done:     make(chan struct{}),
	}
	fc.focus[0] = f.StartFocus
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
			fc.mu.Lock()
			defer fc.mu.Unlock()
			if fc.state == stateThinking {
				fc.state = stateOpen
				fc.redrawLocked()
			}
		}()
		return fc
	}
	fc.state = stateOpen
	fc.redrawLocked()
	return fc
}

// Redraw draws the screen again, clean.
func (fc *fakeClaude) Redraw() error {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.redraws++
	fc.garbled = false
	fc.redrawLocked()
	return nil
}

// SendKeys queues p; it takes effect a little later, on the fake's goroutine.
func (fc *fakeClaude) SendKeys(p []byte) error {
	fc.mu.Lock()
	if fc.state == stateKilled {
		fc.mu.Unlock()
		return errors.New("write /dev/ptmx: input/output error")
	}
	n := len(fc.received) + 1
	fc.received = append(fc.received, keyRec{N: n, Keys: string(p)})
	fc.mu.Unlock()
	if fc.f.OnSend != nil {
		fc.f.OnSend(n)
	}
	fc.queue <- pending{n: n, b: append([]byte(nil), p...)}
	return nil
}

func (fc *fakeClaude) loop() {
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
			fc.apply(k)
		}
	}
}

func (fc *fakeClaude) apply(k pending) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	applied := !fc.f.Ignore && !fc.f.Swallow[k.n]
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
	if k.n == fc.f.ChangeAfter && fc.f.Change != nil {
		fc.f.Change(fc.qs)
	}
	if k.n == fc.f.CloseAfter {
		fc.state = stateKilled
	}
	if fc.f.Garble[k.n] {
		fc.garbled = true
	}
	if k.n == fc.f.ResizeAfter {
		_, rows := fc.em.Size()
		fc.em.Resize(fc.f.ResizeCols, rows)
		fc.cols = fc.f.ResizeCols
	}
	fc.redrawLocked()
	fc.handled++
	close(fc.progress)
	fc.progress = make(chan struct{})
}

// settle waits until every key sent has been handled, so that the records
// are final.
func (fc *fakeClaude) settle() {
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

func (fc *fakeClaude) keysLocked(s string, wrongWay bool) {
	for _, k := range splitKeys(s) {
		if wrongWay {
			switch k {
			case "\x1b[A":
				k = "\x1b[B"
			case "\x1b[B":
				k = "\x1b[A"
			}
		}
		switch fc.state {
		case stateOpen:
			if fc.page == len(fc.qs) {
				fc.reviewKey(k)
			} else {
				fc.questionKey(k)
			}
		case stateSubmitted, stateCancelled, stateChatted:
			fc.promptKey(k)
		}
	}
}

func (fc *fakeClaude) questionKey(k string) {
	q := fc.qs[fc.page]
	p := fc.page
	last := chatPos(q)
	switch k {
	case "\x1b[A":
		fc.focus[p] = max(0, fc.focus[p]-1)
		fc.visited[p] = fc.visited[p] || fc.focus[p] == otherPos(q)
	case "\x1b[B":
		fc.focus[p] = min(last, fc.focus[p]+1)
		fc.visited[p] = fc.visited[p] || fc.focus[p] == otherPos(q)
	case "\x1b[C", "\t":
		if fc.tabbed() {
			fc.page++
		}
	case "\x1b[D":
		if fc.page > 0 {
			fc.page--
		}
	case "\x1b", "\x03":
		fc.state = stateCancelled
	case "\r":
		fc.enters = append(fc.enters, enterRec{Page: p, Focus: fc.focus[p]})
		fc.activate(fc.focus[p])
	case "\x7f":
		if fc.focus[p] == otherPos(q) && fc.text[p] != "" {
			r := []rune(fc.text[p])
			fc.text[p] = string(r[:len(r)-1])
		}
	default:
		r, _ := utf8.DecodeRuneInString(k)
		switch {
		case fc.focus[p] == otherPos(q) && unicode.IsPrint(r):
			fc.text[p] += k
		case r >= '1' && int(r-'0') <= len(q.Options):
			// A digit picks its option (2.1.330).
			fc.focus[p] = int(r - '1')
			fc.activate(fc.focus[p])
		}
	}
}

// activate is Enter on position pos of the current page.
func (fc *fakeClaude) activate(pos int) {
	p := fc.page
	q := fc.qs[p]
	switch {
	case pos == chatPos(q):
		fc.state = stateChatted
	case q.Multi && pos == buttonPos(q):
		fc.advance()
	case q.Multi && (pos < len(q.Options) || fc.text[p] != ""):
		fc.toggle(p, pos)
	case pos < len(q.Options):
		fc.chosen[p] = q.Options[pos].Label
		fc.advance()
	case fc.text[p] != "":
		fc.chosen[p] = fc.text[p]
		fc.advance()
	}
}

func (fc *fakeClaude) toggle(p, pos int) {
	for i, t := range fc.ticks[p] {
		if t == pos {
			fc.ticks[p] = append(fc.ticks[p][:i:i], fc.ticks[p][i+1:]...)
			return
		}
	}
	fc.ticks[p] = append(fc.ticks[p], pos)
}

func (fc *fakeClaude) ticked(p, pos int) bool {
	for _, t := range fc.ticks[p] {
		if t == pos {
			return true
		}
	}
	return false
}

// tabbed reports whether the form has a tab row and a review page: several
// questions, or one multi-select question (its own tab and Submit).
func (fc *fakeClaude) tabbed() bool { return len(fc.qs) > 1 || fc.qs[0].Multi }

func (fc *fakeClaude) advance() {
	if !fc.tabbed() {
		fc.submit()
		return
	}
	fc.page++
	fc.review = 0
}

// answer is what Claude reports for question p.
func (fc *fakeClaude) answer(p int) string {
	q := fc.qs[p]
	if !q.Multi {
		return fc.chosen[p]
	}
	var labels []string
	for _, t := range fc.ticks[p] {
		if t < len(q.Options) {
			labels = append(labels, q.Options[t].Label)
		} else {
			labels = append(labels, fc.text[p])
		}
	}
	return strings.Join(labels, ", ")
}

func (fc *fakeClaude) answered(p int) bool { return fc.answer(p) != "" }

func (fc *fakeClaude) submit() {
	fc.submitted = map[string]string{}
	for i, q := range fc.qs {
		fc.submitted[q.Question] = fc.answer(i)
	}
	fc.state = stateSubmitted
}

func (fc *fakeClaude) reviewKey(k string) {
	switch k {
	case "\x1b[A":
		fc.review = 0
	case "\x1b[B":
		fc.review = 1
	case "\x1b[D":
		fc.page--
	case "\x1b", "\x03":
		fc.state = stateCancelled
	case "\r", "1", "2":
		if k != "\r" {
			fc.review = int(k[0] - '1')
		}
		fc.enters = append(fc.enters, enterRec{Page: fc.page, Focus: fc.review})
		if fc.review == 0 {
			fc.submit()
		} else {
			fc.state = stateCancelled
		}
	}
}

func (fc *fakeClaude) promptKey(k string) {
	switch k {
	case "\r":
		if fc.prompt != "" {
			fc.sent = append(fc.sent, fc.prompt)
			fc.prompt = ""
		}
	case "\x7f":
		if r := []rune(fc.prompt); len(r) > 0 {
			fc.prompt = string(r[:len(r)-1])
		}
	default:
		if r, _ := utf8.DecodeRuneInString(k); unicode.IsPrint(r) {
			fc.prompt += k
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

func (fc *fakeClaude) redrawLocked() {
	var b strings.Builder
	if !fc.f.NoSync {
		b.WriteString("\x1b[?2026h")
	}
	b.WriteString("\x1b[H\x1b[2J")
	if fc.state == stateKilled {
		b.WriteString("$ ")
	} else {
		ls := fc.linesLocked()
		if fc.garbled && fc.state == stateOpen && fc.page < len(fc.qs) {
			q := fc.qs[fc.page].Question
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

func (fc *fakeClaude) rule(sgr string) string {
	return sgr + strings.Repeat("─", fc.cols) + sgrFG
}

func (fc *fakeClaude) linesLocked() []string {
	ls := []string{sgrWhite + "●" + sgrFG + " Let me ask you a few questions.", ""}
	switch fc.state {
	case stateThinking:
		return append(ls, "\x1b[38;5;174m✢ Thinking…"+sgrFG)
	case stateOpen:
		ls = append(ls, fc.rule(sgrDim))
		if fc.page == len(fc.qs) {
			return append(ls, fc.reviewLines()...)
		}
		return append(ls, fc.questionLines()...)
	}
	switch fc.state {
	case stateSubmitted:
		ls = append(ls, sgrWhite+"●"+sgrFG+" Answered Claude's questions:")
		for _, q := range fc.qs {
			ls = append(ls, "  ⎿  · "+q.Question+" → "+fc.submitted[q.Question])
		}
	case stateCancelled:
		ls = append(ls, sgrWhite+"●"+sgrFG+" User declined to answer questions")
	}
	for _, m := range fc.sent {
		ls = append(ls, "", "\x1b[48;5;237m"+sgrDim+"❯ "+sgrWhite+m+sgrFG+"\x1b[49m")
	}
	ls = append(ls, "", fc.rule(sgrRule))
	for i, l := range wrap(fc.prompt, fc.cols-2) {
		if i == 0 {
			ls = append(ls, "❯ "+l)
		} else {
			ls = append(ls, "  "+l)
		}
	}
	return append(ls, fc.rule(sgrRule), "  \x1b[38;5;220m⏵⏵ auto mode on"+sgrFG)
}

func (fc *fakeClaude) header() string {
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
		tabs = append(tabs, chip(mark, q.Header, i == fc.page))
	}
	tabs = append(tabs, chip("✔", "Submit", fc.page == len(fc.qs)))
	// An arrow is dim where there is nothing further that way.
	left, right := "←", "→"
	if fc.page == 0 {
		left = sgrDim + left + sgrFG
	}
	if fc.page == len(fc.qs) {
		right = sgrDim + right + sgrFG
	}
	return left + " " + strings.Join(tabs, "") + " " + right
}

func (fc *fakeClaude) questionLines() []string {
	p := fc.page
	q := fc.qs[p]
	focus := fc.focus[p]
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
	if fc.text[p] != "" {
		row(otherPos(q), fc.text[p], "", false, true)
	} else {
		row(otherPos(q), placeholder, "", true, false)
	}
	if q.Multi {
		label := "Next"
		if p == len(fc.qs)-1 {
			label = "Submit"
		}
		if focus == buttonPos(q) {
			ls = append(ls, pointerRow+"   "+sgrFocus+sgrBold+label+sgrNoBold+sgrFG)
		} else {
			ls = append(ls, strings.Repeat(" ", indent)+sgrBold+label+sgrNoBold)
		}
	}
	ls = append(ls, fc.rule(sgrDim))
	// The button has no number: Chat about this follows Type something.
	number := len(q.Options) + 2
	if focus == chatPos(q) {
		ls = append(ls, fmt.Sprintf("%s%s%d. Chat about this%s", pointerRow, sgrFocus, number, sgrFG))
	} else {
		ls = append(ls, fmt.Sprintf("  %d. Chat about this", number))
	}
	footer := "Enter to select · ↑/↓ to navigate · Esc to cancel"
	if len(fc.qs) > 1 {
		footer = "Enter to select · Tab/Arrow keys to navigate · Esc to cancel"
	}
	if fc.visited[p] || focus == otherPos(q) {
		// Shown once the Type something row has had the focus.
		footer = strings.Replace(footer, " · Esc", " · ctrl+g to edit in Vim · Esc", 1)
	}
	return append(ls, "", sgrDim+footer+sgrFG)
}

func (fc *fakeClaude) reviewLines() []string {
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
		if fc.review == i {
			ls = append(ls, fmt.Sprintf("%s%s%d. %s%s%s", pointerRow, sgrDim, i+1, sgrFocus, label, sgrFG))
		} else {
			ls = append(ls, fmt.Sprintf("  %s%d. %s%s", sgrDim, i+1, sgrFG, label))
		}
	}
	return ls
}

// Records, read after settle.

func (fc *fakeClaude) Submitted() map[string]string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.submitted
}

func (fc *fakeClaude) State() fakeState {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.state
}

func (fc *fakeClaude) Sent() []string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]string(nil), fc.sent...)
}

func (fc *fakeClaude) Received() []keyRec {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]keyRec(nil), fc.received...)
}

func (fc *fakeClaude) Enters() []enterRec {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]enterRec(nil), fc.enters...)
}

func (s fakeState) String() string {
	return [...]string{"thinking", "open", "submitted", "cancelled", "chatted", "killed"}[s]
}
