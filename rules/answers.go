package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"

	"github.com/claudewrap/claudewrap/answer"
)

// ParseAnswers reads a YAML list of rules-style answers, one per question
// of a form in order ('[{select: MongoDB}, {select: [UI, Auth]}, {type:
// snake_case}]'), as strictly as a rules file: errors name their line and
// column in what, the name the text came by (a flag, a file).
func ParseAnswers(what string, b []byte) ([]Answer, error) {
	p := &parser{file: &File{Path: what}}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{File: what, Line: 1, Col: 1, Msg: "no answers"}}
		}
		return nil, Errors{yamlError(what, b, err)}
	}
	n := doc.Content[0]
	if n.Kind != yaml.SequenceNode {
		return nil, Errors{{File: what, Line: n.Line, Col: n.Column, Msg: "want a list of answers, one per question: [{select: A}, {type: B}]"}}
	}
	var out []Answer
	for i, e := range n.Content {
		a, _ := p.answer(e, fmt.Sprintf("answer %d", i+1))
		out = append(out, a)
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return out, nil
}

// ParseProgramAnswer reads the answer a program gave on stdout (see
// [Answer.Exec]): one answer, JSON or YAML, without exec.
func ParseProgramAnswer(b []byte) (Answer, error) {
	const what = "the program's answer"
	p := &parser{file: &File{Path: what}}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Answer{}, errors.New("the program printed no answer")
		}
		return Answer{}, yamlError(what, b, err)
	}
	a, _ := p.answer(doc.Content[0], what)
	if len(p.errs) > 0 {
		return Answer{}, p.errs
	}
	return a, nil
}

// Apply makes the decision the answer gives to q, checked against q (a
// label not offered, a list on a single-select question are errors).
func (a Answer) Apply(q answer.Question) (answer.Decision, error) { return a.apply(q) }
