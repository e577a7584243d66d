package remote

import (
	"fmt"
	"slices"
	"strings"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
)

// Check reports why answers ds, one per question, cannot answer the form
// qs from elsewhere, or nil: a session holds every answer from elsewhere to
// it before it takes the form, so that a refused answer changes nothing,
// and its senders (claudewrap answer, the serve page) before they send.
// Each answer must be one its question can take and Claude's screen can
// show ([screen.CheckAnswer]); a chat or cancel, which ends the whole form,
// must be given alike for every question.
func Check(qs []answer.Question, ds []answer.Decision) error {
	if len(ds) != len(qs) {
		return fmt.Errorf("the form asks %s; %s given", plural(len(qs), "question"), plural(len(ds), "answer"))
	}
	nums := make([]int, len(qs))
	for i := range nums {
		nums[i] = i + 1
	}
	return check(qs, nums, ds)
}

// check is Check once the count is right; nums[i] is the number of qs[i]
// in its form, from 1, which messages name it by.
func check(qs []answer.Question, nums []int, ds []answer.Decision) error {
	for i, d := range ds {
		if err := screen.CheckAnswer(qs[i], d); err != nil {
			return fmt.Errorf("question %d (%q): %v", nums[i], qs[i].Question, err)
		}
	}
	for i, d := range ds {
		other := func(e answer.Decision) bool { return !sameDecision(e, d) }
		if (d.Action == answer.Chat || d.Action == answer.Cancel) && slices.ContainsFunc(ds, other) {
			return fmt.Errorf("question %d: %s ends the whole form: give it alone, for every question", nums[i], d.Action)
		}
	}
	return nil
}

// OpenQuestions are the questions of f a person answers (those no rule
// answered, [Form.Open]), with their numbers in the form, from 1, as
// pending numbers them.
func (f Form) OpenQuestions() (qs []answer.Question, nums []int) {
	for _, i := range f.Open() {
		qs = append(qs, f.Questions[i])
		nums = append(nums, i+1)
	}
	return qs, nums
}

// CheckOpen is [Check] for answers to f's open questions, in order
// ([Form.OpenQuestions]): each question is named by its number in the form,
// so that the second question is "question 2" whether or not a rule
// answered the first.
func (f Form) CheckOpen(ds []answer.Decision) error {
	if err := f.OpenCountError(len(ds)); err != nil {
		return err
	}
	qs, nums := f.OpenQuestions()
	return check(qs, nums, ds)
}

// OpenCountError is why n answers cannot answer f's open questions, nil
// when they can.
func (f Form) OpenCountError(n int) error {
	_, nums := f.OpenQuestions()
	switch {
	case n == len(nums):
		return nil
	case len(f.Decided) == 0:
		return fmt.Errorf("the form asks %s; %s given", plural(len(f.Questions), "question"), plural(n, "answer"))
	}
	return fmt.Errorf("the form asks %s and rules answer %d: give %s; %d given",
		plural(len(f.Questions), "question"), len(f.Decided), openAnswers(nums), n)
}

// openAnswers says how many answers the open questions numbered nums take:
// "2 answers (for questions 2, 3)".
func openAnswers(nums []int) string {
	s := make([]string, len(nums))
	for k, n := range nums {
		s[k] = fmt.Sprint(n)
	}
	if len(nums) == 1 {
		return "1 answer (for question " + s[0] + ")"
	}
	return fmt.Sprintf("%d answers (for questions %s)", len(nums), strings.Join(s, ", "))
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func sameDecision(a, b answer.Decision) bool {
	return a.Action == b.Action && slices.Equal(a.Labels, b.Labels) && a.Text == b.Text && a.Notes == b.Notes
}

// Decided is a question of a waiting form that a rule has answered: the
// rule's answer stands, and an answer from elsewhere gives the others.
type Decided struct {
	Index  int    `json:"index"` // the question's number, from 1
	Rule   string `json:"rule"`
	File   string `json:"file,omitempty"` // file:line
	Answer string `json:"answer"`         // the rule's answer, for people: select "SQLite"
	// Decision is the rule's answer itself; the session holds it, and it
	// is not sent.
	Decision answer.Decision `json:"-"`
}

// Open lists the questions of f no rule has answered, as indexes from 0.
func (f Form) Open() []int {
	decided := map[int]bool{}
	for _, d := range f.Decided {
		decided[d.Index-1] = true
	}
	var open []int
	for i := range f.Questions {
		if !decided[i] {
			open = append(open, i)
		}
	}
	return open
}

// Merge makes the whole form's answers from an answer from elsewhere to a
// form some of whose questions rules have answered: ds gives either the
// open questions' answers, in order, or every question's, where a decided
// question's must be the rule's own. A chat or a cancel answers the whole
// form. The rules' answers are never replaced: an answer that would is
// refused, with the rule that stands.
func Merge(qs []answer.Question, decided []Decided, ds []answer.Decision) ([]answer.Decision, error) {
	if len(decided) == 0 {
		return ds, nil
	}
	f := Form{Questions: qs, Decided: decided}
	open := f.Open()
	if len(ds) > 0 && (ds[0].Action == answer.Chat || ds[0].Action == answer.Cancel) {
		whole := true
		for _, d := range ds {
			whole = whole && sameDecision(d, ds[0])
		}
		if whole && (len(ds) == len(open) || len(ds) == len(qs)) {
			return answer.WholeForm(ds[0], len(qs)), nil
		}
	}
	out := make([]answer.Decision, len(qs))
	for _, d := range decided {
		out[d.Index-1] = d.Decision
	}
	switch len(ds) {
	case len(open):
		for k, i := range open {
			out[i] = ds[k]
		}
		return out, nil
	case len(qs):
		for _, d := range decided {
			if got := ds[d.Index-1]; !sameDecision(got, d.Decision) {
				return nil, fmt.Errorf("question %d (%q) is answered by rule %q (%s): leave it out, or give the same answer",
					d.Index, qs[d.Index-1].Question, d.Rule, d.Answer)
			}
		}
		return ds, nil
	}
	return nil, f.countError(len(ds))
}

// countError says how many answers a form some of whose questions rules
// answered takes, when n is not one of them.
func (f Form) countError(n int) error {
	open := f.Open()
	if n == len(open) || n == len(f.Questions) {
		return nil
	}
	_, nums := f.OpenQuestions()
	return fmt.Errorf("the form asks %d questions and rules answer %d: give %s, or all %d; %d given",
		len(f.Questions), len(f.Decided), openAnswers(nums), len(f.Questions), n)
}

// CountError is why n answers cannot answer f, nil when they can: f's
// questions, or those no rule answered.
func (f Form) CountError(n int) error {
	if len(f.Decided) == 0 {
		if n != len(f.Questions) {
			return fmt.Errorf("the form asks %s; %s given", plural(len(f.Questions), "question"), plural(n, "answer"))
		}
		return nil
	}
	return f.countError(n)
}
