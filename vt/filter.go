package vt

import (
	"time"
	"unicode"
	"unicode/utf8"
)

// placeholder fills the right half of a wide character in the grid. It is the
// last private-use code point, which no terminal font uses; the same rune in
// the child's output is replaced.
const placeholder = '\U0010FFFD'

const (
	maxSeq = 128  // longer control sequences are dropped
	maxStr = 4096 // longer OSC strings are cut, though still consumed
)

type parseState uint8

const (
	ground parseState = iota
	escape            // after ESC, maybe with intermediates
	csiSeq            // after ESC [
	strSeq            // inside OSC, DCS, APC, PM or SOS
	strEsc            // ESC inside a string: ST or an abort
)

// filter tokenizes the child's output and drives the cell grid. It answers
// queries, keeps what a snapshot reports beside the cells (title, alternate
// screen, synchronized update) and drops what has no place on the screen.
// Its state survives across writes, so any split of the stream works.
type filter struct {
	t      *term
	answer bool // queries are answered (Options.Replies is set)

	state  parseState
	seq    []byte // the control sequence being read, from its ESC
	strTyp byte   // ']', 'P', '_', '^' or 'X'
	str    []byte
	carry  [utf8.UTFMax]byte // an incomplete UTF-8 character from the end of a write
	nCarry int
	last   rune       // last printed character, for REP
	args   []int      // scratch for CSI parameters
	sgrIn  []sgrParam // scratch for SGR parameters

	seqs Clusters // the emoji sequence being printed, if any (see print)
	// keycap: the last character put is a keycap's base (0-9, #, *), with
	// nothing after it but a VS16 (see print).
	keycap bool

	measure    Measure
	detect     func(above, row []Cell) (Measure, bool) // Options.Detect
	detectLeft int                                     // line feeds detect is still called at

	reply []byte // answers, written after unlocking
	dirty bool   // something changed since the last Seq

	alt       bool
	inSync    bool
	syncStart time.Time
	syncEnded bool // a synchronized update ended and nothing followed it
	title     string
	modes     map[int]bool // private modes set and reset, for DECRQM

	skipCarry []byte // a private mode sequence cut at the end of a Skip
}

// feed parses p.
func (f *filter) feed(p []byte) {
	if f.nCarry > 0 {
		p = f.completeCarry(p)
	}
	for i := 0; i < len(p); {
		b := p[i]
		switch f.state {
		case ground:
			switch {
			case b >= 0x20 && b < 0x7f:
				// A run of printable ASCII goes to the grid at once.
				j := i + 1
				for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
					j++
				}
				f.t.putASCII(p[i:j])
				f.last = rune(p[j-1])
				f.seqs = Clusters{}
				f.keycap = isKeycapBase(f.last)
				f.touch()
				i = j
				continue
			case b == 0x1b:
				f.startEscape()
			case b < 0x20 || b == 0x7f:
				f.control(b)
			default:
				if !utf8.FullRune(p[i:]) {
					f.nCarry = copy(f.carry[:], p[i:])
					return
				}
				r, n := utf8.DecodeRune(p[i:])
				f.print(r)
				i += n
				continue
			}
		case escape:
			if !f.escapeByte(b) {
				continue // b is reprocessed in ground
			}
		case csiSeq:
			if !f.csiByte(b) {
				continue
			}
		case strSeq:
			f.strByte(b)
		case strEsc:
			if b == '\\' {
				f.state = ground
				f.dispatchStr("\x1b\\")
			} else {
				// An ESC that is not ST aborts the string and starts a sequence.
				f.startEscape()
				continue
			}
		}
		i++
	}
}

// completeCarry decodes the characters that start in the bytes carried over
// from the last write (in ground state, all of them 0x80 or above), and
// returns the rest of p.
func (f *filter) completeCarry(p []byte) []byte {
	var buf [2 * utf8.UTFMax]byte
	nc := f.nCarry
	f.nCarry = 0
	copy(buf[:], f.carry[:nc])
	n := nc + copy(buf[nc:], p)
	joined := buf[:n]
	i := 0
	for i < nc {
		if !utf8.FullRune(joined[i:]) {
			// Still incomplete: p was short and is all carried.
			f.nCarry = copy(f.carry[:], joined[i:])
			return nil
		}
		r, size := utf8.DecodeRune(joined[i:])
		f.print(r)
		i += size
	}
	return p[i-nc:]
}

func (f *filter) startEscape() {
	f.seqs = Clusters{}
	f.keycap = false
	f.state = escape
	f.seq = append(f.seq[:0], 0x1b)
}

// control handles a C0 control character, in ground or inside a sequence.
func (f *filter) control(b byte) {
	f.seqs = Clusters{}
	f.keycap = false
	if b == '\n' && f.detectLeft > 0 {
		f.detectMeasure()
	}
	switch b {
	case '\b', '\t', '\n', '\v', '\f', '\r':
		f.t.control(b)
		f.touch()
	case 0x18, 0x1a: // CAN, SUB abort a sequence
		f.state = ground
	}
	// Other controls (BEL, SO, SI, ...) leave no trace.
}

// escapeByte handles b after ESC and reports whether it was consumed.
func (f *filter) escapeByte(b byte) bool {
	switch {
	case b == 0x1b:
		f.startEscape()
	case b < 0x20:
		f.control(b)
	case len(f.seq) == 1 && b == '[':
		f.state = csiSeq
		f.seq = append(f.seq, b)
	case len(f.seq) == 1 && (b == ']' || b == 'P' || b == '_' || b == '^' || b == 'X'):
		f.state = strSeq
		f.strTyp = b
		f.str = f.str[:0]
	case b < 0x30: // intermediate
		if len(f.seq) < maxSeq {
			f.seq = append(f.seq, b)
		}
	case b < 0x7f:
		f.state = ground
		f.dispatchEsc(append(f.seq, b))
	case b == 0x7f:
	default:
		f.state = ground
		return false
	}
	return true
}

// csiByte handles b inside a CSI sequence and reports whether it was consumed.
func (f *filter) csiByte(b byte) bool {
	switch {
	case b == 0x1b:
		f.startEscape()
	case b < 0x20:
		f.control(b)
	case b < 0x40: // parameter or intermediate
		if len(f.seq) <= maxSeq {
			f.seq = append(f.seq, b)
		}
	case b < 0x7f:
		f.state = ground
		if len(f.seq) <= maxSeq {
			f.dispatchCSI(append(f.seq, b))
		}
	case b == 0x7f:
	default:
		f.state = ground
		return false
	}
	return true
}

func (f *filter) strByte(b byte) {
	switch b {
	case 0x07:
		f.state = ground
		f.dispatchStr("\a")
	case 0x1b:
		f.state = strEsc
	case 0x18, 0x1a:
		f.state = ground
	default:
		if len(f.str) < maxStr {
			f.str = append(f.str, b)
		}
	}
}

// print puts a printable character, giving a wide one two cells.
func (f *filter) print(r rune) {
	switch {
	case r >= 0x80 && r < 0xa0: // C1 controls
		return
	case r == placeholder:
		r = utf8.RuneError
	}
	if f.measure.MarksJoin && IsSpacingMark(r) && unicode.In(f.last, unicode.L, unicode.M) {
		// Measured as part of its letter: what follows is drawn right after
		// the letter.
		f.last = r
		return
	}
	f.last = r
	if f.measure.EmojiSequences && r == keycapMark && f.keycap && f.t.cur.state&wrapNext == 0 && f.t.cur.x < f.t.cols {
		// A keycap measured as an emoji, two columns, where a terminal gives
		// the digit one and the mark none: the keycap gets the second column,
		// so that none is left stale when the program draws what follows
		// two columns on without moving the cursor there.
		f.keycap = false
		f.t.put(placeholder)
		f.touch()
		return
	}
	f.keycap = f.keycap && r == vs16
	w := RuneWidth(r)
	if f.measure.EmojiSequences && f.seqs.Joins(r, w) {
		// An emoji joined to the one before it (👨 ZWJ 💻) or its skin
		// tone: the sequence is as wide as its first emoji.
		return
	}
	switch w {
	case 0:
		// Dropped: a combining mark does not get a cell of its own.
		return
	case 2:
		f.wide(r)
		return
	}
	f.t.put(r)
	f.touch()
}

const (
	keycapMark = '\u20e3' // COMBINING ENCLOSING KEYCAP
	vs16       = '\ufe0f' // VARIATION SELECTOR-16, emoji presentation
)

// isKeycapBase reports whether r begins a keycap sequence (r, VS16, U+20E3).
func isKeycapBase(r rune) bool { return r >= '0' && r <= '9' || r == '#' || r == '*' }

// wide puts r and a placeholder, first wrapping if only one column is left.
func (f *filter) wide(r rune) {
	t := f.t
	if t.cols >= 2 && t.cur.x == t.cols-1 && t.cur.state&wrapNext == 0 {
		if t.mode&modeWrap != 0 {
			t.control('\r')
			t.control('\n')
		} else {
			t.control('\b')
		}
	}
	t.put(r)
	if t.cols >= 2 {
		t.put(placeholder)
	}
	f.touch()
}

// detectMeasure calls Options.Detect before a line feed leaves the cursor's
// row.
func (f *filter) detectMeasure() {
	f.detectLeft--
	y := f.t.cur.y
	var above []Cell
	if y > 0 {
		above = f.t.lines[y-1]
	}
	if m, ok := f.detect(above, f.t.lines[y]); ok {
		f.measure, f.detectLeft = m, 0
	}
}

// touch records a change to the screen.
func (f *filter) touch() {
	f.dirty = true
	f.syncEnded = false
}

func (f *filter) replyString(s string) {
	if f.answer {
		f.reply = append(f.reply, s...)
	}
}
