package screen

import (
	"fmt"
	"strings"
)

// Question is one question as the PreToolUse hook reports it, reduced to
// what the screen shows.
type Question struct {
	Header      string
	Question    string
	Labels      []string
	MultiSelect bool
}

// Disagreements compares the question page f with the question the hook
// says is asked, returning one line per difference, or nil when the screen
// agrees: header, question text, multi-select, and the labels in order.
// Text is compared with runs of white space collapsed (the screen wraps it),
// and a title the tab row truncated with "…" matches its prefix.
func (f *Form) Disagreements(q Question) []string {
	var d []string
	if f.Review != nil {
		return []string{"the review page is showing, not a question"}
	}
	if !sameText(f.Header, q.Header) {
		d = append(d, fmt.Sprintf("header %q on screen, %q asked", f.Header, q.Header))
	}
	if !sameText(f.Question, q.Question) {
		d = append(d, fmt.Sprintf("question %q on screen, %q asked", f.Question, q.Question))
	}
	if f.MultiSelect != q.MultiSelect {
		d = append(d, fmt.Sprintf("multi-select %t on screen, %t asked", f.MultiSelect, q.MultiSelect))
	}
	if len(f.Options) != len(q.Labels) {
		d = append(d, fmt.Sprintf("%d options on screen, %d asked", len(f.Options), len(q.Labels)))
	}
	for i := 0; i < len(f.Options) && i < len(q.Labels); i++ {
		if !sameText(f.Options[i].Label, q.Labels[i]) {
			d = append(d, fmt.Sprintf("option %d is %q on screen, %q asked", i+1, f.Options[i].Label, q.Labels[i]))
		}
	}
	return d
}

// TabDisagreements compares the tab row with the headers of every question
// asked, in order.
func (f *Form) TabDisagreements(headers []string) []string {
	// One single-select question has no tab row; one multi-select question
	// has its own tab and Submit.
	if len(headers) == 1 && len(f.Tabs) == 0 {
		return nil
	}
	var d []string
	var titles []string
	for _, t := range f.Tabs {
		if !t.Submit {
			titles = append(titles, t.Title)
		}
	}
	if len(titles) != len(headers) {
		return []string{fmt.Sprintf("%d question tabs on screen, %d questions asked", len(titles), len(headers))}
	}
	for i := range headers {
		if !sameText(titles[i], headers[i]) {
			d = append(d, fmt.Sprintf("tab %d is %q on screen, %q asked", i+1, titles[i], headers[i]))
		}
	}
	return d
}

func sameText(screen, asked string) bool {
	s, a := strings.Join(strings.Fields(screen), " "), strings.Join(strings.Fields(asked), " ")
	if s == a {
		return true
	}
	if p, ok := strings.CutSuffix(s, "…"); ok && p != "" {
		return strings.HasPrefix(a, p)
	}
	return false
}
