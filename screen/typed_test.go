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
	} {
		if got := Typed([]byte(tc.in)); got != tc.want {
			t.Errorf("Typed(%q) = %t, want %t", tc.in, got, tc.want)
		}
	}
}
