package answer

import "slices"

// Question is one question of a form, as AskUserQuestion receives it.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

// Option is one offered answer.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	// Preview is shown beside the options while this one has the focus.
	Preview string `json:"preview,omitempty"`
}

// Labels lists the options' labels, in order.
func (q Question) Labels() []string {
	out := make([]string, len(q.Options))
	for i, o := range q.Options {
		out[i] = o.Label
	}
	return out
}

// Index is the 0-based place of the option labelled l, or -1.
func (q Question) Index(l string) int {
	return slices.IndexFunc(q.Options, func(o Option) bool { return o.Label == l })
}

// HasPreview reports whether an option of q has a preview.
func (q Question) HasPreview() bool {
	return slices.ContainsFunc(q.Options, func(o Option) bool { return o.Preview != "" })
}

// PreviewLayout reports whether Claude draws q in its preview layout (the
// options beside a boxed preview, notes, no "Type something" row): a
// single-select question with a preview on some option.
func (q Question) PreviewLayout() bool { return q.HasPreview() && !q.MultiSelect }
