package rules

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/claudewrap/claudewrap/answer"
)

// Set is the rule files in force, in order: the first rule that matches,
// across all files, answers.
type Set struct {
	Files []*File
}

// Load reads the rule files named, in order.
func Load(paths ...string) (*Set, error) {
	s := &Set{}
	var errs []error
	for _, p := range paths {
		f, err := LoadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Files = append(s.Files, f)
	}
	return s, errors.Join(errs...)
}

// Defaults returns the defaults in force: for each field, the first file
// that sets it.
func (s *Set) Defaults() Defaults {
	var d Defaults
	for _, f := range s.Files {
		if d.OnUnmatched == "" {
			d.OnUnmatched = f.Defaults.OnUnmatched
		}
		if d.AnswerTimeout == 0 {
			d.AnswerTimeout = f.Defaults.AnswerTimeout
		}
		if d.Fallback == nil {
			d.Fallback = f.Defaults.Fallback
		}
		if d.Notify == "" {
			d.Notify = f.Defaults.Notify
		}
		if d.AnswerVia == "" {
			d.AnswerVia = f.Defaults.AnswerVia
		}
	}
	return d
}

// Decision is the outcome of matching one question.
type Decision struct {
	answer.Decision
	Rule string // the rule that answered; "" when no rule matched
	File string // the file and line of that rule
	Line int
	// Unmatched says why no decision was made; empty when one was.
	Unmatched string
	// Exec, when set, is the program that decides (see [Answer.Exec]); the
	// decision is made by running it, in Dir (the rules file's folder).
	Exec []string
	Dir  string
}

// Matched reports whether a rule answered.
func (d Decision) Matched() bool { return d.Unmatched == "" }

// Decide matches one question.
func (s *Set) Decide(q answer.Question) Decision {
	for _, f := range s.Files {
		for _, r := range f.Rules {
			if !r.When.holds(q) {
				continue
			}
			if r.Answer.Exec != nil {
				return Decision{Rule: r.Name, File: f.Path, Line: r.Line, Exec: r.Answer.Exec, Dir: filepath.Dir(f.Path)}
			}
			d, err := r.Answer.apply(q)
			out := Decision{Decision: d, Rule: r.Name, File: f.Path, Line: r.Line}
			if err != nil {
				out.Decision = answer.Decision{}
				out.Unmatched = fmt.Sprintf("rule %q (%s:%d) cannot answer: %v", r.Name, f.Path, r.Line, err)
			}
			return out
		}
	}
	return Decision{Unmatched: NoRuleMatches}
}

// NoRuleMatches is the Unmatched reason of a question no rule's conditions
// hold for (as against a rule that matched and could not answer).
const NoRuleMatches = "no rule matches"

// Fallback returns the decision for an unmatched question from the
// defaults' fallback answer.
func (s *Set) Fallback(q answer.Question) (Decision, error) {
	fb := s.Defaults().Fallback
	if fb == nil {
		return Decision{}, errors.New("no fallback answer in the rules' defaults")
	}
	d, err := fb.apply(q)
	if err != nil {
		return Decision{}, fmt.Errorf("fallback cannot answer: %w", err)
	}
	return Decision{Decision: d, Rule: "fallback"}, nil
}

// Timeout returns the answer timeout in force (0: none).
func (s *Set) Timeout() time.Duration { return s.Defaults().AnswerTimeout }

func (w When) holds(q answer.Question) bool {
	if w.Header != nil && !w.Header.MatchString(q.Header) {
		return false
	}
	if w.Question != nil && !w.Question.MatchString(q.Question) {
		return false
	}
	for _, o := range w.Options {
		if q.Index(o) < 0 {
			return false
		}
	}
	return true
}

func (a Answer) apply(q answer.Question) (answer.Decision, error) {
	d, err := a.action(q)
	if err != nil {
		return answer.Decision{}, err
	}
	if a.Notes != nil {
		d.Notes = *a.Notes
	}
	if err := d.Check(q); err != nil {
		return answer.Decision{}, err
	}
	return d, nil
}

// action builds the decision the rule names; [answer.Decision.Check] says
// whether it can answer q.
func (a Answer) action(q answer.Question) (answer.Decision, error) {
	switch {
	case a.Cancel:
		return answer.Decision{Action: answer.Cancel}, nil
	case a.Chat != nil:
		return answer.Decision{Action: answer.Chat, Text: *a.Chat}, nil
	case a.Type != nil:
		return answer.Decision{Action: answer.Type, Text: *a.Type}, nil
	case a.Select != nil:
		if a.Select.Index > 0 {
			if a.Select.Index > len(q.Options) {
				return answer.Decision{}, fmt.Errorf("index %d, but %d options are offered", a.Select.Index, len(q.Options))
			}
			return answer.Decision{Action: answer.Select, Labels: []string{q.Options[a.Select.Index-1].Label}}, nil
		}
		if a.Select.List && !q.MultiSelect {
			return answer.Decision{}, errors.New("a list of labels on a single-select question")
		}
		return answer.Decision{Action: answer.Select, Labels: a.Select.Labels}, nil
	}
	return answer.Decision{}, errors.New("the rule has no action")
}
