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
		{"\x1b[48;40;100;800;1000t", false}, // in-band resize
		{"\x1b[?997;1n", false},             // colour scheme
		{"\x1b[0n", false},
		{"\x1b[?12;40;1R", false}, // DECXCPR
		{"\x1b[1;40R", false},     // the cursor on the first row
		{"\x1b[1;1R", false},
		{"\x1b_Gi=31;OK\x1b\\", false},
		// Keys that end as reports do, which must stay keys: urxvt's
		// Shift+Right, xterm's Shift+F3 and Ctrl+F3, rxvt's Shift+F11 then
		// y, the kitty keyboard protocol's Esc and Ctrl+t, modifyOtherKeys'
		// Ctrl+t.
		{"\x1b[c", true},
		{"\x1b[1;2R", true},
		{"\x1b[1;5R", true},
		{"\x1b[23$y", true},
		{"\x1b[27u", true},
		{"\x1b[116;5u", true},
		{"\x1b[27;5;116~", true},
		// A report cut by the read counts as typed: a handover, never a
		// key missed.
		{"\x1b[6;2", true},
		{"0;10t", true},
	} {
		if got := Typed([]byte(tc.in), "2.1.332"); got != tc.want {
			t.Errorf("Typed(%q) = %t, want %t", tc.in, got, tc.want)
		}
	}
}

// TestTypedPointer: the pointer moving with no button held is no key where
// Claude draws nothing for it on a form (2.1.299 and later); elsewhere, and
// a click, a drag or the wheel anywhere, it is the person's.
func TestTypedPointer(t *testing.T) {
	for _, tc := range []struct {
		in      string
		version string
		want    bool
	}{
		{"\x1b[<35;10;19M", "2.1.332", false},
		{"\x1b[<35;10;19M\x1b[<35;11;19M\x1b[<51;1;1M", "2.1.299", false}, // Control held: 35+16
		{"\x1b[<39;10;19M", "2.1.330 (Claude Code)", false},               // Shift: 35+4
		{"\x1b[<35;10;19M", "2.1.266", true},                              // a second ❯ under the pointer
		{"\x1b[<35;10;19M", "2.1.197", true},
		{"\x1b[<35;10;19M", "", true}, // version not known
		{"\x1b[<35;10;19Mx", "2.1.332", true},
		{"\x1b[<0;10;19M", "2.1.332", true},  // a click
		{"\x1b[<0;10;19m", "2.1.332", true},  // its release
		{"\x1b[<32;10;19M", "2.1.332", true}, // a drag
		{"\x1b[<64;10;19M", "2.1.332", true}, // the wheel
		{"\x1b[<35;10M", "2.1.332", true},
		{"\x1b[<35;;19M", "2.1.332", true},
		{"\x1b[<35;10;19m", "2.1.332", true},
		{"\x1b[<35;10;1", "2.1.332", true},  // cut by the read
		{"\x1b[35;10;19M", "2.1.332", true}, // urxvt's encoding: not asked for
	} {
		if got := Typed([]byte(tc.in), tc.version); got != tc.want {
			t.Errorf("Typed(%q, %q) = %t, want %t", tc.in, tc.version, got, tc.want)
		}
	}
}

// TestEscPressed: Esc alone, in every encoding a terminal sends it, also
// beside the terminal's reports; nothing else.
func TestEscPressed(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"\x1b", true},
		{"\x1b[27u", true},         // kitty keyboard protocol
		{"\x1b[27;1:1u", true},     // ... with event types
		{"\x1b[27;1;27~", true},    // modifyOtherKeys
		{"\x1b[I\x1b", true},       // after a focus report
		{"\x1b[27u\x1b[?0u", true}, // before a flags report
		{"\x1b[B", false},
		{"\x1b\x1b", false},
		{"\x1b[27;5u", false}, // Ctrl+Esc
		{"\x1b[?62;c", false},
		{"q", false},
	} {
		if got := EscPressed([]byte(tc.in)); got != tc.want {
			t.Errorf("EscPressed(%q) = %t, want %t", tc.in, got, tc.want)
		}
	}
}
