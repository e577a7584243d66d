package screen

import (
	"bytes"
	"strconv"
)

// Typed reports whether input from the person's terminal holds anything
// but the terminal's own reports (replies to Claude's queries, focus
// events), which arrive on the same input and must not count as the person
// taking a form over. Reports are read strictly, so that no key passes for
// one; a report cut in two counts as typed (ptyhost passes one on whole when
// its rest follows within 50 ms).
//
// Pointer motion with no button held (Claude's fullscreen renderer asks
// for it, ?1003h) is no key either where Claude draws nothing on a form for
// it ([PointerInert]); before that version, or when the version
// ([vt.Measure.Version]) is not known, it counts as the person's. A click,
// a drag or the wheel always does.
func Typed(p []byte, version string) bool { return len(keys(p, PointerInert(version))) > 0 }

// PointerVersion is the first Claude Code that draws nothing on a form for
// the pointer moving over its fullscreen renderer (recordings
// fullscreen-hover): before it, a second "❯" marks the option under the
// pointer.
const PointerVersion = "2.1.299"

// PointerInert reports whether Claude Code version (as [vt.Measure.Version])
// draws nothing on a form for the pointer moving: PointerVersion or later.
// A version not known does not.
func PointerInert(version string) bool {
	n, ok := parseVersion(version)
	first, _ := parseVersion(PointerVersion)
	return ok && !before(n, first)
}

// EscPressed reports whether the person pressed Esc alone: what is left of
// p once the terminal's reports are taken out is one Esc key, as a legacy
// terminal sends it or as the kitty keyboard protocol does (Claude turns
// the protocol on where the terminal answers its query), or modifyOtherKeys.
func EscPressed(p []byte) bool {
	switch string(keys(p, true)) {
	case "\x1b", "\x1b[27u", "\x1b[27;1u", "\x1b[27;1:1u", "\x1b[27;1;27~":
		return true
	}
	return false
}

// keys returns p without the terminal's reports in it, pointer motion
// among them if pointer is set.
func keys(p []byte, pointer bool) []byte {
	var out []byte
	for i := 0; i < len(p); {
		if n := reportLen(p[i:], pointer); n > 0 {
			i += n
			continue
		}
		out = append(out, p[i])
		i++
	}
	return out
}

// reportLen returns the length of the terminal report at the start of p, or
// 0 when p does not start with one. Pointer motion is one if pointer is set.
func reportLen(p []byte, pointer bool) int {
	if len(p) < 3 || p[0] != 0x1b {
		return 0
	}
	switch p[1] {
	case '[':
		// Focus in/out.
		if p[2] == 'I' || p[2] == 'O' {
			return 3
		}
		end := 2
		for end < len(p) && (p[end] < 0x40 || p[end] > 0x7e) {
			end++
		}
		if end == len(p) {
			return 0 // no final byte: cut by the read, or not a CSI
		}
		if csiReport(p[2:end], p[end]) || pointer && motion(p[2:end], p[end]) {
			return end + 1
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

// csiReport tells the reports among CSI sequences by their parameters and
// final byte; each grammar leaves out the keys that end alike.
func csiReport(params []byte, final byte) bool {
	switch final {
	case 'c':
		// DA1 "? 62 ; 22", DA2 "> 0 ; 276 ; 0"; urxvt's Shift+Right is
		// CSI c with no parameters.
		return len(params) > 1 && (params[0] == '?' || params[0] == '>') && numbers(params[1:])
	case 'R':
		// A cursor position, "row ; col", or DECXCPR's "? row ; col ; page".
		// "1 ; m" is F3 with modifiers m (xterm's Shift+F3 is CSI 1;2R):
		// a key, unless DECXCPR's question mark says otherwise.
		if len(params) > 1 && params[0] == '?' {
			return numbers(params[1:]) && bytes.Count(params, []byte(";")) >= 1
		}
		if !numbers(params) || bytes.Count(params, []byte(";")) != 1 {
			return false
		}
		row, col, _ := bytes.Cut(params, []byte(";"))
		m, err := strconv.Atoi(string(col))
		return string(row) != "1" || err != nil || m < 2 || m > 16
	case 'y':
		// A mode report, DECRPM: "? mode ; value $" or "mode ; value $".
		q := bytes.TrimPrefix(params, []byte("?"))
		return len(q) > 1 && q[len(q)-1] == '$' && numbers(q[:len(q)-1]) && bytes.Count(q, []byte(";")) == 1
	case 'n':
		// A status report: "0", "? 997 ; 1".
		q := bytes.TrimPrefix(params, []byte("?"))
		return len(q) > 0 && numbers(q)
	case 'u':
		// The kitty keyboard flags, "? flags"; a key is "code ; mods u".
		return len(params) > 1 && params[0] == '?' && numbers(params[1:])
	case 't':
		// A window report: the cell's or the text area's size ("6 ; 20 ;
		// 10", "4 ; h ; w", "8 ; rows ; cols", in-band resize "48 ; …"),
		// which 2.1.299 and later ask for again after every resize; no key
		// is sent so.
		return len(params) > 0 && numbers(params)
	}
	return false
}

// motion tells an SGR mouse report (?1006h) of the pointer moving with no
// button held, "< b ; x ; y M" where b is 35 plus Shift (4), Meta (8) or
// Control (16).
func motion(params []byte, final byte) bool {
	if final != 'M' || len(params) < 2 || params[0] != '<' || !numbers(params[1:]) {
		return false
	}
	f := bytes.Split(params[1:], []byte(";"))
	if len(f) != 3 || len(f[1]) == 0 || len(f[2]) == 0 {
		return false
	}
	b, err := strconv.Atoi(string(f[0]))
	return err == nil && b&^(4|8|16) == 35
}

// numbers reports whether b is only digits and semicolons.
func numbers(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && c != ';' {
			return false
		}
	}
	return true
}
