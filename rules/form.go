package rules

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/claudewrap/claudewrap/answer"
)

// ParseForm reads the questions of a form from JSON: a hook's tool_input,
// {"questions": [...]}, or a whole hook payload that holds one.
func ParseForm(b []byte) ([]answer.Question, error) {
	var f struct {
		Questions []answer.Question `json:"questions"`
		ToolInput *struct {
			Questions []answer.Question `json:"questions"`
		} `json:"tool_input"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("not a form: %w", err)
	}
	qs := f.Questions
	if f.ToolInput != nil {
		if len(qs) > 0 {
			return nil, errors.New("both questions and tool_input.questions: want one form")
		}
		qs = f.ToolInput.Questions
	}
	if len(qs) == 0 {
		return nil, errors.New(`no questions: want a hook's tool_input {"questions": [...]} or a hook payload holding one`)
	}
	if len(qs) > 4 {
		return nil, fmt.Errorf("%d questions: a form holds at most 4", len(qs))
	}
	for i, q := range qs {
		if q.Question == "" || len(q.Options) < 2 || len(q.Options) > 4 {
			return nil, fmt.Errorf("question %d: want text and 2-4 options", i+1)
		}
	}
	return qs, nil
}
