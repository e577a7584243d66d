package vt

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// Replies to terminal queries.
const (
	replyDA1       = "\x1b[?62;22c"   // VT220 with ANSI colour
	replyDA2       = "\x1b[>0;276;0c" // VT100-class, xterm patch 276
	replyXTVERSION = "\x1bP>|claudewrap\x1b\\"
	replyOSC10     = "\x1b]10;rgb:ffff/ffff/ffff"
	replyOSC11     = "\x1b]11;rgb:0000/0000/0000"
)

// vtCSIFinals are the CSI commands without a private marker that the grid
// carries out; others are ignored.
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
	params, inter := body[:end], body[end:]
	colon := false
	for _, c := range params {
		if c < '0' || c > ';' {
			return // a marker or intermediate in the wrong place: malformed
		}
		colon = colon || c == ':'
	}

	switch {
	case marker == '?' && len(inter) == 1 && inter[0] == '$' && final == 'p': // DECRQM
		n := atoi(params)
		f.replyNumbers("\x1b[?", n, f.modeState(n), "$y")
	case len(inter) > 0:
		// DECSCUSR, DECSTR, DECRQM for ANSI modes, ...: ignored.
	case marker == '>' && final == 'c' && atoi(params) == 0: // DA2
		f.replyString(replyDA2)
	case marker == '>' && final == 'q': // XTVERSION
		f.replyString(replyXTVERSION)
	case marker == '?' && (final == 'h' || final == 'l'):
		eachParam(params, func(p []byte) { f.privateMode(atoi(p), final == 'h') })
	case marker == '?' && final == 'n' && string(params) == "6": // DECXCPR
		f.replyNumbers("\x1b[?", f.t.cur.y+1, f.t.cur.x+1, "R")
	case marker == '?' && (final == 'J' || final == 'K'): // selective erase, as plain erase
		f.csi(final, f.csiArgs(params, final))
	case marker != 0:
		// Kitty keyboard (CSI > u, CSI < u, CSI = u, and the query CSI ? u,
		// which gets no answer so the child falls back), modifyOtherKeys
		// (CSI > 4;1 m), XTSAVE (CSI ? s), ...: none of them draws.
	case colon && final != 'm':
		// Sub-parameters mean nothing outside SGR.
	case final == 'c' && atoi(params) == 0: // DA1
		f.replyString(replyDA1)
	case final == 'n' && string(params) == "5": // DSR
		f.replyString("\x1b[0n")
	case final == 'n' && string(params) == "6": // CPR
		f.replyNumbers("\x1b[", f.t.cur.y+1, f.t.cur.x+1, "R")
	case final == 't' && string(params) == "18": // text area size in characters
		f.replyNumbers("\x1b[8;", f.t.rows, f.t.cols, "t")
	case final == 'm':
		f.sgr(params)
	case final == 'b': // REP
		if f.last != 0 {
			for range min(max(atoi(params), 1), f.t.cols*f.t.rows) {
				f.print(f.last)
			}
		}
	case strings.IndexByte(vtCSIFinals, final) >= 0:
		f.csi(final, f.csiArgs(params, final))
	}
}

// replyNumbers answers prefix, a, ";", b and suffix, if queries are answered.
func (f *filter) replyNumbers(prefix string, a, b int, suffix string) {
	if !f.answer {
		return
	}
	f.reply = append(f.reply, prefix...)
	f.reply = strconv.AppendInt(f.reply, int64(a), 10)
	f.reply = append(f.reply, ';')
	f.reply = strconv.AppendInt(f.reply, int64(b), 10)
	f.reply = append(f.reply, suffix...)
}

// csiArgs reads the parameters of a CSI command into f.args: missing
// trailing parameters take their defaults, an empty or zero count means 1
// (CSI 0 X erases one character, CSI ;5H goes to column 5 of row 1), an
// empty selector or margin 0, counts stop at 9999, and tab counts (CHT,
// CBT) at the width.
func (f *filter) csiArgs(params []byte, final byte) []int {
	const empty = -1
	args := f.args[:0]
	if len(params) > 0 {
		eachParam(params, func(p []byte) {
			if len(p) == 0 {
				args = append(args, empty)
			} else {
				args = append(args, atoi(p))
			}
		})
	}
	for len(args) > 0 && args[len(args)-1] == empty {
		args = args[:len(args)-1]
	}
	f.args = args
	one := strings.IndexByte("JKghlrsu", final) < 0
	for i, n := range args {
		n = max(n, 0)
		switch {
		case final == 'I' || final == 'Z':
			n = min(max(n, 1), f.t.cols)
		case one:
			n = min(max(n, 1), 9999)
		default:
			n = min(n, 9999)
		}
		args[i] = n
	}
	return args
}

// csi carries out a CSI command without a private marker.
func (f *filter) csi(final byte, args []int) {
	t := f.t
	arg := func(i, def int) int {
		if i < len(args) {
			return args[i]
		}
		return def
	}
	x, y := t.cur.x, t.cur.y
	switch final {
	case '@': // ICH
		t.insertBlanks(arg(0, 1))
	case 'A': // CUU
		t.moveTo(x, y-arg(0, 1))
	case 'B', 'e': // CUD, VPR
		t.moveTo(x, y+arg(0, 1))
	case 'C', 'a': // CUF, HPR
		t.moveTo(x+arg(0, 1), y)
	case 'D': // CUB
		t.moveTo(x-arg(0, 1), y)
	case 'E': // CNL
		t.moveTo(0, y+arg(0, 1))
	case 'F': // CPL
		t.moveTo(0, y-arg(0, 1))
	case 'g': // TBC
		switch arg(0, 0) {
		case 0:
			t.tabs[x] = false
		case 3:
			clear(t.tabs)
		}
	case 'G', '`': // CHA, HPA
		t.moveTo(arg(0, 1)-1, y)
	case 'H', 'f': // CUP, HVP
		t.moveAbsTo(arg(1, 1)-1, arg(0, 1)-1)
	case 'I': // CHT
		for range arg(0, 1) {
			t.putTab(true)
		}
	case 'J': // ED
		switch arg(0, 0) {
		case 0: // below
			t.clear(x, y, t.cols-1, y)
			if y < t.rows-1 {
				t.clear(0, y+1, t.cols-1, t.rows-1)
			}
		case 1: // above, and the cursor's row up to it
			if y > 0 {
				t.clear(0, 0, t.cols-1, y-1)
			}
			t.clear(0, y, x, y)
		case 2: // all
			t.clear(0, 0, t.cols-1, t.rows-1)
		}
	case 'K': // EL
		switch arg(0, 0) {
		case 0:
			t.clear(x, y, t.cols-1, y)
		case 1:
			t.clear(0, y, x, y)
		case 2:
			t.clear(0, y, t.cols-1, y)
		}
	case 'S': // SU
		t.scrollUp(t.top, arg(0, 1))
	case 'T': // SD
		t.scrollDown(t.top, arg(0, 1))
	case 'L': // IL
		t.insertLines(arg(0, 1))
	case 'M': // DL
		t.deleteLines(arg(0, 1))
	case 'X': // ECH
		t.clear(x, y, x+arg(0, 1)-1, y)
	case 'P': // DCH
		t.deleteChars(arg(0, 1))
	case 'Z': // CBT
		for range arg(0, 1) {
			t.putTab(false)
		}
	case 'd': // VPA
		t.moveAbsTo(x, arg(0, 1)-1)
	case 'h', 'l': // SM, RM: only LNM changes what the screen shows
		for _, a := range args {
			if a == 20 {
				t.setMode(modeCRLF, final == 'h')
			}
		}
	case 'r': // DECSTBM: a bottom of 0 or past the screen is its last row
		bot := arg(1, 0)
		if bot == 0 || bot > t.rows {
			bot = t.rows
		}
		t.setScroll(max(arg(0, 1), 1)-1, bot-1)
	case 's': // SCOSC
		t.saveCursor()
	case 'u': // SCORC
		t.restoreCursor()
	}
	f.touch()
}

// privateMode sets or resets DEC private mode n.
func (f *filter) privateMode(n int, set bool) {
	switch n {
	case 2026: // synchronized output
		if set && !f.inSync {
			f.inSync, f.syncStart = true, time.Now()
			f.dirty = true
		} else if !set && f.inSync {
			f.inSync, f.syncEnded = false, true
			f.dirty = true
		}
		return
	case 47, 1047, 1049:
		// Switching to the screen already shown does nothing.
		if set == f.alt {
			return
		}
		f.alt = set
	}
	f.modes[n] = set
	f.t.privateMode(n, set)
	f.touch()
}

// modeState answers DECRQM for private mode n: 1 set, 2 reset, 0 unknown.
func (f *filter) modeState(n int) int {
	var set bool
	switch n {
	case 2026:
		set = f.inSync
	case 47, 1047, 1049:
		set = f.alt
	case 7:
		set = f.t.mode&modeWrap != 0
	case 25:
		set = f.t.mode&modeHide == 0
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

// dispatchEsc handles an escape sequence other than CSI and strings.
func (f *filter) dispatchEsc(seq []byte) {
	s, t := seq[1:], f.t
	if len(s) == 1 {
		switch s[0] {
		case 'c': // RIS
			f.reset()
			return
		case 'Z': // DECID
			f.replyString(replyDA1)
			return
		case 'D': // IND
			t.index()
		case 'E': // NEL
			t.newline(true)
		case 'H': // HTS
			t.tabs[t.cur.x] = true
		case 'M': // RI
			t.reverseIndex()
		case '7': // DECSC
			t.saveCursor()
		case '8': // DECRC
			t.restoreCursor()
		case '=', '>': // keypad modes
		default:
			return
		}
		f.touch()
		return
	}
	switch {
	case len(s) == 2 && s[0] == '(': // SCS G0: only line drawing and ASCII
		switch s[1] {
		case '0':
			t.cur.gfx = true
		case 'B':
			t.cur.gfx = false
		}
	case len(s) == 2 && s[0] == '#' && s[1] == '8': // DECALN
		t.alignment()
	default:
		// G1-G3 designations (ESC ) 0, ...) and the rest: ignored.
		return
	}
	f.touch()
}

// reset handles RIS: it leaves the alternate screen and clears everything.
func (f *filter) reset() {
	if f.alt {
		f.t.privateMode(1047, false)
	}
	f.t.reset()
	f.alt, f.inSync, f.title, f.last = false, false, "", 0
	clear(f.modes)
	f.touch()
}

// dispatchStr handles an OSC, DCS, APC, PM or SOS string; none reaches the
// grid, so colour overrides do not change what cells report.
func (f *filter) dispatchStr(st string) {
	if f.strTyp != ']' {
		return
	}
	num, arg, _ := bytes.Cut(f.str, []byte(";"))
	switch string(num) {
	case "0", "2":
		if f.title != string(arg) {
			f.title = string(arg)
		}
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

// atoi reads a decimal number, or returns 0 for anything else (including an
// empty string and a number too big for an int), as strconv.Atoi with its
// error mapped to 0 would.
func atoi[S ~string | ~[]byte](s S) int {
	if len(s) == 0 {
		return 0
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0
		}
		d := int(c - '0')
		if n > (math.MaxInt-d)/10 {
			return 0
		}
		n = n*10 + d
	}
	return n
}

// eachParam calls fn with each ';'-separated part of params, as
// strings.Split would give them: an empty params is one empty part.
func eachParam(params []byte, fn func(p []byte)) {
	for {
		i := bytes.IndexByte(params, ';')
		if i < 0 {
			fn(params)
			return
		}
		fn(params[:i])
		params = params[i+1:]
	}
}
