package fakeclaude

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The fake draws its form as 2.1.330 does at 100 columns, in these colours.
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
	if fc.mirror != nil {
		_, _ = io.WriteString(fc.mirror, b.String())
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
