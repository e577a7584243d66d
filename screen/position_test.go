package screen

import (
	"testing"

	"github.com/claudewrap/claudewrap/answer"
)

// TestPosition: the order Up and Down walk, per layout.
func TestPosition(t *testing.T) {
	opts := []answer.Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}
	list := answer.Question{Question: "q", Options: opts}
	multi := answer.Question{Question: "q", Options: opts, MultiSelect: true}
	preview := answer.Question{Question: "q", Options: []answer.Option{{Label: "a", Preview: "x"}, {Label: "b", Preview: "y"}}}
	for _, tc := range []struct {
		name string
		q    answer.Question
		f    Focus
		want int
	}{
		{"option", list, Focus{Kind: FocusOption, Index: 2}, 2},
		{"type something", list, Focus{Kind: FocusOther}, 3},
		{"chat, list", list, Focus{Kind: FocusChat}, 4},
		{"button", multi, Focus{Kind: FocusButton}, 4},
		{"chat, multi-select", multi, Focus{Kind: FocusChat}, 5},
		{"chat, preview", preview, Focus{Kind: FocusChat}, 2},
		{"nothing", list, Focus{}, -1},
	} {
		if got := tc.f.Position(tc.q); got != tc.want {
			t.Errorf("%s: position %d, want %d", tc.name, got, tc.want)
		}
	}
}
