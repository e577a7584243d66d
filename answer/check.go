package answer

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Check reports why d cannot answer q, or nil. It is the one definition of
// a valid answer: rules, the ask prompt and askflow all apply it.
func (d Decision) Check(q Question) error {
	switch d.Action {
	case Select:
		if len(d.Labels) == 0 {
			return errors.New("select names no label")
		}
		if len(d.Labels) > 1 && !q.MultiSelect {
			return errors.New("a list of labels on a single-select question")
		}
		seen := map[string]bool{}
		for _, l := range d.Labels {
			if q.Index(l) < 0 {
				return fmt.Errorf("label %q is not offered%s (offered: %q)", l, q.Meant(l), q.Labels())
			}
			if seen[l] {
				return fmt.Errorf("label %q named twice", l)
			}
			seen[l] = true
		}
	case Type:
		if q.MultiSelect {
			return errors.New("a typed answer on a multi-select question is not supported")
		}
		if q.PreviewLayout() {
			return errors.New("a question whose options have previews has no Type something row")
		}
		if err := CheckTyped(d.Text); err != nil {
			return err
		}
	case Chat:
		if err := CheckChat(d.Text); err != nil {
			return err
		}
	case Cancel:
	default:
		return fmt.Errorf("unknown action %d", d.Action)
	}
	if d.Notes != "" {
		if d.Action != Select || !q.PreviewLayout() {
			return errors.New("notes can be given only on a single-select question whose options have previews")
		}
		if err := CheckNotes(d.Notes); err != nil {
			return err
		}
	}
	return nil
}

// CheckTyped checks text for "Type something": one line, not blank, no
// control characters (typed into Claude they would act as keys: Ctrl-C,
// Tab, Enter).
func CheckTyped(s string) error {
	if strings.TrimSpace(s) == "" || hasControl(s, false) {
		return errors.New("want one line of text, without control characters")
	}
	return nil
}

// CheckChat checks a message sent after "Chat about this": it may hold
// newlines, no other control characters.
func CheckChat(s string) error {
	if hasControl(s, true) {
		return errors.New("control characters are not allowed")
	}
	return nil
}

// CheckNotes checks notes typed on an option: one line, not blank, no
// surrounding spaces (Claude trims them), no control characters.
func CheckNotes(s string) error {
	if s == "" || strings.TrimSpace(s) != s || hasControl(s, false) {
		return errors.New("want one line of text, without control characters or surrounding spaces")
	}
	return nil
}

func hasControl(s string, newlines bool) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && !(newlines && r == '\n') }) >= 0
}
