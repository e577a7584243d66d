package rules

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/hook"
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

// DefaultPaths returns the files used without --rules: ./.claudewrap.yaml,
// else $XDG_CONFIG_HOME/claudewrap/rules.yaml (~/.config when unset), the
// first that exists; nil when neither does.
func DefaultPaths() []string {
	if _, err := os.Stat(".claudewrap.yaml"); err == nil {
		return []string{".claudewrap.yaml"}
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir != "" {
		p := filepath.Join(dir, "claudewrap", "rules.yaml")
		if _, err := os.Stat(p); err == nil {
			return []string{p}
		}
	}
	return nil
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
	}
	return d
}

// Decision is the outcome of matching one question.
type Decision struct {
	askflow.Decision
	Rule string // the rule that answered; "" when no rule matched
	File string // the file and line of that rule
	Line int
	// Unmatched says why no decision was made; empty when one was.
	Unmatched string
}

// Matched reports whether a rule answered.
func (d Decision) Matched() bool { return d.Unmatched == "" }

// Summary describes the action for people: select "A", "B"; type "text";
// chat "text"; cancel. It is "none" when no action was decided.
func (d Decision) Summary() string {
	switch d.Action {
	case askflow.Select:
		q := make([]string, len(d.Labels))
		for i, l := range d.Labels {
			q[i] = strconv.Quote(l)
		}
		if d.Notes != "" {
			return fmt.Sprintf("select %s, notes %q", strings.Join(q, ", "), d.Notes)
		}
		return "select " + strings.Join(q, ", ")
	case askflow.Type, askflow.Chat:
		return fmt.Sprintf("%s %q", d.Action, d.Text)
	case askflow.Cancel:
		return "cancel"
	}
	return "none"
}

// Decide matches one question.
func (s *Set) Decide(q hook.Question) Decision {
	for _, f := range s.Files {
		for _, r := range f.Rules {
			if !r.When.holds(q) {
				continue
			}
			d, err := r.Answer.apply(q)
			out := Decision{Decision: d, Rule: r.Name, File: f.Path, Line: r.Line}
			if err != nil {
				out.Decision = askflow.Decision{}
				out.Unmatched = fmt.Sprintf("rule %q (%s:%d) cannot answer: %v", r.Name, f.Path, r.Line, err)
			}
			return out
		}
	}
	return Decision{Unmatched: "no rule matches"}
}

// Fallback returns the decision for an unmatched question from the
// defaults' fallback answer.
func (s *Set) Fallback(q hook.Question) (Decision, error) {
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

func (w When) holds(q hook.Question) bool {
	if w.Header != nil && !w.Header.MatchString(q.Header) {
		return false
	}
	if w.Question != nil && !w.Question.MatchString(q.Question) {
		return false
	}
	offered := q.Labels()
	for _, o := range w.Options {
		if !contains(offered, o) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func (a Answer) apply(q hook.Question) (askflow.Decision, error) {
	d, err := a.action(q)
	if err != nil || a.Notes == nil {
		return d, err
	}
	if d.Action != askflow.Select || q.MultiSelect || !q.HasPreview() {
		return askflow.Decision{}, errors.New("notes can be given only on a single-select question whose options have previews")
	}
	d.Notes = *a.Notes
	return d, nil
}

func (a Answer) action(q hook.Question) (askflow.Decision, error) {
	switch {
	case a.Cancel:
		return askflow.Decision{Action: askflow.Cancel}, nil
	case a.Chat != nil:
		return askflow.Decision{Action: askflow.Chat, Text: *a.Chat}, nil
	case a.Type != nil:
		if q.MultiSelect {
			return askflow.Decision{}, errors.New("a typed answer on a multi-select question is not supported")
		}
		if q.HasPreview() {
			return askflow.Decision{}, errors.New("a question whose options have previews has no Type something row")
		}
		return askflow.Decision{Action: askflow.Type, Text: *a.Type}, nil
	case a.Select != nil:
		offered := q.Labels()
		if a.Select.Index > 0 {
			if a.Select.Index > len(offered) {
				return askflow.Decision{}, fmt.Errorf("index %d, but %d options are offered", a.Select.Index, len(offered))
			}
			return askflow.Decision{Action: askflow.Select, Labels: []string{offered[a.Select.Index-1]}}, nil
		}
		if a.Select.List && !q.MultiSelect {
			return askflow.Decision{}, errors.New("a list of labels on a single-select question")
		}
		for _, l := range a.Select.Labels {
			if !contains(offered, l) {
				return askflow.Decision{}, fmt.Errorf("label %q is not offered (offered: %q)", l, offered)
			}
		}
		return askflow.Decision{Action: askflow.Select, Labels: a.Select.Labels}, nil
	}
	return askflow.Decision{}, errors.New("the rule has no action")
}
