package fakeclaude

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

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
