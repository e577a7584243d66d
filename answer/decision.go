package answer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Action is what to do with a question.
type Action int

// Actions. Chat and Cancel end the whole form.
const (
	Select Action = iota + 1 // pick Labels (several, in tick order, on a multi-select question)
	Type                     // type Text into the "Type something" row
	Chat                     // "Chat about this"; Text is the message sent after it
	Cancel                   // Esc: Claude is told the user declined
)

var actionNames = map[Action]string{Select: "select", Type: "type", Chat: "chat", Cancel: "cancel"}

func (a Action) String() string {
	if s, ok := actionNames[a]; ok {
		return s
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Decision is the answer intended for one question.
type Decision struct {
	Action Action
	Labels []string
	Text   string
	// Notes are typed with n on the chosen option of a preview question.
	Notes string
}

// String describes the decision for people: select "A", "B"; select "A",
// notes "…"; type "text"; chat "text"; cancel; none when nothing was
// decided.
func (d Decision) String() string {
	switch d.Action {
	case Select:
		q := make([]string, len(d.Labels))
		for i, l := range d.Labels {
			q[i] = strconv.Quote(l)
		}
		if d.Notes != "" {
			return fmt.Sprintf("select %s, notes %q", strings.Join(q, ", "), d.Notes)
		}
		return "select " + strings.Join(q, ", ")
	case Type, Chat:
		return fmt.Sprintf("%s %q", d.Action, d.Text)
	case Cancel:
		return "cancel"
	}
	return "none"
}

// Recorded is the string Claude records for the decision: the label, the
// labels joined with ", " in tick order, or the typed text. See
// [Decision.Recordings] for every form a multi-select answer takes.
func (d Decision) Recorded() string {
	if d.Action == Type {
		return d.Text
	}
	return strings.Join(d.Labels, ", ")
}

// Recordings lists every string Claude may record (and show on the review
// page) for the decision on q, the first as intended. Since 2.1.266 Claude
// quotes, as JSON, a label of a multi-select answer that holds ", " or a
// double quote, so that the labels can be told apart; earlier versions
// join them as they are. Since 2.1.266 too (not 2.1.227), Claude records
// a label without its variation selectors 16 (U+FE0F: "⚠️ Risky path" as
// "⚠ Risky path"; the question keeps its own), so that form counts as
// well, unless another of q's labels is the same without them: Claude's
// record could not tell the two apart.
func (d Decision) Recordings(q Question) []string {
	if d.Action != Select {
		return []string{d.Recorded()}
	}
	var out []string
	add := func(labels []string) {
		plain := strings.Join(labels, ", ")
		if q.MultiSelect {
			quoted := make([]string, len(labels))
			for i, l := range labels {
				quoted[i] = QuoteLabel(l)
			}
			if j := strings.Join(quoted, ", "); j != plain {
				out = append(out, j)
			}
		}
		out = append(out, plain)
	}
	add(d.Labels)
	if bare, ok := withoutVS16(d.Labels, q.Labels()); ok {
		add(bare)
	}
	return out
}

// vs16 is the variation selector 16, which asks for an emoji's picture.
const vs16 = "\uFE0F"

// withoutVS16 is labels without their variation selectors 16, and whether
// that changed any and each changed one is still told apart from the
// other labels offered.
func withoutVS16(labels, offered []string) ([]string, bool) {
	out := make([]string, len(labels))
	changed := false
	for i, l := range labels {
		out[i] = strings.ReplaceAll(l, vs16, "")
		if out[i] == l {
			continue
		}
		changed = true
		for _, o := range offered {
			if o != l && strings.ReplaceAll(o, vs16, "") == out[i] {
				return nil, false
			}
		}
	}
	return out, changed
}

// QuoteLabel quotes a multi-select label the way Claude Code records it:
// as a JSON string when it holds ", " or a double quote.
func QuoteLabel(l string) string {
	if !strings.Contains(l, ", ") && !strings.Contains(l, `"`) {
		return l
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(l)
	return strings.TrimSuffix(b.String(), "\n")
}

// WholeForm is d for every one of n questions: chat and cancel end the
// whole form, whatever it asks.
func WholeForm(d Decision, n int) []Decision {
	out := make([]Decision, n)
	for i := range out {
		out[i] = d
	}
	return out
}
