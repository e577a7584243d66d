package screen

import "strings"

// parseReviewPage reads the review page whose "Cancel" row is at row
// bottom, or above 2.1.330's " ↑ 1 more line" there.
func parseReviewPage(ls []line, bottom, cols int) (*Form, error) {
	if isMoreLines(ls[bottom]) {
		for bottom--; bottom > 0 && ls[bottom].blank(); bottom-- {
		}
	}
	cancel, ok := parseNumbered(ls[bottom])
	if !ok || cancel.label != cancelAnswers || bottom < 1 {
		return nil, noForm("no question footer (%q … %q) and no review page (%q) at the bottom", footerSelect, footerCancel, cancelAnswers)
	}
	submit, ok := parseNumbered(ls[bottom-1])
	if !ok || submit.label != submitAnswers || submit.number != 1 || cancel.number != 2 {
		return nil, noForm("no %q above %q", submitAnswers, cancelAnswers)
	}
	f := &Form{}
	rv := &Review{
		Submit: Row{Number: 1, Label: submitAnswers, Focused: submit.focused()},
		Cancel: Row{Number: 2, Label: cancelAnswers, Focused: cancel.focused()},
	}
	// Up to the title (and the tab row over it), or the top of the screen.
	y := bottom - 2
	for ; y >= 0; y-- {
		if strings.TrimSpace(ls[y].text()) == reviewTitle {
			break
		}
		if isRule(ls[y], cols) || isTabRow(ls[y]) {
			return nil, noForm("no %q above the answers", reviewTitle)
		}
	}
	if y < 0 {
		f.Cut = true
	} else {
		z := y - 1
		for z >= 0 && ls[z].blank() {
			z--
		}
		if z >= 0 && isTabRow(ls[z]) {
			if err := parseHeader(f, ls[z]); err != nil {
				return nil, err
			}
		} else {
			f.Top = y
		}
	}
	// answering: the entry's arrow has come, and the rows after it are its
	// answer's.
	var started, answering bool
	for z := y + 1; z < bottom-1; z++ {
		raw := ls[z].text()
		t := stripGutter(raw)
		full := ls[z].end() >= cols-fullRow
		switch {
		case t == "" || isMoreLines(ls[z]):
			continue
		case strings.HasPrefix(t, reviewWarning):
			rv.Incomplete = true
			continue
		case strings.HasPrefix(t, reviewQuestion):
			rv.Answers = append(rv.Answers, ReviewAnswer{})
			addRow(&rv.Answers[len(rv.Answers)-1].Question, strings.TrimPrefix(t, reviewQuestion), full)
			started, answering = true, false
			continue
		case strings.HasPrefix(t, reviewAnswer) && len(rv.Answers) > 0:
			addRow(&rv.Answers[len(rv.Answers)-1].Answer, strings.TrimPrefix(t, reviewAnswer), full)
			answering = true
			continue
		case t == reviewArrow && len(rv.Answers) > 0:
			// The arrow alone: the answer's first word (a long
			// identifier) did not fit after it and begins the next row.
			answering = true
			continue
		}
		if !started {
			continue // the end of an entry whose start is off the screen
		}
		if !strings.HasPrefix(raw, " ") {
			// In column 0: "Ready to submit your answers?" and the like.
			started = false
			continue
		}
		a := &rv.Answers[len(rv.Answers)-1]
		if !answering {
			addRow(&a.Question, t, full)
		} else {
			addRow(&a.Answer, t, full)
		}
	}
	if len(rv.Answers) == 0 && !f.Cut {
		return nil, noForm("a review page with no answers")
	}
	f.Review = rv
	switch {
	case rv.Submit.Focused && !rv.Cancel.Focused:
		f.Focus = Focus{Kind: FocusSubmit}
	case rv.Cancel.Focused && !rv.Submit.Focused:
		f.Focus = Focus{Kind: FocusCancel}
	}
	return f, nil
}

// fullRow: a review page's row ending this close to the screen's right
// edge may have lost text at its end (see SameWrapped). Claude wraps a row
// a column short of the edge: "…" in place of what did not fit ended in
// the column before the last, and the row without an emoji that did not
// (a space where it began) three columns short.
const fullRow = 3

// addRow adds a row to a review entry's question or answer, after a space,
// and ends a row that reached the right edge (full) with "\n", which marks
// where text may be missing (see ReviewAnswer).
func addRow(s *string, row string, full bool) {
	if *s != "" && !strings.HasSuffix(*s, "\n") {
		*s += " "
	}
	*s += row
	if full {
		*s += "\n"
	}
}
