package screen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hinshun/vt10x"
)

// Replies to terminal queries.
const (
	replyDA1       = "\x1b[?62;22c"   // VT220 with ANSI colour
	replyDA2       = "\x1b[>0;276;0c" // VT100-class, xterm patch 276
	replyXTVERSION = "\x1bP>|claudewrap\x1b\\"
	replyOSC10     = "\x1b]10;rgb:ffff/ffff/ffff"
	replyOSC11     = "\x1b]11;rgb:0000/0000/0000"
)

// vtCSIFinals are the CSI commands without a private marker that vt10x gets
// right; it reads anything else as one of these or ignores it.
const vtCSIFinals = "@ABCDEFGHIJKLMPSTXZ`adefghlrsu"

// dispatchCSI handles a complete CSI sequence, seq = ESC [ ... final.
func (f *filter) dispatchCSI(seq []byte) {
	body, final := seq[2:len(seq)-1], seq[len(seq)-1]
	var marker byte
	if len(body) > 0 && body[0] >= '<' && body[0] <= '?' {
		marker, body = body[0], body[1:]
	}
	end := len(body)
	for end > 0 && body[end-1] < 0x30 {
		end--
	}
	params, inter := string(body[:end]), string(body[end:])
	if strings.IndexFunc(params, func(r rune) bool { return r < '0' || r > ';' }) >= 0 {
		return // a marker or intermediate in the wrong place: malformed
	}

	switch {
	case marker == '?' && inter == "$" && final == 'p': // DECRQM
		n := atoi(params)
		f.replyString(fmt.Sprintf("\x1b[?%d;%d$y", n, f.modeState(n)))
	case inter != "":
		// DECSCUSR, DECSTR, DECRQM for ANSI modes, ...: vt10x would ignore the
		// intermediate and act on the final byte alone.
	case marker == '>' && final == 'c' && atoi(params) == 0: // DA2
		f.replyString(replyDA2)
	case marker == '>' && final == 'q': // XTVERSION
		f.replyString(replyXTVERSION)
	case marker == '?' && (final == 'h' || final == 'l'):
		for _, p := range strings.Split(params, ";") {
			f.privateMode(atoi(p), final == 'h')
		}
	case marker == '?' && final == 'n' && params == "6": // DECXCPR
		x, y := f.cursor()
		f.replyString(fmt.Sprintf("\x1b[?%d;%dR", y+1, x+1))
	case marker == '?' && (final == 'J' || final == 'K'): // selective erase, as plain erase
		f.emitString("\x1b[" + vtParams(params, final, 0) + string(final))
	case marker != 0:
		// Kitty keyboard (CSI > u, CSI < u, CSI = u, and the query CSI ? u,
		// which gets no answer so the child falls back), modifyOtherKeys
		// (CSI > 4;1 m), XTSAVE (CSI ? s), ...: vt10x would take them for
		// restore cursor, SGR or save cursor.
	case strings.Contains(params, ":") && final != 'm':
		// Sub-parameters mean nothing outside SGR; vt10x would stop reading there.
	case final == 'c' && atoi(params) == 0: // DA1
		f.replyString(replyDA1)
	case final == 'n' && params == "5": // DSR
		f.replyString("\x1b[0n")
	case final == 'n' && params == "6": // CPR
		x, y := f.cursor()
		f.replyString(fmt.Sprintf("\x1b[%d;%dR", y+1, x+1))
	case final == 't' && params == "18": // text area size in characters
		cols, rows := f.vt.Size()
		f.replyString(fmt.Sprintf("\x1b[8;%d;%dt", rows, cols))
	case final == 'm':
		if sgr := rewriteSGR(params); sgr != "" {
			f.emitString("\x1b[" + sgr + "m")
		}
	case final == 'b': // REP, which vt10x lacks
		if f.last != 0 {
			cols, rows := f.vt.Size()
			for range min(max(atoi(params), 1), cols*rows) {
				f.print(f.last)
			}
		}
	case strings.IndexByte(vtCSIFinals, final) >= 0:
		cols, _ := f.vt.Size()
		f.emitString("\x1b[" + vtParams(params, final, cols) + string(final))
	}
}

// vtParams rewrites the parameters of a CSI command for vt10x, which stops
// at an empty parameter (CSI ;5H would go home), takes 0 literally where
// terminals read 1 (CSI 0 X erases the character before the cursor), and
// loops once per count in CHT and CBT.
func vtParams(params string, final byte, cols int) string {
	if params == "" {
		return ""
	}
	parts := strings.Split(params, ";")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1] // vt10x uses the defaults for missing ones
	}
	one := strings.IndexByte("JKghlsu", final) < 0
	for i, p := range parts {
		n := atoi(p)
		switch {
		case final == 'I' || final == 'Z':
			n = min(max(n, 1), cols)
		case one:
			n = min(max(n, 1), 9999)
		default:
			n = min(n, 9999)
		}
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ";")
}

// privateMode sets or resets DEC private mode n.
func (f *filter) privateMode(n int, set bool) {
	switch n {
	case 2026: // synchronized output: vt10x needs not know
		if set && !f.inSync {
			f.inSync, f.syncStart = true, time.Now()
			f.dirty = true
		} else if !set && f.inSync {
			f.inSync, f.syncEnded = false, true
			f.dirty = true
		}
		return
	case 47, 1047, 1049:
		// vt10x swaps screens on every reset, even on the main screen.
		if set == f.alt {
			return
		}
		f.alt = set
	}
	f.modes[n] = set
	if set {
		f.emitString(fmt.Sprintf("\x1b[?%dh", n))
	} else {
		f.emitString(fmt.Sprintf("\x1b[?%dl", n))
	}
}

// modeState answers DECRQM for private mode n: 1 set, 2 reset, 0 unknown.
func (f *filter) modeState(n int) int {
	var set bool
	switch n {
	case 2026:
		set = f.inSync
	case 47, 1047, 1049:
		set = f.alt
	case 7, 25:
		f.flush()
		f.vt.Lock()
		set = n == 7 && f.vt.Mode()&vt10x.ModeWrap != 0 || n == 25 && f.vt.CursorVisible()
		f.vt.Unlock()
	case 1, 1000, 1002, 1003, 1004, 1006, 2004:
		set = f.modes[n]
	default:
		return 0
	}
	if set {
		return 1
	}
	return 2
}

// cursor returns the cursor position after everything before it was fed.
func (f *filter) cursor() (x, y int) {
	f.flush()
	f.vt.Lock()
	defer f.vt.Unlock()
	c := f.vt.Cursor()
	return c.X, c.Y
}

// dispatchEsc handles an escape sequence other than CSI and strings.
func (f *filter) dispatchEsc(seq []byte) {
	s := string(seq[1:])
	switch {
	case s == "c": // RIS
		f.reset()
	case s == "Z": // DECID
		f.replyString(replyDA1)
	case len(s) == 1 && strings.Contains("DEHM78=>", s),
		len(s) == 2 && s[0] == '(',
		s == "#8":
		f.emitString(string(seq))
	}
	// vt10x would print the charset of ESC ) 0 and the like.
}

// reset handles RIS. vt10x's reset clears only part of the screen and forgets
// the alternate screen without leaving it.
func (f *filter) reset() {
	if f.alt {
		f.emitString("\x1b[?1047l")
	}
	f.emitString("\x1bc\x1b[2J")
	f.alt, f.inSync, f.title, f.last = false, false, "", 0
	clear(f.modes)
}

// dispatchStr handles an OSC, DCS, APC, PM or SOS string; none reaches
// vt10x, whose colour overrides would change what cells report.
func (f *filter) dispatchStr(st string) {
	if f.strTyp != ']' {
		return
	}
	num, arg, _ := bytes.Cut(f.str, []byte(";"))
	switch string(num) {
	case "0", "2":
		f.title = string(arg)
		f.dirty = true
	case "10":
		if string(arg) == "?" {
			f.replyString(replyOSC10 + st)
		}
	case "11":
		if string(arg) == "?" {
			f.replyString(replyOSC11 + st)
		}
	}
	// Hyperlinks (8), notifications (9, 777), clipboard (52), ... are dropped.
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
