package screen

import "testing"

func TestTyped(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"a", true},
		{"\r", true},
		{"\x1b[B", true},        // Down
		{"\x1b", true},          // Esc
		{"\x1b[?62;22c", false}, // DA1 reply
		{"\x1b[>0;276;0c", false},
		{"\x1b[12;40R", false},  // cursor position
		{"\x1b[I\x1b[O", false}, // focus
		{"\x1b[?1u", false},     // kitty flags
		{"\x1bP>|xterm(390)\x1b\\", false},
		{"\x1b]11;rgb:0000/0000/0000\x07", false},
		{"\x1b[12;40Rx", true},    // a report, then a key
		{"\x1b[?2004;1$y", false}, // mode report
		// Window reports: the cell's size in pixels (a kitty's reply to
		// CSI 16 t, which Claude sends again after a resize: random forms
		// run 46), the text area's in pixels and in cells.
		{"\x1b[6;20;10t", false},
		{"\x1b[4;800;1000t\x1b[8;40;100t", false},
		{"\x1b[6;20;10t\x1b[?62;c", false},
		{"\x1b[6;20;10tq", true},
		{"\x1b[t", true},
		{"\x1b[>1t", true},
	} {
		if got := Typed([]byte(tc.in)); got != tc.want {
			t.Errorf("Typed(%q) = %t, want %t", tc.in, got, tc.want)
		}
	}
}
