package screen

import "github.com/claudewrap/claudewrap/answer"

// Positions on a question page, in the order Up and Down walk through them:
// the options 0..n-1, "Type something" n, the multi-select button n+1,
// "Chat about this" last. The preview layout has neither "Type something"
// nor a button, so "Chat about this" follows the options there.
//
// Up on option 1 goes to "Type something", on every pinned version (the
// recordings database-up-wrap and multi-up-wrap); on a preview page it
// leaves the focus where it is (preview-up-stays).

// UpWraps reports whether Up on option 1 of question q's page moves the
// focus to "Type something" (see above).
func UpWraps(q answer.Question) bool { return !q.PreviewLayout() }

// OtherPosition is the position of "Type something" on question q.
func OtherPosition(q answer.Question) int { return len(q.Options) }

// ButtonPosition is the position of the multi-select button on question q.
func ButtonPosition(q answer.Question) int { return len(q.Options) + 1 }

// ChatPosition is the position of "Chat about this" on question q.
func ChatPosition(q answer.Question) int {
	switch {
	case q.PreviewLayout():
		return len(q.Options)
	case q.MultiSelect:
		return len(q.Options) + 2
	}
	return len(q.Options) + 1
}

// Position is the focus's position on question q's page, or -1 when no
// element has the focus.
func (f Focus) Position(q answer.Question) int {
	switch f.Kind {
	case FocusOption:
		return f.Index
	case FocusOther:
		return OtherPosition(q)
	case FocusButton:
		return ButtonPosition(q)
	case FocusChat:
		return ChatPosition(q)
	}
	return -1
}
