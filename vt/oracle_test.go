package vt

// The emulator this package used before it had its own: vt10x behind the
// tokenizer that worked around its defects. It is kept, in tests only, as the
// reference the new emulator is compared with (see FuzzOracle), but where
// vt10x differs from xterm (xtermDifferences), and to measure vt10x's cost
// (BenchmarkVT10xWrite).

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// oldEmulator is an [Emulator] backed by vt10x, fed through a [oldFilter]. All of
// it is guarded by mu; vt10x's own lock is taken only around reading its
// cells and cursor, never around vt10x's Write, which takes it itself.
type oldEmulator struct {
	mu      sync.Mutex
	replyMu sync.Mutex // keeps replies of successive Writes in order
	replies io.Writer
	quiet   time.Duration

	oldFilter

	seq        uint64
	changed    chan struct{} // closed and replaced on every Write and Resize
	lastOutput time.Time
}

// newOld returns an [Emulator] of the size in o, 80x24 if unset.
func newOld(o Options) *oldEmulator {
	if o.Cols <= 0 {
		o.Cols = defaultCols
	}
	if o.Rows <= 0 {
		o.Rows = defaultRows
	}
	if o.Quiet <= 0 {
		o.Quiet = defaultQuiet
	}
	return &oldEmulator{
		replies: o.Replies,
		quiet:   o.Quiet,
		changed: make(chan struct{}),
		oldFilter: oldFilter{
			// vt10x would answer DSR and OSC colour queries itself, but the
			// oldFilter keeps those from it, so its writer stays unused.
			vt:     vt10x.New(vt10x.WithSize(o.Cols, o.Rows), vt10x.WithWriter(io.Discard)),
			answer: o.Replies != nil,
			modes:  map[int]bool{},
		},
	}
}

// Write feeds the child's output through the oldFilter into vt10x, then writes
// any replies to Options.Replies after releasing the lock, so that a replies
// writer may take snapshots.
func (e *oldEmulator) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	e.mu.Lock()
	e.feed(p)
	e.flush()
	if e.dirty {
		e.dirty = false
		e.seq++
	}
	e.lastOutput = time.Now()
	e.notifyLocked()
	reply := e.reply
	e.reply = nil
	if len(reply) == 0 {
		e.mu.Unlock()
		return len(p), nil
	}
	e.replyMu.Lock()
	e.mu.Unlock()
	defer e.replyMu.Unlock()
	if _, err := e.replies.Write(reply); err != nil {
		return len(p), fmt.Errorf("write terminal reply: %w", err)
	}
	return len(p), nil
}

func (e *oldEmulator) notifyLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// Resize changes the size; vt10x keeps the content that still fits.
func (e *oldEmulator) Resize(cols, rows int) {
	if cols < 1 || rows < 1 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, r := e.vt.Size(); c == cols && r == rows {
		return
	}
	e.vt.Resize(cols, rows)
	e.seq++
	e.notifyLocked()
}

// Size reports the current size.
func (e *oldEmulator) Size() (cols, rows int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.vt.Size()
}

// Snapshot copies the screen.
func (e *oldEmulator) Snapshot() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.snapshotLocked()
}

func (e *oldEmulator) snapshotLocked() Snapshot {
	e.vt.Lock()
	defer e.vt.Unlock()
	cols, rows := e.vt.Size()
	s := Snapshot{
		Cols:          cols,
		Rows:          rows,
		Cells:         make([][]Cell, rows),
		CursorVisible: e.vt.CursorVisible(),
		AltScreen:     e.alt,
		Title:         e.title,
		Seq:           e.seq,
	}
	all := make([]Cell, cols*rows)
	for y := range rows {
		row := all[y*cols : (y+1)*cols : (y+1)*cols]
		for x := range row {
			g := e.vt.Cell(x, y)
			row[x] = Cell{Char: g.Char, FG: oldFromVT(g.FG), BG: oldFromVT(g.BG), Attr: oldAttrFromVT(g.Mode)}
		}
		pairHalves(row)
		s.Cells[y] = row
	}
	c := e.vt.Cursor()
	s.Cursor = Pos{X: c.X, Y: c.Y}
	return s
}

// vt10x attribute bits (unexported there).
const (
	oldVTReverse = 1 << iota
	oldVTUnderline
	oldVTBold
	oldVTGfx
	oldVTItalic
	oldVTBlink // carries Dim: see rewriteSGR
)

func oldAttrFromVT(m int16) Attr {
	var a Attr
	for _, f := range [...]struct {
		vt int16
		a  Attr
	}{{oldVTBold, Bold}, {oldVTBlink, Dim}, {oldVTItalic, Italic}, {oldVTUnderline, Underline}, {oldVTReverse, Reverse}} {
		if m&f.vt != 0 {
			a |= f.a
		}
	}
	return a
}

// oldFromVT maps a vt10x colour. vt10x stores a true colour as bare RGB, so one
// with red and green both zero cannot be told from a palette index and is
// reported as one.
func oldFromVT(c vt10x.Color) Color {
	switch {
	case c == vt10x.DefaultFG:
		return DefaultFG
	case c == vt10x.DefaultBG:
		return DefaultBG
	case c < 256:
		return Color(c)
	}
	return rgbFlag | Color(c)&0xFFFFFF
}

// oldFilter tokenizes the child's output ahead of vt10x. It passes on what vt10x
// handles well, rewrites or drops what it mishandles, and answers queries.
// Its state survives across writes, so any split of the stream works.
type oldFilter struct {
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
func (f *oldFilter) feed(p []byte) {
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

func (f *oldFilter) startEscape() {
	f.state = escape
	f.seq = append(f.seq[:0], 0x1b)
}

// control handles a C0 control character, in ground or inside a sequence.
func (f *oldFilter) control(b byte) {
	switch b {
	case '\n', '\v', '\f':
		f.lineFeed(f.mode()&vt10x.ModeCRLF != 0)
	case '\b', '\t', '\r':
		f.emit(b)
	case 0x18, 0x1a: // CAN, SUB abort a sequence
		f.state = ground
	}
	// vt10x prints other controls as glyphs in line-drawing mode: drop them.
}

// escapeByte handles b after ESC and reports whether it was consumed.
func (f *oldFilter) escapeByte(b byte) bool {
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
func (f *oldFilter) csiByte(b byte) bool {
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

func (f *oldFilter) strByte(b byte) {
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
func (f *oldFilter) print(r rune) {
	switch {
	case r >= 0x80 && r < 0xa0: // C1 controls: vt10x would print them
		return
	case r == placeholder:
		r = utf8.RuneError
	}
	f.last = r
	w := RuneWidth(r)
	if w == 0 {
		// Dropped: vt10x would give a combining mark a cell of its own.
		return
	}
	if wrap, wrapNext := f.wrapState(); wrap && wrapNext {
		f.lineFeed(true) // the wrap, as xterm scrolls for it (scrollColours)
	}
	switch w {
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
func (f *oldFilter) wide(r rune) {
	f.flush()
	f.vt.Lock()
	cur := f.vt.Cursor()
	cols, _ := f.vt.Size()
	wrap := f.vt.Mode()&vt10x.ModeWrap != 0
	f.vt.Unlock()
	const wrapNext = 1 << 1 // vt10x's cursorWrapNext
	if cols >= 2 && cur.X == cols-1 && cur.State&wrapNext == 0 {
		if wrap {
			f.out = append(f.out, "\r\x1bD"...) // as lineFeed(true)
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

// lineFeed moves vt10x down a row as xterm does (scrollColours): with IND,
// which scrolls in a row in the pen's colours where vt10x's own line feed
// used the default ones, and clearing the last column's wrap flag as vt10x's
// line feed did.
func (f *oldFilter) lineFeed(firstCol bool) {
	if firstCol {
		f.emitString("\r\x1bD")
		return
	}
	_, wrapNext := f.wrapState()
	f.emitString("\x1bD")
	if wrapNext {
		f.emitString("\x1b[C") // at the last column: only clears the flag
	}
}

// wrapState reports whether vt10x wraps at the right margin, and whether
// its cursor is past the last column's character (the next one wraps first
// if it does).
func (f *oldFilter) wrapState() (wrap, wrapNext bool) {
	f.flush()
	f.vt.Lock()
	defer f.vt.Unlock()
	const cursorWrapNext = 1 << 1 // vt10x's
	return f.vt.Mode()&vt10x.ModeWrap != 0, f.vt.Cursor().State&cursorWrapNext != 0
}

// mode returns vt10x's modes after everything before was fed.
func (f *oldFilter) mode() vt10x.ModeFlag {
	f.flush()
	f.vt.Lock()
	defer f.vt.Unlock()
	return f.vt.Mode()
}

func (f *oldFilter) emit(b byte) {
	f.out = append(f.out, b)
	f.touch()
}

func (f *oldFilter) emitString(s string) {
	f.out = append(f.out, s...)
	f.touch()
}

// touch records a change to the screen.
func (f *oldFilter) touch() {
	f.dirty = true
	f.syncEnded = false
}

// flush writes the collected input to vt10x. f.out holds whole characters
// only, so vt10x's loss of a trailing partial rune cannot happen.
func (f *oldFilter) flush() {
	if len(f.out) == 0 {
		return
	}
	f.vt.Write(f.out)
	f.out = f.out[:0]
}

func (f *oldFilter) replyString(s string) {
	if f.answer {
		f.reply = append(f.reply, s...)
	}
}

// dispatchCSI handles a complete CSI sequence, seq = ESC [ ... final.
func (f *oldFilter) dispatchCSI(seq []byte) {
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
		f.emitString("\x1b[" + oldVTParams(params, final, 0) + string(final))
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
	case final == 'r': // DECSTBM
		f.scrollRegion(params)
	case strings.IndexByte(vtCSIFinals, final) >= 0:
		cols, _ := f.vt.Size()
		f.emitString("\x1b[" + oldVTParams(params, final, cols) + string(final))
	}
}

// scrollRegion gives vt10x DECSTBM as xterm reads it (decstbm): a bottom of
// 0 or past the screen is the last row, and a region of less than two rows
// is ignored, where vt10x swapped the margins or made a region of one row,
// and always homed the cursor.
func (f *oldFilter) scrollRegion(params string) {
	_, rows := f.vt.Size()
	p := strings.Split(params, ";")
	top, bot := max(min(atoi(p[0]), 9999), 1), rows
	if len(p) > 1 && p[1] != "" {
		if b := min(atoi(p[1]), 9999); b != 0 && b <= rows {
			bot = b
		}
	}
	f.touch()
	if bot > top {
		f.emitString(fmt.Sprintf("\x1b[%d;%dr", top, bot))
	}
}

// oldVTParams rewrites the parameters of a CSI command for vt10x, which stops
// at an empty parameter (CSI ;5H would go home), takes 0 literally where
// terminals read 1 (CSI 0 X erases the character before the cursor), and
// loops once per count in CHT and CBT.
func oldVTParams(params string, final byte, cols int) string {
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

// rewriteSGR rewrites SGR parameters for vt10x, or returns "" to drop them.
//
//   - vt10x has no dim attribute but a blink one nobody uses, so dim (2) is
//     sent as blink (5), normal intensity (22) also clears it, and real blink
//     is dropped.
//   - vt10x stops at the first parameter that is not a number, and a
//     sequence left without parameters resets everything: empty parameters
//     become 0, colon forms (38:2::r:g:b, 4:3) become their semicolon forms,
//     and unknown colon forms and underline colours (58) are dropped.
func rewriteSGR(params string) string {
	if params == "" {
		return "0"
	}
	in := strings.Split(params, ";")
	out := make([]string, 0, len(in)+1)
	for i := 0; i < len(in); i++ {
		p := in[i]
		if strings.Contains(p, ":") {
			out = append(out, colonSGR(strings.Split(p, ":"))...)
			continue
		}
		switch p {
		case "":
			out = append(out, "0")
		case "38", "48", "58":
			n := colorArgs(in[i+1:])
			if n < 0 {
				return strings.Join(out, ";")
			}
			if p != "58" {
				for _, a := range in[i : i+1+n] {
					out = append(out, cmp.Or(a, "0"))
				}
			}
			i += n
		case "2":
			out = append(out, "5")
		case "22":
			out = append(out, "22", "25")
		case "5", "6", "25":
		default:
			out = append(out, p)
		}
	}
	return strings.Join(out, ";")
}

// colorArgs returns how many parameters follow 38, 48 or 58: 2 for 5;n, 4 for
// 2;r;g;b, or -1 if they are missing.
func colorArgs(rest []string) int {
	switch {
	case len(rest) >= 2 && rest[0] == "5":
		return 2
	case len(rest) >= 4 && rest[0] == "2":
		return 4
	}
	return -1
}

// colonSGR converts one colon-separated SGR parameter.
func colonSGR(sub []string) []string {
	switch {
	case sub[0] == "4" && len(sub) == 2 && sub[1] == "0":
		return []string{"24"}
	case sub[0] == "4":
		return []string{"4"}
	case sub[0] != "38" && sub[0] != "48":
	case len(sub) == 3 && sub[1] == "5":
		return []string{sub[0], "5", sub[2]}
	case (len(sub) == 5 || len(sub) == 6) && sub[1] == "2":
		// 38:2:r:g:b, or 38:2:colourspace:r:g:b as ITU T.416 has it.
		rgb := sub[len(sub)-3:]
		return []string{sub[0], "2", rgb[0], rgb[1], rgb[2]}
	}
	return nil
}

// TestRewriteSGR checks what the old tokenizer gave vt10x for SGR.
func TestRewriteSGR(t *testing.T) {
	for in, want := range map[string]string{
		"":               "0",
		"1;31":           "1;31",
		";2":             "0;5",
		"22":             "22;25",
		"5;1":            "1",
		"38;5;208;1":     "38;5;208;1",
		"38;2;1;;3":      "38;2;1;0;3",
		"38;2;1":         "",
		"58;5;3;4":       "4",
		"38:2::10:20:30": "38;2;10;20;30",
		"48:2:10:20:30":  "48;2;10;20;30",
		"38:5:9":         "38;5;9",
		"4:0;4:3":        "24;4",
		"9:1":            "",
	} {
		if got := rewriteSGR(in); got != want {
			t.Errorf("rewriteSGR(%q) = %q, want %q", in, got, want)
		}
	}
}

// privateMode sets or resets DEC private mode n.
func (f *oldFilter) privateMode(n int, set bool) {
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
func (f *oldFilter) modeState(n int) int {
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
func (f *oldFilter) cursor() (x, y int) {
	f.flush()
	f.vt.Lock()
	defer f.vt.Unlock()
	c := f.vt.Cursor()
	return c.X, c.Y
}

// dispatchEsc handles an escape sequence other than CSI and strings.
func (f *oldFilter) dispatchEsc(seq []byte) {
	s := string(seq[1:])
	switch {
	case s == "c": // RIS
		f.reset()
	case s == "Z": // DECID
		f.replyString(replyDA1)
	case s == "E": // NEL
		f.lineFeed(true)
	case len(s) == 1 && strings.Contains("DHM78=>", s),
		len(s) == 2 && s[0] == '(',
		s == "#8":
		f.emitString(string(seq))
	}
	// vt10x would print the charset of ESC ) 0 and the like.
}

// reset handles RIS. vt10x's reset clears only part of the screen and forgets
// the alternate screen without leaving it.
func (f *oldFilter) reset() {
	if f.alt {
		f.emitString("\x1b[?1047l")
	}
	f.emitString("\x1bc\x1b[2J")
	f.alt, f.inSync, f.title, f.last = false, false, "", 0
	clear(f.modes)
}

// dispatchStr handles an OSC, DCS, APC, PM or SOS string; none reaches
// vt10x, whose colour overrides would change what cells report.
func (f *oldFilter) dispatchStr(st string) {
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

// FuzzOracle checks that the emulator shows what vt10x behind the old
// tokenizer showed: the same screen, cursor, title and modes after every
// write, the same replies, and the same Seq. Input is written in chunks of
// chunk bytes, with a resize to newCols x newRows after resizeAt bytes.
func FuzzOracle(f *testing.F) {
	for _, tc := range screenTests {
		f.Add([]byte(strings.Join(tc.in, "")), uint8(tc.cols), uint8(tc.rows), uint8(3), uint16(0), uint8(0), uint8(0))
	}
	f.Add([]byte(benchStream(2)), uint8(80), uint8(24), uint8(64), uint16(500), uint8(40), uint8(10))
	f.Add([]byte("\x1b[3;5r\x1b[?6h\x1b[2;3Habc\x1b[2L\x1b[M\x1bM\x1bD\x1b[S\x1b[T\x1b[3@\x1b[2P\x1b#8\x1b(0lqk\x1b(B\x1b7\x1b[?6l\x1b8x"),
		uint8(10), uint8(6), uint8(5), uint16(30), uint8(7), uint8(3))
	f.Add([]byte("\x1b[1;31;7mred\x1b[2J\x1b[38;5;9;48;2;1;2;3mX\x1b[0K\x1b[1J\x1b[20hA\nB\x1b[20l\x1b[5I\x1b[2Z\x1b[3g\x1bH\x1b[0g\t"),
		uint8(12), uint8(4), uint8(1), uint16(0), uint8(0), uint8(0))
	// The two above without DECALN and ED 1, which differ from vt10x
	// (xtermDifferences).
	f.Add([]byte("\x1b[3;5r\x1b[?6h\x1b[2;3Habc\x1b[2L\x1b[M\x1bM\x1bD\x1b[S\x1b[T\x1b[3@\x1b[2P\x1b(0lqk\x1b(B\x1b7\x1b[?6l\x1b8x"),
		uint8(10), uint8(6), uint8(5), uint16(30), uint8(7), uint8(3))
	f.Add([]byte("\x1b[1;31;7mred\x1b[2J\x1b[38;5;9;48;2;1;2;3mX\x1b[0K\x1b[0J\x1b[20hA\nB\x1b[20l\x1b[5I\x1b[2Z\x1b[3g\x1bH\x1b[0g\t"),
		uint8(12), uint8(4), uint8(1), uint16(0), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, in []byte, cols, rows, chunk uint8, resizeAt uint16, newCols, newRows uint8) {
		cols, rows, chunk = max(cols%100, 1), max(rows%50, 1), max(chunk, 1)
		run := oracleRun{in: in, sizes: [][2]int{{int(cols), int(rows)}}, resizeAt: (int(resizeAt) + int(chunk) - 1) / int(chunk) * int(chunk)}
		if newCols > 0 && newRows > 0 {
			run.sizes = append(run.sizes, [2]int{int(newCols%100 + 1), int(newRows%50 + 1)})
		}
		if d := oracleSkip(run); d != nil {
			t.Skipf("a difference with vt10x: %s", d.name)
		}
		var gotReplies, wantReplies bytes.Buffer
		got := New(Options{Cols: int(cols), Rows: int(rows), Replies: &gotReplies})
		want := newOld(Options{Cols: int(cols), Rows: int(rows), Replies: &wantReplies})
		compare := func(after int) {
			t.Helper()
			g, w := normalized(got.Snapshot()), normalized(want.Snapshot())
			if !identical(g, w) {
				t.Fatalf("after %d bytes (%q):\n%s\nseq %d, cells %v\nvt10x:\n%s\nseq %d, cells %v",
					after, in[:after], g, g.Seq, g.Cells, w, w.Seq, w.Cells)
			}
			if gotReplies.String() != wantReplies.String() {
				t.Fatalf("after %d bytes: replies %q, vt10x %q", after, gotReplies.String(), wantReplies.String())
			}
		}
		resized := false
		for i := 0; i < len(in); i += int(chunk) {
			if !resized && i >= int(resizeAt) && newCols > 0 && newRows > 0 {
				got.Resize(int(newCols%100+1), int(newRows%50+1))
				want.Resize(int(newCols%100+1), int(newRows%50+1))
				resized = true
				compare(i)
			}
			end := min(i+int(chunk), len(in))
			got.Write(in[i:end])
			want.Write(in[i:end])
			compare(end)
		}
	})
}

// oracleRun is one comparison with vt10x: the input, and the sizes it is
// drawn at, the first and the one it is resized to, if any.
type oracleRun struct {
	in       []byte
	sizes    [][2]int // cols, rows
	resizeAt int      // how much of in comes before the resize
}

// xtermDifference is where the emulator does what xterm does and vt10x
// behind the old tokenizer did not. The comparison skips the inputs it may
// show on (skip), or compares cells as normalize leaves them.
type xtermDifference struct {
	name      string
	skip      func(r oracleRun) bool
	normalize func(c *Cell)
}

// xtermDifferences are all the differences with vt10x but two, which the
// old tokenizer makes good instead by what it gives vt10x: scrollColours (a
// line feed or a wrap at the bottom of the scroll region scrolls in a row in
// the pen's colours, as IND does, where vt10x used the default colours: see
// lineFeed) and decstbm (DECSTBM ignores a region of less than two rows, and
// a bottom of 0 or past the screen is the last row: see scrollRegion).
var xtermDifferences = []xtermDifference{{
	// vt10x spared the top row when the cursor was on the second.
	name: "ED 1 erases every row above the cursor",
	skip: func(r oracleRun) bool {
		return hasCSI(r.in, func(q csiInput) bool {
			return q.final == 'J' && (q.marker == 0 || q.marker == '?') && q.inter == "" && atoi(firstParam(q.params)) == 1
		})
	},
}, {
	// vt10x only filled the screen with E in the pen.
	name: "DECALN resets the margins, origin mode and the pen's attributes, homes the cursor, and fills in the default rendition",
	skip: func(r oracleRun) bool { return bytes.Contains(r.in, []byte("\x1b#8")) },
}, {
	// vt10x took it for bold off.
	name: "SGR 21 is double underline, shown as underline",
	skip: func(r oracleRun) bool { return hasSGR(r.in, func(g []string, k int) bool { return g[k] == "21" }) },
}, {
	// vt10x took it for blink off, which cleared dim (carried as blink).
	name: "SGR 26 does nothing",
	skip: func(r oracleRun) bool { return hasSGR(r.in, func(g []string, k int) bool { return g[k] == "26" }) },
}, {
	// The old tokenizer stopped at a parameter vt10x could not read, and
	// compared colour selectors as text.
	name: "SGR parameters in unusual forms are read as numbers: overlong, with leading zeros, empty colour sub-parameters, ':' forms among a colour's arguments",
	skip: func(r oracleRun) bool { return hasSGR(r.in, unusualSGR) },
}, {
	// vt10x stored a true colour as bare RGB, which it then read as a
	// palette index (and brightened with bold).
	name: "a true colour with red and green 0 stays a true colour",
	skip: func(r oracleRun) bool { return hasSGR(r.in, lowTrueColor) },
}, {
	// vt10x, after st, drew arrows, a block and a snowman for them.
	name: "in the DEC special graphics set, A to G print as themselves",
	skip: func(r oracleRun) bool {
		return bytes.Contains(r.in, []byte("\x1b(0")) && printedAny(r.in, func(b byte) bool { return b >= 'A' && b <= 'G' })
	},
}, {
	// vt10x gave them none.
	name: "columns a resize adds get the default tab stops",
	skip: func(r oracleRun) bool {
		if len(r.sizes) < 2 || (r.sizes[1][0]-1)/8 <= (r.sizes[0][0]-1)/8 {
			return false // no new column at a multiple of 8
		}
		return bytes.IndexByte(r.in[min(r.resizeAt, len(r.in)):], '\t') >= 0 ||
			hasCSI(r.in, func(q csiInput) bool { return q.end >= r.resizeAt && (q.final == 'I' || q.final == 'Z') })
	},
}, {
	// vt10x copied the pen's bold, underline, reverse, ... too.
	name: "erased and scrolled-in cells take the pen's colours but no attributes",
	normalize: func(c *Cell) {
		if c.Char == ' ' {
			c.Attr = 0
		}
	},
}, {
	// Not a difference with xterm but a vt10x bug never copied: vt10x cut
	// a CSI sequence the old tokenizer rewrote to 256 bytes or more short,
	// and printed the rest.
	name: "long CSI sequences",
	skip: func(r oracleRun) bool {
		return hasCSI(r.in, func(q csiInput) bool { return len(q.params)+len(q.inter) > 56 })
	},
}}

// oracleSkip returns the difference with vt10x that run may show, or nil.
func oracleSkip(r oracleRun) *xtermDifference {
	for i, d := range xtermDifferences {
		if d.skip != nil && d.skip(r) {
			return &xtermDifferences[i]
		}
	}
	return nil
}

// normalized is s with its cells as the differences' normalize leave them.
func normalized(s Snapshot) Snapshot {
	cells := make([][]Cell, len(s.Cells))
	for y, row := range s.Cells {
		cells[y] = slices.Clone(row)
		for x := range cells[y] {
			for _, d := range xtermDifferences {
				if d.normalize != nil {
					d.normalize(&cells[y][x])
				}
			}
		}
	}
	s.Cells = cells
	return s
}

// csiInput is a CSI sequence as it stands in the input.
type csiInput struct {
	marker        byte
	params, inter string
	final         byte
	end           int // the final byte's index
}

// hasCSI reports whether in holds a CSI sequence for which ok holds.
func hasCSI(in []byte, ok func(csiInput) bool) bool {
	for i := 0; i+1 < len(in); i++ {
		if in[i] != 0x1b || in[i+1] != '[' {
			continue
		}
		j := i + 2
		for j < len(in) && (in[j] < 0x40 || in[j] > 0x7e) {
			j++
		}
		if j == len(in) {
			return false
		}
		body := string(in[i+2 : j])
		var q csiInput
		if len(body) > 0 && body[0] >= '<' && body[0] <= '?' {
			q.marker, body = body[0], body[1:]
		}
		end := len(body)
		for end > 0 && body[end-1] < 0x30 {
			end--
		}
		q.params, q.inter, q.final, q.end = body[:end], body[end:], in[j], j
		if ok(q) {
			return true
		}
	}
	return false
}

// hasSGR reports whether in holds an SGR sequence with a parameter k of its
// parameters g (split at ';') for which ok holds.
func hasSGR(in []byte, ok func(g []string, k int) bool) bool {
	return hasCSI(in, func(q csiInput) bool {
		if q.final != 'm' || q.marker != 0 || q.inter != "" {
			return false
		}
		g := strings.Split(q.params, ";")
		for k := range g {
			if ok(g, k) {
				return true
			}
		}
		return false
	})
}

func firstParam(params string) string {
	p, _, _ := strings.Cut(params, ";")
	return p
}

// unusualSGR reports an SGR parameter the old tokenizer read otherwise than
// the emulator: 19 digits or more, a leading zero, a colour written with ':'
// with an empty component, or one with ':' among the arguments of 38, 48 or
// 58 written with ';'.
func unusualSGR(g []string, k int) bool {
	sub := strings.Split(g[k], ":")
	for _, p := range sub {
		if len(p) >= 19 || len(p) > 1 && p[0] == '0' {
			return true
		}
	}
	if n := len(sub); n > 1 && (sub[0] == "38" || sub[0] == "48") {
		if n == 3 && sub[1] == "5" && sub[2] == "" ||
			(n == 5 || n == 6) && sub[1] == "2" && slices.Contains(sub[n-3:], "") {
			return true
		}
	}
	if strings.Contains(g[k], ":") {
		for j := max(k-4, 0); j < k; j++ {
			if g[j] == "38" || g[j] == "48" || g[j] == "58" {
				return true
			}
		}
	}
	return false
}

// lowTrueColor reports a true colour (38 or 48, with ';' or ':') whose red
// and green are 0.
func lowTrueColor(g []string, k int) bool {
	if (g[k] == "38" || g[k] == "48") && k+4 < len(g) && g[k+1] == "2" {
		return atoi(g[k+2]) == 0 && atoi(g[k+3]) == 0
	}
	sub := strings.Split(g[k], ":")
	if n := len(sub); (n == 5 || n == 6) && (sub[0] == "38" || sub[0] == "48") && sub[1] == "2" {
		return atoi(sub[n-3]) == 0 && atoi(sub[n-2]) == 0
	}
	return false
}

// printedAny reports whether a byte of in outside escape sequences, as
// near as it can tell, satisfies ok.
func printedAny(in []byte, ok func(byte) bool) bool {
	for i := 0; i < len(in); i++ {
		if in[i] != 0x1b {
			if ok(in[i]) {
				return true
			}
			continue
		}
		if i++; i >= len(in) {
			break
		}
		switch in[i] {
		case '[':
			for i++; i < len(in) && (in[i] < 0x40 || in[i] > 0x7e); i++ {
			}
		case ']', 'P', '_', '^', 'X':
			for i++; i < len(in) && in[i] != 0x07 && in[i] != 0x1b; i++ {
			}
			if i < len(in) && in[i] == 0x1b {
				i++ // the backslash of ST
			}
		default:
			for i < len(in) && in[i] >= 0x20 && in[i] < 0x30 {
				i++
			}
		}
	}
	return false
}

// TestOracleRandom compares the emulator with vt10x behind the old tokenizer
// on random streams built from the sequences Claude Code and other TUIs use,
// with random parameters.
func TestOracleRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	num := func() string {
		switch rng.IntN(6) {
		case 0:
			return ""
		case 1:
			return "0"
		case 2:
			return strconv.Itoa(rng.IntN(300))
		}
		return strconv.Itoa(rng.IntN(12))
	}
	params := func() string {
		n := rng.IntN(4)
		p := make([]string, n)
		for i := range p {
			p[i] = num()
		}
		return strings.Join(p, ";")
	}
	texts := []string{"a", "hello world", "数据库", "🚀", "e\u0301", "\u2705\ufe0f", "─│╭╮", "\xe6\x95", "\xb0", "\xff", "\u009b", "x"}
	token := func() string {
		switch rng.IntN(14) {
		case 0, 1, 2:
			return texts[rng.IntN(len(texts))]
		case 3:
			return string("\b\t\n\v\f\r\x07\x0e\x18"[rng.IntN(9)])
		case 4, 5, 6:
			return "\x1b[" + params() + string("@ABCDEFGHIJKLMPSTXZ`abdefghlrsumntc"[rng.IntN(34)])
		case 7:
			sgr := []string{"0", "1", "2", "3", "4", "5", "7", "22", "27", "39", "49", "31", "42", "91", "101",
				"38;5;" + num(), "48;5;" + num(), "38;2;" + num() + ";" + num() + ";" + num(), "48;2;1;2;3", "38:2::1:2:3", "4:3", "58;5;1", "38"}
			n := rng.IntN(4)
			p := make([]string, n)
			for i := range p {
				p[i] = sgr[rng.IntN(len(sgr))]
			}
			return "\x1b[" + strings.Join(p, ";") + "m"
		case 8:
			modes := []string{"1", "6", "7", "25", "47", "1047", "1048", "1049", "2004", "2026", "1000"}
			return "\x1b[?" + modes[rng.IntN(len(modes))] + string("hl"[rng.IntN(2)])
		case 9:
			return "\x1b" + []string{"D", "E", "H", "M", "7", "8", "=", ">", "(0", "(B", ")0", "#8", "c", "Z"}[rng.IntN(14)]
		case 10:
			return []string{"\x1b]0;title\x07", "\x1b]2;t\x1b\\", "\x1b]11;?\x07", "\x1bP+q\x1b\\", "\x1b[>1u", "\x1b[<u", "\x1b[?1$p", "\x1b[6n", "\x1b[?6n"}[rng.IntN(9)]
		case 11:
			return "\x1b[" + params() + "b" // REP
		case 12:
			return "\x1b[?" + params() + string("JK"[rng.IntN(2)])
		}
		return "\x1b[" + num() + ";" + num() + "H"
	}
	n := 5000
	if testing.Short() {
		n = 500
	}
	compared, skipped := 0, map[string]int{}
	for i := range n {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(token())
		}
		in := []byte(b.String())
		cols, rows := 1+rng.IntN(30), 1+rng.IntN(10)
		chunk := 1 + rng.IntN(16)
		resizeAt := rng.IntN(len(in) + 1)
		resizeAt0 := resizeAt
		newCols, newRows := 1+rng.IntN(30), 1+rng.IntN(10)
		run := oracleRun{in: in, sizes: [][2]int{{cols, rows}, {newCols, newRows}}, resizeAt: (resizeAt + chunk - 1) / chunk * chunk}
		if d := oracleSkip(run); d != nil {
			skipped[d.name]++
			continue
		}
		compared++
		var gotR, wantR bytes.Buffer
		got := New(Options{Cols: cols, Rows: rows, Replies: &gotR})
		want := newOld(Options{Cols: cols, Rows: rows, Replies: &wantR})
		for j := 0; j < len(in); j += chunk {
			if j >= resizeAt && resizeAt >= 0 {
				got.Resize(newCols, newRows)
				want.Resize(newCols, newRows)
				resizeAt = -1
			}
			end := min(j+chunk, len(in))
			got.Write(in[j:end])
			want.Write(in[j:end])
			g, w := normalized(got.Snapshot()), normalized(want.Snapshot())
			if !identical(g, w) || gotR.String() != wantR.String() {
				t.Fatalf("stream %d, %dx%d, resized to %dx%d at %d, by %d, after %d bytes of %q:\n%s\nseq %d cells %v\nreplies %q\nvt10x:\n%s\nseq %d cells %v\nreplies %q",
					i, cols, rows, newCols, newRows, resizeAt0, chunk, end, in, g, g.Seq, g.Cells, gotR.String(), w, w.Seq, w.Cells, wantR.String())
			}
		}
	}
	t.Logf("%d of %d streams compared; skipped for differences with vt10x: %v", compared, n, skipped)
	if compared < n*2/3 {
		t.Errorf("only %d of %d streams compared: the differences skip too much", compared, n)
	}
}

// BenchmarkVT10xWrite measures vt10x alone on the benchmark stream: it
// allocates for every character it reads (a debug-log argument boxed
// whether or not logging is on), which is why this package has its own grid.
func BenchmarkVT10xWrite(b *testing.B) {
	stream := []byte(benchStream(100))
	vt := vt10x.New(vt10x.WithSize(80, 24))
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		for c := range chunksOf(stream, 4096) {
			vt.Write(c)
		}
	}
}

// BenchmarkOldWrite measures the emulator this package had before: the
// tokenizer in front of vt10x.
func BenchmarkOldWrite(b *testing.B) {
	stream := []byte(benchStream(100))
	e := newOld(Options{Cols: 80, Rows: 24})
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		for c := range chunksOf(stream, 4096) {
			e.Write(c)
		}
	}
}

// BenchmarkOldSnapshot is BenchmarkSnapshotChanged for the old emulator.
func BenchmarkOldSnapshot(b *testing.B) {
	e := newOld(Options{Cols: 80, Rows: 24})
	e.Write([]byte(benchStream(3)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Write(spinner(i))
		e.Snapshot()
	}
}

// identical reports whether two snapshots agree in every field.
func identical(a, b Snapshot) bool {
	if a.Cols != b.Cols || a.Rows != b.Rows || a.Cursor != b.Cursor || a.CursorVisible != b.CursorVisible ||
		a.AltScreen != b.AltScreen || a.Title != b.Title || a.Seq != b.Seq || len(a.Cells) != len(b.Cells) {
		return false
	}
	for y := range a.Cells {
		if !slices.Equal(a.Cells[y], b.Cells[y]) {
			return false
		}
	}
	return true
}
