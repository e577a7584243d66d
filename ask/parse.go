package ask

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/claudewrap/claudewrap/answer"
)

// Parse turns what the person typed into a decision for q:
//
//	2            option 2
//	1 3 / 1,3    options 1 then 3 (multi-select: ticked in that order)
//	/chat TEXT   "Chat about this", then TEXT as the next message
//	/cancel      decline the form
//	SQLite       the option of that label (any case); several, comma-separated,
//	             on a multi-select question
//	/type TEXT   TEXT into "Type something"
//	2 /notes TEXT  option 2 with notes (questions whose options have previews)
//
// Other text is taken for a typed answer only once the person confirms it:
// Parse returns a [*ConfirmText] error, and the prompt asks.
//
// What it returns passes [answer.Decision.Check] for q.
func Parse(q answer.Question, line string) (answer.Decision, error) {
	d, err := parse(q, line)
	if err != nil {
		return answer.Decision{}, err
	}
	if err := d.Check(q); err != nil {
		return answer.Decision{}, err
	}
	return d, nil
}

func parse(q answer.Question, line string) (answer.Decision, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return answer.Decision{}, errors.New("nothing typed")
	}
	if strings.IndexFunc(line, unicode.IsControl) >= 0 {
		return answer.Decision{}, errors.New("control characters are not allowed")
	}
	if pickPart, notes, ok := strings.Cut(line, "/notes"); ok && !strings.HasPrefix(line, "/") {
		return withNotes(q, strings.TrimSpace(pickPart), strings.TrimSpace(notes))
	}
	if cmd, rest, ok := command(line); ok {
		switch cmd {
		case "cancel":
			if rest != "" {
				return answer.Decision{}, errors.New("/cancel takes no text")
			}
			return answer.Decision{Action: answer.Cancel}, nil
		case "chat":
			return answer.Decision{Action: answer.Chat, Text: rest}, nil
		case "type":
			return typed(q, rest)
		}
		return answer.Decision{}, fmt.Errorf("unknown command /%s (want /chat, /cancel or /type)", cmd)
	}
	if nums, ok := numbers(line); ok {
		return pick(q, nums)
	}
	if labels, ok, err := byLabel(q, line); err != nil {
		return answer.Decision{}, err
	} else if ok {
		return answer.Decision{Action: answer.Select, Labels: labels}, nil
	}
	if _, err := typed(q, line); err != nil {
		return answer.Decision{}, fmt.Errorf("%q is not an option: %w", line, err)
	}
	return answer.Decision{}, &ConfirmText{Text: line}
}

// ConfirmText is text that is neither numbers nor an option's label: a
// typed answer, if the person confirms it.
type ConfirmText struct{ Text string }

func (c *ConfirmText) Error() string {
	return fmt.Sprintf("%q is not one of the options: press Enter to send it as your own answer, or give a number or a label", c.Text)
}

// byLabel reads labels (any case, the exact one first): one, or on a
// multi-select question several separated by commas, each offered once. An
// error is a label that in another case names several options.
func byLabel(q answer.Question, line string) ([]string, bool, error) {
	parts := []string{line}
	if q.MultiSelect {
		parts = strings.Split(line, ",")
	}
	var labels []string
	seen := map[string]bool{}
	for _, p := range parts {
		l, ok, err := q.Label(strings.TrimSpace(p))
		if err != nil {
			return nil, false, err
		}
		if !ok || seen[l] {
			return nil, false, nil
		}
		seen[l] = true
		labels = append(labels, l)
	}
	return labels, len(labels) > 0, nil
}

// Complete completes the label being typed at the end of line (after the
// last comma on a multi-select question): to the one label it begins, or
// to what all the labels it begins share.
func Complete(q answer.Question, line string) (string, bool) {
	head, word := "", line
	if q.MultiSelect {
		if i := strings.LastIndex(line, ","); i >= 0 {
			head, word = line[:i+1]+" ", strings.TrimSpace(line[i+1:])
		}
	}
	word = strings.TrimLeft(word, " ")
	var match []string
	for _, o := range q.Options {
		if len(o.Label) >= len(word) && strings.EqualFold(o.Label[:len(word)], word) {
			match = append(match, o.Label)
		}
	}
	if len(match) == 0 {
		return line, false
	}
	common := match[0]
	for _, m := range match[1:] {
		n := 0
		for n < len(common) && n < len(m) && strings.EqualFold(common[n:n+1], m[n:n+1]) {
			n++
		}
		common = common[:n]
	}
	if len(common) < len(word) {
		return line, false
	}
	return head + common, true
}

func command(line string) (cmd, rest string, ok bool) {
	if !strings.HasPrefix(line, "/") {
		return "", "", false
	}
	cmd, rest, _ = strings.Cut(line[1:], " ")
	return strings.ToLower(cmd), strings.TrimSpace(rest), true
}

// numbers parses "1 3" or "1, 3".
func numbers(line string) ([]int, bool) {
	fields := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	var out []int
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, len(out) > 0
}

func pick(q answer.Question, nums []int) (answer.Decision, error) {
	if len(nums) > 1 && !q.MultiSelect {
		return answer.Decision{}, errors.New("pick one number: this question takes one answer")
	}
	seen := map[int]bool{}
	var labels []string
	for _, n := range nums {
		if n < 1 || n > len(q.Options) {
			return answer.Decision{}, fmt.Errorf("%d is not an option (1-%d)", n, len(q.Options))
		}
		if seen[n] {
			return answer.Decision{}, fmt.Errorf("%d given twice", n)
		}
		seen[n] = true
		labels = append(labels, q.Options[n-1].Label)
	}
	return answer.Decision{Action: answer.Select, Labels: labels}, nil
}

// withNotes parses "2 /notes TEXT".
func withNotes(q answer.Question, pickPart, notes string) (answer.Decision, error) {
	if q.MultiSelect || !q.HasPreview() {
		return answer.Decision{}, errors.New("notes go with a question whose options have previews")
	}
	nums, ok := numbers(pickPart)
	if !ok || len(nums) != 1 {
		return answer.Decision{}, errors.New("notes follow one option's number: 2 /notes TEXT")
	}
	if notes == "" {
		return answer.Decision{}, errors.New("/notes needs the notes' text")
	}
	d, err := pick(q, nums)
	d.Notes = notes
	return d, err
}

func typed(q answer.Question, text string) (answer.Decision, error) {
	if text == "" {
		return answer.Decision{}, errors.New("/type needs the answer's text")
	}
	if q.MultiSelect {
		return answer.Decision{}, errors.New("this question takes numbers (typed answers work on single-select questions only)")
	}
	if q.HasPreview() {
		return answer.Decision{}, errors.New("this question takes a number (its options have previews, and no typed answer)")
	}
	return answer.Decision{Action: answer.Type, Text: text}, nil
}
