package screen

import (
	"fmt"
	"strings"
)

// Form is an AskUserQuestion form as Claude Code draws it: one question
// page, or the review page that follows the last of several questions.
type Form struct {
	// Top is the row of the form's first line (the tab row or the header chip).
	Top int
	// Tabs is the tab row of a form with several questions; nil for one.
	Tabs []Tab
	// Header is the header chip of a single question, or the active tab's title.
	Header string

	// Review is set on the review page; the question fields are then empty.
	Review *Review

	Question    string // wrapped lines joined with single spaces
	MultiSelect bool
	Options     []Option
	Other       *Other  // the "Type something" row
	Button      *Button // multi-select only: Next, or Submit on the last question
	Chat        *Row    // "Chat about this"
	Footer      string

	// Focus is the one focused element, or FocusUnknown.
	Focus Focus
}

// Tab is one entry of the tab row.
type Tab struct {
	Title    string
	Answered bool // ☒
	Active   bool // drawn on a coloured background
	Submit   bool // the final "✔ Submit" tab
}

// Option is one offered answer.
type Option struct {
	Number      int
	Label       string // wrapped lines joined with single spaces
	Description string
	Ticked      bool // multi-select: [✔]
	Focused     bool
}

// Other is the "Type something" row, holding the placeholder or the text
// typed so far.
type Other struct {
	Number      int
	Text        string
	Placeholder bool // Text is Claude's placeholder, nothing typed
	Ticked      bool
	Focused     bool
}

// Button is the multi-select Next/Submit row.
type Button struct {
	Label   string
	Focused bool
}

// Row is a numbered row that is not an answer: "Chat about this", and the
// review page's "Submit answers" and "Cancel".
type Row struct {
	Number  int
	Label   string
	Focused bool
}

// Review is the page listing the answers before they are submitted.
type Review struct {
	Answers []ReviewAnswer
	Submit  Row
	Cancel  Row
}

// ReviewAnswer is one question on the review page with the answer given.
type ReviewAnswer struct {
	Question string
	Answer   string
}

// FocusKind says which kind of element has the focus.
type FocusKind int

// Focus kinds.
const (
	FocusUnknown FocusKind = iota // no focused element, or more than one
	FocusOption                   // Focus.Index is the 0-based option index
	FocusOther
	FocusButton
	FocusChat
	FocusSubmit // review page: Submit answers
	FocusCancel // review page: Cancel
)

var focusNames = [...]string{"unknown", "option", "other", "button", "chat", "submit", "cancel"}

func (k FocusKind) String() string {
	if k < 0 || int(k) >= len(focusNames) {
		return fmt.Sprintf("FocusKind(%d)", int(k))
	}
	return focusNames[k]
}

// Focus is the focused element of a form.
type Focus struct {
	Kind  FocusKind
	Index int // the option's 0-based index, for FocusOption
}

func (f Focus) String() string {
	if f.Kind == FocusOption {
		return fmt.Sprintf("option %d", f.Index+1)
	}
	return f.Kind.String()
}

// ActiveTab returns the index of the active tab, or -1.
func (f *Form) ActiveTab() int {
	for i, t := range f.Tabs {
		if t.Active {
			return i
		}
	}
	return -1
}

// String renders the form as stable, readable text; golden files hold it.
func (f *Form) String() string {
	var b strings.Builder
	if len(f.Tabs) > 0 {
		b.WriteString("tabs:")
		for _, t := range f.Tabs {
			mark := "☐"
			switch {
			case t.Submit:
				mark = "✔"
			case t.Answered:
				mark = "☒"
			}
			active := ""
			if t.Active {
				active = "*"
			}
			fmt.Fprintf(&b, " [%s %s]%s", mark, t.Title, active)
		}
		b.WriteByte('\n')
	}
	if f.Header != "" {
		fmt.Fprintf(&b, "header: %s\n", f.Header)
	}
	if r := f.Review; r != nil {
		b.WriteString("review:\n")
		for _, a := range r.Answers {
			fmt.Fprintf(&b, "  %q -> %q\n", a.Question, a.Answer)
		}
		fmt.Fprintf(&b, "submit: %d. %s%s\n", r.Submit.Number, r.Submit.Label, focusMark(r.Submit.Focused))
		fmt.Fprintf(&b, "cancel: %d. %s%s\n", r.Cancel.Number, r.Cancel.Label, focusMark(r.Cancel.Focused))
	} else {
		fmt.Fprintf(&b, "question: %s\n", f.Question)
		if f.MultiSelect {
			b.WriteString("multi-select\n")
		}
		for _, o := range f.Options {
			box := ""
			if f.MultiSelect {
				box = "[ ] "
				if o.Ticked {
					box = "[x] "
				}
			}
			fmt.Fprintf(&b, "option %d: %s%q", o.Number, box, o.Label)
			if o.Description != "" {
				fmt.Fprintf(&b, " (%s)", o.Description)
			}
			b.WriteString(focusMark(o.Focused) + "\n")
		}
		if o := f.Other; o != nil {
			kind := "typed"
			if o.Placeholder {
				kind = "placeholder"
			}
			fmt.Fprintf(&b, "other %d: %s %q%s\n", o.Number, kind, o.Text, focusMark(o.Focused))
		}
		if f.Button != nil {
			fmt.Fprintf(&b, "button: %s%s\n", f.Button.Label, focusMark(f.Button.Focused))
		}
		if f.Chat != nil {
			fmt.Fprintf(&b, "chat %d: %s%s\n", f.Chat.Number, f.Chat.Label, focusMark(f.Chat.Focused))
		}
		fmt.Fprintf(&b, "footer: %s\n", f.Footer)
	}
	fmt.Fprintf(&b, "focus: %s\n", f.Focus)
	return b.String()
}

func focusMark(focused bool) string {
	if focused {
		return "  <focus>"
	}
	return ""
}

// NoFormError says why a screen was not taken for a form.
type NoFormError struct {
	Reason string
}

func (e *NoFormError) Error() string { return "no form on screen: " + e.Reason }

func noForm(format string, args ...any) error {
	return &NoFormError{Reason: fmt.Sprintf(format, args...)}
}
