package screen

import "strings"

// Typed reports whether input from the person's terminal holds
// anything but the terminal's own reports (replies to Claude's queries,
// focus events), which arrive on the same stdin and must not count as the
// person taking a form over.
func Typed(p []byte) bool {
	for i := 0; i < len(p); {
		n := reportLen(p[i:])
		if n == 0 {
			return true
		}
		i += n
	}
	return false
}

// reportLen returns the length of the terminal report at the start of p, or
// 0 when p does not start with one.
func reportLen(p []byte) int {
	if len(p) < 3 || p[0] != 0x1b {
		return 0
	}
	switch p[1] {
	case '[':
		// Focus in/out.
		if p[2] == 'I' || p[2] == 'O' {
			return 3
		}
		// CSI ? ... c (DA1), CSI > ... c (DA2), CSI ... R (cursor position),
		// CSI ? ... $ y (mode report), CSI ? ... u (kitty flags), CSI ... n,
		// CSI digits t (a window report: the cell's or the text area's size,
		// which Claude asks for again after a resize; no key is sent so).
		for i := 2; i < len(p); i++ {
			c := p[i]
			if c >= 0x40 && c <= 0x7e {
				switch c {
				case 'c', 'R', 'y', 'n':
					return i + 1
				case 'u':
					if p[2] == '?' {
						return i + 1
					}
				case 't':
					if i > 2 && strings.Trim(string(p[2:i]), "0123456789;") == "" {
						return i + 1
					}
				}
				return 0
			}
		}
	case ']', 'P', '_':
		// OSC, DCS, APC replies up to BEL or ST.
		for i := 2; i < len(p); i++ {
			if p[i] == 0x07 {
				return i + 1
			}
			if p[i] == 0x1b && i+1 < len(p) && p[i+1] == '\\' {
				return i + 2
			}
		}
	}
	return 0
}
