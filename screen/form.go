package screen

import (
	"fmt"
	"strings"
)

// Form is an AskUserQuestion form as Claude Code draws it: one question
// page, or the review page that follows the last of several questions.
//
// Only what is on the screen is in it. A form taller than the terminal
// loses its top (Cut): the tab row, the header and the first lines of the
// question may be missing. A long option list scrolls: Options then holds
// the visible options only, each with its place in the whole list.
type Form struct {
	// Top is the row of the form's first visible line.
	Top int
	// Cut is set when the form's top is off the screen.
	Cut bool
	// Tabs is the tab row of a form with several questions; nil for one,
	// or when it is off the screen.
	Tabs []Tab
	// Header is the header chip of a single question, or the active tab's
	// title; "" when off the screen.
	Header string

	// Review is set on the review page; the question fields are then empty.
	Review *Review

	// Question is the question's lines joined with single spaces; when Cut,
	// only its visible end (or nothing).
	Question    string
	MultiSelect bool
	// Options are the visible options, in order.
	Options []Option
	// MoreAbove and MoreBelow are set when the list is scrolled and options
	// (or "Type something") are hidden above or below the visible ones.
	MoreAbove, MoreBelow bool
	Other                *Other   // the "Type something" row; nil when hidden or absent
	Button               *Button  // multi-select only: Next, or Submit on the last question
	Preview              *Preview // the preview layout only
	Chat                 *Row     // "Chat about this"
	Footer               string
	// Insert is set while "Type something" is typed in vim's insert mode
	// (Claude's vim mode, 2.1.321 and later): Esc leaves the mode and
	// cancels nothing (the footer begins "-- INSERT --").
	Insert bool

	// Focus is the one focused element, or FocusUnknown.
	Focus Focus

	// MarksJoin is the snapshot's ([vt.Measure.MarksJoin]): spacing marks get
	// no cell on this page (see [SquashTypedOn]).
	MarksJoin bool
}

// Preview is the right-hand side of the preview layout: the focused
// option's preview, and the notes.
type Preview struct {
	// Box holds the lines inside the box, trimmed.
	Box []string
	// Notes is the text typed so far, "" for none.
	Notes string
	// Editing is set while notes are being typed (n was pressed).
	Editing bool
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
	Number      int    // 1-based place in the whole list
	Label       string // wrapped lines joined with single spaces
	Description string
	Ticked      bool // multi-select: [✔]; preview layout: chosen before (" ✔")
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

// Row is a row that is not an answer: "Chat about this", and the review
// page's "Submit answers" and "Cancel".
type Row struct {
	Number  int // 0 when not numbered ("Chat about this" in the preview layout)
	Label   string
	Focused bool
}

// Review is the page listing the answers before they are submitted.
type Review struct {
	// Answers are the visible entries; when the page is Cut, the first
	// ones may be missing (and the topmost visible one may lack the start
	// of its question).
	Answers []ReviewAnswer
	// Incomplete is set when the page warns that a question was not
	// answered.
	Incomplete bool
	// Silent: this Claude Code (2.1.227 and older) draws nothing in place
	// of text lost at a row's end, where later ones draw "…" (see
	// SameWrapped). False when the version is not known.
	Silent bool
	Submit Row
	Cancel Row
}

// ReviewAnswer is one question on the review page with the answer given,
// each as its rows show it, joined by a space; a row that reached the
// screen's right edge ends with "\n": there text may be missing when it is
// compared with the text asked (SameWrapped).
type ReviewAnswer struct {
	Question string
	Answer   string
}

// FocusKind says which kind of element has the focus.
type FocusKind int

// Focus kinds.
const (
	FocusUnknown FocusKind = iota // no focused element, or more than one
	FocusOption                   // Focus.Index is the option's 0-based place in the whole list
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
	Index int // the option's 0-based place in the whole list, for FocusOption
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

// Whole reports whether the page shows whole: its top on the screen and no
// rows of its list scrolled out of sight above or below.
func (f *Form) Whole() bool { return !f.Cut && !f.MoreAbove && !f.MoreBelow }

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
	if f.Cut {
		b.WriteString("cut: the top is off the screen\n")
	}
	if f.Header != "" {
		fmt.Fprintf(&b, "header: %s\n", f.Header)
	}
	if r := f.Review; r != nil {
		b.WriteString("review:\n")
		if r.Incomplete {
			b.WriteString("  (not all questions answered)\n")
		}
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
		if f.Preview != nil {
			b.WriteString("preview layout\n")
		}
		if f.MoreAbove {
			b.WriteString("more above\n")
		}
		for _, o := range f.Options {
			box := ""
			switch {
			case f.MultiSelect && o.Ticked:
				box = "[x] "
			case f.MultiSelect:
				box = "[ ] "
			case o.Ticked:
				box = "(chosen) "
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
		if f.MoreBelow {
			b.WriteString("more below\n")
		}
		if f.Button != nil {
			fmt.Fprintf(&b, "button: %s%s\n", f.Button.Label, focusMark(f.Button.Focused))
		}
		if p := f.Preview; p != nil {
			fmt.Fprintf(&b, "preview: %q\n", strings.Join(p.Box, "\n"))
			editing := ""
			if p.Editing {
				editing = "  <editing>"
			}
			fmt.Fprintf(&b, "notes: %q%s\n", p.Notes, editing)
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
