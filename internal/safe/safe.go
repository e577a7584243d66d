package safe

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Line is s made safe to print as (part of) one line: C0 controls (CR,
// LF, tab, ESC, BEL, BS…), DEL, C1 controls (U+0080–U+009F), the
// bidirectional formatting characters and bytes that are not UTF-8 are
// written as %q writes them (\r, \x1b, \u009b, \u202e, \xff). A backslash
// is left as it is, so that ordinary text reads as it was written.
func Line(s string) string { return escape(s, false) }

// Text is [Line] for text of several lines (a screen, a preview): line
// feeds and tabs are kept, every other control is escaped.
func Text(s string) string { return escape(s, true) }

// JSON is JSON text b with the characters encoding/json leaves as they are
// but a terminal acts on (DEL, C1 controls, bidirectional formatting)
// written as \u escapes: the same JSON values, safe to print. b must be
// valid UTF-8, as encoding/json writes it.
func JSON(b []byte) []byte {
	if !strings.ContainsFunc(string(b), acts) {
		return b
	}
	var out strings.Builder
	for _, r := range string(b) {
		if acts(r) {
			if r > 0xffff { // JSON's \u takes four digits: a surrogate pair
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
				continue
			}
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}

func escape(s string, lines bool) string {
	escaped := func(r rune) bool { return r < 0x20 && !(lines && (r == '\n' || r == '\t')) || acts(r) }
	if utf8.ValidString(s) && !strings.ContainsFunc(s, escaped) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case escaped(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
		s = s[n:]
	}
	return b.String()
}

// acts reports whether a terminal acts on r, beyond the C0 controls: DEL,
// a C1 control, a character that reorders the text around it, or one that
// shows nothing where it stands and so can hide text or make two texts
// look alike (zero-width space, soft hyphen, byte order mark, line and
// paragraph separators, invisible operators, tag characters). The
// zero-width joiner and non-joiner and the variation selectors are not:
// emoji sequences and scripts need them, and they hide nothing.
func acts(r rune) bool {
	switch {
	case r >= 0x7f && r <= 0x9f, unicode.Is(unicode.Bidi_Control, r):
		return true
	case r == 0x200b, r == 0xad, r == 0xfeff, r == 0x180e, r == 0x2028, r == 0x2029,
		r >= 0x2060 && r <= 0x2064, r >= 0x206a && r <= 0x206f, r >= 0xe0000 && r <= 0xe007f,
		r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0:
		return true
	}
	return false
}
