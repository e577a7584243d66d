package screen

import (
	"time"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// placeholder fills the right half of a wide character in vt10x, which gives
// every rune one cell. It is the last private-use code point, which no
// terminal font uses; the same rune in the child's output is replaced.
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

// filter tokenizes the child's output ahead of vt10x. It passes on what vt10x
// handles well, rewrites or drops what it mishandles, and answers queries.
// Its state survives across writes, so any split of the stream works.
type filter struct {
	vt     vt10x.Terminal
	answer bool // queries are answered (Options.Replies is set)

	state  parseState
	seq    []byte // the control sequence being read, from its ESC
	strTyp byte   // ']', 'P', '_', '^' or 'X'
	str    []byte
	carry  []byte // an incomplete UTF-8 character from the end of a write
	last   rune   // last printed character, for REP

	out   []byte // bytes for vt10x, written by flush
	reply []byte // answers, written after unlocking
	dirty bool   // something changed since the last Seq

	alt       bool
	inSync    bool
	syncStart time.Time
	syncEnded bool // a synchronized update ended and nothing followed it
	title     string
	modes     map[int]bool // private modes set and reset, for DECRQM
}

// feed parses p, collecting vt10x's input in f.out.
func (f *filter) feed(p []byte) {
	if len(f.carry) > 0 {
		p = append(f.carry, p...)
		f.carry = nil
	}
	for i := 0; i < len(p); {
		b := p[i]
		switch f.state {
		case ground:
			switch {
			case b == 0x1b:
				f.startEscape()
			case b < 0x20 || b == 0x7f:
				f.control(b)
			case b < utf8.RuneSelf:
				f.print(rune(b))
			default:
				if !utf8.FullRune(p[i:]) {
					f.carry = append([]byte(nil), p[i:]...)
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

func (f *filter) startEscape() {
	f.state = escape
	f.seq = append(f.seq[:0], 0x1b)
}

// control handles a C0 control character, in ground or inside a sequence.
func (f *filter) control(b byte) {
	switch b {
	case '\b', '\t', '\n', '\v', '\f', '\r':
		f.emit(b)
	case 0x18, 0x1a: // CAN, SUB abort a sequence
		f.state = ground
	}
	// vt10x prints other controls as glyphs in line-drawing mode: drop them.
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
	case r >= 0x80 && r < 0xa0: // C1 controls: vt10x would print them
		return
	case r == placeholder:
		r = utf8.RuneError
	}
	f.last = r
	switch runeWidth(r) {
	case 0:
		// Dropped: vt10x would give a combining mark a cell of its own.
		return
	case 2:
		f.wide(r)
		return
	}
	if r < utf8.RuneSelf {
		f.emit(byte(r))
		return
	}
	f.out = utf8.AppendRune(f.out, r)
	f.touch()
}

// wide puts r and a placeholder, first wrapping if only one column is left.
func (f *filter) wide(r rune) {
	f.flush()
	f.vt.Lock()
	cur := f.vt.Cursor()
	cols, _ := f.vt.Size()
	wrap := f.vt.Mode()&vt10x.ModeWrap != 0
	f.vt.Unlock()
	const wrapNext = 1 << 1 // vt10x's cursorWrapNext
	if cols >= 2 && cur.X == cols-1 && cur.State&wrapNext == 0 {
		if wrap {
			f.out = append(f.out, "\r\n"...)
		} else {
			f.out = append(f.out, '\b')
		}
	}
	f.out = utf8.AppendRune(f.out, r)
	if cols >= 2 {
		f.out = utf8.AppendRune(f.out, placeholder)
	}
	f.touch()
}

func (f *filter) emit(b byte) {
	f.out = append(f.out, b)
	f.touch()
}

func (f *filter) emitString(s string) {
	f.out = append(f.out, s...)
	f.touch()
}

// touch records a change to the screen.
func (f *filter) touch() {
	f.dirty = true
	f.syncEnded = false
}

// flush writes the collected input to vt10x. f.out holds whole characters
// only, so vt10x's loss of a trailing partial rune cannot happen.
func (f *filter) flush() {
	if len(f.out) == 0 {
		return
	}
	f.vt.Write(f.out)
	f.out = f.out[:0]
}

func (f *filter) replyString(s string) {
	if f.answer {
		f.reply = append(f.reply, s...)
	}
}
