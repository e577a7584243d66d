package screen

import (
	"strconv"
	"strings"
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
	last   rune  // last printed character, for REP
	args   []int // scratch for CSI parameters
	sgrIn  []int // scratch for SGR parameters

	seqs clusters // the emoji sequence being printed, if any (see print)
	// keycap: the last character put is a keycap's base (0-9, #, *), with
	// nothing after it but a VS16 (see print).
	keycap bool

	// marksJoin: the child is Claude Code 2.1.321 or older, as its install
	// says (Options.Version) or its banner (see banner), which measures a
	// spacing mark (a Devanagari vowel sign) as part of the letter before it.
	marksJoin bool
	version   string // what marksJoin was decided by, "2.1.321"; "" if nothing
	lookedFor int    // line feeds seen while looking for the banner

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
				f.seqs = clusters{}
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
	f.seqs = clusters{}
	f.keycap = false
	f.state = escape
	f.seq = append(f.seq[:0], 0x1b)
}

// control handles a C0 control character, in ground or inside a sequence.
func (f *filter) control(b byte) {
	f.seqs = clusters{}
	f.keycap = false
	if b == '\n' && f.lookedFor < bannerLines {
		f.banner()
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
	if f.marksJoin && isSpacingMark(r) && unicode.In(f.last, unicode.L, unicode.M) {
		// Claude Code 2.1.321 and older measure a grapheme as its first
		// character, and draw what follows right after its letter.
		f.last = r
		return
	}
	f.last = r
	if r == keycapMark && f.keycap && f.t.cur.state&wrapNext == 0 && f.t.cur.x < f.t.cols {
		// Claude Code measures a keycap (1⃣, 1️⃣) as an emoji, two
		// columns, where a terminal gives the digit one and the mark none;
		// it draws what follows two columns on, at times without moving
		// the cursor there (2.1.266 to 2.1.321: " 1⃣ First"), which would
		// leave a stale column. The keycap gets the second column.
		f.keycap = false
		f.t.put(placeholder)
		f.touch()
		return
	}
	f.keycap = f.keycap && r == vs16
	w := runeWidth(r)
	if f.seqs.joins(r, w) {
		// An emoji joined to the one before it (👨 ZWJ 💻) or its skin
		// tone: Claude Code measures the whole sequence as its first emoji,
		// two columns, and draws what follows there, so it gets no cells.
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

// bannerLines bounds the line feeds the banner is looked for in: Claude
// Code draws it first (after the trust dialog, if that shows).
const bannerLines = 256

// banner looks for Claude Code's banner ("Claude Code v2.1.321" beside or
// above its logo, " ▐▛███▜▌") on the cursor's row and the one above it,
// before a line feed leaves the row, and notes whether that version
// measures a spacing mark as part of its letter. 2.1.330 gives it a
// column, as terminals do; 2.1.197 to 2.1.321 do not (random forms run 39:
// "हिन्दी में" drawn as "हिन्दी" three columns wide, "में" over its end).
// The logo must be there, so that text someone typed is not taken for
// it. A child that shows no such banner (narrow terminals get a "Welcome
// back!" box with the version in its border, away from the logo, on
// 2.1.227 and older) is taken as Options.Version says, the newest if
// nothing does. It reads the rows in place: nothing is allocated but the
// version's text, once found.
func (f *filter) banner() {
	f.lookedFor++
	t := f.t
	y := t.cur.y
	if y >= len(t.lines) {
		return
	}
	for vy := max(y-1, 0); vy <= y; vy++ {
		n, ok := versionIn(t.lines[vy])
		if ok && (hasLogo(t.lines[vy]) || vy < y && hasLogo(t.lines[y])) {
			f.lookedFor = bannerLines
			f.marksJoin = marksJoin(n)
			f.version = formatVersion(n) // once a session
			return
		}
	}
}

// marksJoin reports whether Claude Code version n measures a spacing mark
// as part of its letter (2.1.321 and older; see banner).
func marksJoin(n [3]int) bool { return before(n, [3]int{2, 1, 322}) }

// before reports whether version n is older than v.
func before(n, v [3]int) bool {
	return n[0] < v[0] || n[0] == v[0] && (n[1] < v[1] || n[1] == v[1] && n[2] < v[2])
}

func formatVersion(n [3]int) string {
	return strconv.Itoa(n[0]) + "." + strconv.Itoa(n[1]) + "." + strconv.Itoa(n[2])
}

// parseVersion reads "2.1.321" (what follows it, " (Claude Code)", is
// ignored).
func parseVersion(s string) (n [3]int, ok bool) {
	s, _, _ = strings.Cut(s, " ")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return n, false
	}
	for i, p := range parts {
		if p == "" || len(p) > 6 || strings.Trim(p, "0123456789") != "" {
			return n, false
		}
		n[i], _ = strconv.Atoi(p)
	}
	return n, true
}

func hasLogo(row []Cell) bool {
	for _, c := range row {
		if c.Char == '▛' || c.Char == '▜' {
			return true
		}
	}
	return false
}

// versionIn reads the version after "Claude Code v" on row.
func versionIn(row []Cell) (n [3]int, ok bool) {
	const mark = "Claude Code v"
	for x := range row {
		if row[x].Char != 'C' || !rowHas(row[x:], mark) {
			continue
		}
		k, digits := 0, 0
	version:
		for _, c := range row[x+len(mark):] {
			switch {
			case c.Char >= '0' && c.Char <= '9' && n[k] < 1e5: // six digits at most, as parseVersion reads
				n[k] = n[k]*10 + int(c.Char-'0')
				digits++
			case c.Char == '.' && k < 2 && digits > 0:
				k, digits = k+1, 0
			default:
				break version
			}
		}
		return n, k == 2 && digits > 0
	}
	return n, false
}

// rowHas reports whether row starts with the ASCII text s.
func rowHas(row []Cell, s string) bool {
	if len(row) < len(s) {
		return false
	}
	for i := range len(s) {
		if row[i].Char != rune(s[i]) {
			return false
		}
	}
	return true
}

// isSpacingMark reports whether r extends the grapheme before it and is
// drawn one column wide by terminals: a spacing combining mark (Mc: the
// Devanagari vowel sign ि), or Thai's and Lao's sara am.
func isSpacingMark(r rune) bool {
	return r >= 0x0900 && (unicode.Is(unicode.Mc, r) || r == 0x0E33 || r == 0x0EB3)
}
