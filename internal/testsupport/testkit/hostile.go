package testkit

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hostile is text a form or a file could hold to take over the terminal
// it is printed on: a clipboard write (OSC 52), a clear screen, a window
// title, a C1 CSI, a bidi override, and a CR that writes a fake verdict
// over the line.
const Hostile = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]0;title\x07\u009b31m\u202e\rclaudewrap: verified"

// HostileShown is how the clipboard write in [Hostile] reads once escaped.
const HostileShown = `\x1b]52;c;ZXZpbA==\a`

// Unescaped describes the first thing in out that a terminal would act on
// rather than show (a control other than LF and tab, a CR that does not
// end a line, a C1 control, a bidi formatting character, a byte that is
// not UTF-8), or returns "" when there is none.
func Unescaped(out string) string {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return fmt.Sprintf("byte %#x at %d", out[i], i)
		case r == '\r' && strings.HasPrefix(out[i+1:], "\n"), r == '\n', r == '\t':
		case r < 0x20 || r >= 0x7f && r <= 0x9f || unicode.Is(unicode.Bidi_Control, r):
			return fmt.Sprintf("%U at %d, in %q", r, i, out[max(0, i-20):min(len(out), i+40)])
		}
		i += n
	}
	return ""
}
