package rules

import (
	"errors"
	"fmt"
	"time"
)

// Unmatched is how a run handles the questions no rule answers: the policy
// in force and its answer timeout, each with the flag that gave it ("" when
// it came from the rules' defaults).
type Unmatched struct {
	Policy      Policy        // "" when not known: a run chooses by where it runs
	Timeout     time.Duration // 0 for none
	PolicyFlag  string        // e.g. "--on-unmatched"
	TimeoutFlag string        // e.g. "--answer-timeout"
}

// CheckUnmatched reports why u cannot work with the set's defaults, or nil:
// the fallback policy, or an answer timeout on a policy that waits for a
// person, with no fallback answer to give. It is the one definition `run`
// holds its flags to and `rules check` a file's defaults ([Set.Check]). A
// value that came from the rules is an [*Error] at its place.
func (s *Set) CheckUnmatched(u Unmatched) error {
	if s.Defaults().Fallback != nil {
		return nil
	}
	const need = "needs a fallback answer in the rules' defaults (defaults: {fallback: …})"
	switch {
	case u.Policy == Fallback:
		msg := "fallback " + need + " to answer unmatched questions with; add one, or choose another policy"
		if u.PolicyFlag != "" {
			return errors.New(u.PolicyFlag + " " + msg)
		}
		return s.errorAt(func(d Defaults) Pos { return d.OnUnmatchedAt }, "on_unmatched: "+msg)
	case u.Timeout > 0 && waitsForPerson(u.Policy):
		msg := fmt.Sprintf("%v %s to answer with when it runs out; add one, or drop the timeout", u.Timeout, need)
		if u.TimeoutFlag != "" {
			return errors.New(u.TimeoutFlag + " " + msg)
		}
		return s.errorAt(func(d Defaults) Pos { return d.AnswerTimeoutAt }, "answer_timeout: "+msg)
	}
	return nil
}

// Check reports what a run refuses of the set's defaults when no flag
// overrides them: [Set.CheckUnmatched] with the policy and the timeout the
// files set.
func (s *Set) Check() error {
	d := s.Defaults()
	return s.CheckUnmatched(Unmatched{Policy: d.OnUnmatched, Timeout: d.AnswerTimeout})
}

// waitsForPerson reports whether p waits for a person, so that an answer
// timeout applies to it. A policy not set is passthrough or ask wherever a
// person is at hand.
func waitsForPerson(p Policy) bool {
	return p == Passthrough || p == Ask || p == Wait || p == ""
}

// errorAt places msg where the first file that sets a default sets it (at
// returns that place): the file [Set.Defaults] takes it from.
func (s *Set) errorAt(at func(Defaults) Pos, msg string) error {
	for _, f := range s.Files {
		if p := at(f.Defaults); p.Line > 0 {
			return &Error{File: f.Path, Line: p.Line, Col: p.Col, Msg: msg}
		}
	}
	return errors.New(msg)
}
