package answer

import (
	"fmt"
	"slices"
	"strings"
)

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

// Label finds the option a person means by s: the one labelled s exactly,
// else the one labelled s in another case. ok is false when none is; err
// says so when s, in another case, is the label of several options ("api"
// and "API"), which only the exact label tells apart.
func (q Question) Label(s string) (label string, ok bool, err error) {
	if q.Index(s) >= 0 {
		return s, true, nil
	}
	var folded []string
	for _, o := range q.Options {
		if strings.EqualFold(o.Label, s) {
			folded = append(folded, o.Label)
		}
	}
	switch len(folded) {
	case 0:
		return "", false, nil
	case 1:
		return folded[0], true, nil
	}
	quoted := make([]string, len(folded))
	for i, l := range folded {
		quoted[i] = fmt.Sprintf("%q", l)
	}
	return "", false, fmt.Errorf("%q is the label of %s in other cases: give the label exactly", s, strings.Join(quoted, " and "))
}

// Meant says which label s most likely meant when no option is labelled s
// exactly, as labels are matched: "; did you mean "Gin"? labels are
// matched exactly" for an option alike but for case, else "".
func (q Question) Meant(s string) string {
	var alike []string
	for _, o := range q.Options {
		if strings.EqualFold(o.Label, s) {
			alike = append(alike, fmt.Sprintf("%q", o.Label))
		}
	}
	if len(alike) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(alike, " or ") + "? labels are matched exactly"
}

// HasPreview reports whether an option of q has a preview.
func (q Question) HasPreview() bool {
	return slices.ContainsFunc(q.Options, func(o Option) bool { return o.Preview != "" })
}

// PreviewLayout reports whether Claude draws q in its preview layout (the
// options beside a boxed preview, notes, no "Type something" row): a
// single-select question with a preview on some option.
func (q Question) PreviewLayout() bool { return q.HasPreview() && !q.MultiSelect }
