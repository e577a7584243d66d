package vt

// term is the cell grid behind the tokenizer in filter.go: cursor movement,
// erasing, scrolling, insertion and deletion, the pen, the alternate screen
// and tab stops, as xterm has them. Cells are stored as the [Cell]s a
// snapshot reports, written without allocating, and each row of the visible
// screen carries a dirty flag, so that a snapshot copies only rows that
// changed.
type term struct {
	cols, rows int
	lines      [][]Cell // the visible screen
	altLines   [][]Cell // the other screen
	dirty      []bool   // rows of lines changed since the last snapshot
	tabs       []bool
	cur, saved cursor
	top, bot   int // scrolling region, inclusive
	mode       termMode

	inkPen  pen  // the pen inkCell was made for
	inkCell Cell // inkPen.ink(), cached
}

type termMode uint8

const (
	modeWrap termMode = 1 << iota
	modeCRLF
	modeAlt
	modeHide
)

// pen is what new characters are drawn with: SGR's attributes and colours,
// and the G0 character set.
type pen struct {
	attr   Attr
	fg, bg Color
	gfx    bool // G0 is DEC special graphics
}

// defaultPen is the pen after SGR 0 in G0 ASCII.
var defaultPen = pen{fg: DefaultFG, bg: DefaultBG}

type cursor struct {
	pen
	x, y  int
	state uint8
}

// Cursor state bits.
const (
	wrapNext = 1 << iota // the last column was written: the next print wraps first
	originMode
)

func newTerm(cols, rows int) *term {
	t := &term{}
	t.cur.pen = defaultPen
	t.inkCell = t.cur.ink()
	t.inkPen = t.cur.pen
	t.resize(cols, rows)
	t.reset()
	return t
}

// blank is what erasing and scrolling leave: a space in the pen's colours as
// they are, neither brightened nor reversed, without attributes (xterm's
// ClearCells).
func (p pen) blank() Cell {
	return Cell{Char: ' ', FG: p.fg, BG: p.bg}
}

// ink is what printing leaves, but for the character: bold brightens palette
// colours 0-7, and reverse swaps the unbrightened colours.
func (p pen) ink() Cell {
	fg, bg := p.fg, p.bg
	if p.attr&Bold != 0 && fg < 8 {
		fg += 8
	}
	if p.attr&Reverse != 0 {
		fg, bg = p.bg, p.fg
	}
	return Cell{FG: fg, BG: bg, Attr: p.attr}
}

// gfxChars is the DEC special graphics set, '_' to '~'; other characters
// print as themselves, as in xterm.
var gfxChars = [32]rune{
	' ',                                    // _
	'◆', '▒', '␉', '␌', '␍', '␊', '°', '±', // ` - g
	'␤', '␋', '┘', '┐', '┌', '└', '┼', '⎺', // h - o
	'⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', // p - w
	'│', '≤', '≥', 'π', '≠', '£', '·', // x - ~
}

// put prints one character of width one at the cursor.
func (t *term) put(c rune) {
	if t.mode&modeWrap != 0 && t.cur.state&wrapNext != 0 {
		t.newline(true)
	}
	t.setChar(c, t.cur.x, t.cur.y)
	t.advance()
}

// putASCII prints a run of printable ASCII characters.
func (t *term) putASCII(p []byte) {
	if t.cur.gfx {
		for _, b := range p {
			t.put(rune(b))
		}
		return
	}
	ink := t.cur.ink()
	for len(p) > 0 {
		if t.mode&modeWrap != 0 && t.cur.state&wrapNext != 0 {
			t.newline(true)
		}
		// Fill the row up to its last column in one go.
		x, y := t.cur.x, t.cur.y
		n := min(len(p), t.cols-x)
		row := t.lines[y][x : x+n]
		for i, b := range p[:n] {
			ink.Char = rune(b)
			row[i] = ink
		}
		t.dirty[y] = true
		p = p[n:]
		t.cur.x = x + n - 1
		t.advance()
	}
}

// advance moves the cursor past a character just written at it.
func (t *term) advance() {
	if t.cur.x+1 < t.cols {
		t.moveTo(t.cur.x+1, t.cur.y)
	} else {
		t.cur.state |= wrapNext
	}
}

func (t *term) setChar(c rune, x, y int) {
	if t.cur.gfx && c >= '_' && c <= '~' {
		c = gfxChars[c-'_']
	}
	if t.inkPen != t.cur.pen {
		t.inkPen, t.inkCell = t.cur.pen, t.cur.ink()
	}
	cell := t.inkCell
	cell.Char = c
	t.lines[y][x] = cell
	t.dirty[y] = true
}

// control handles BS, HT, LF, VT, FF and CR.
func (t *term) control(b byte) {
	switch b {
	case '\t':
		t.putTab(true)
	case '\b':
		t.moveTo(t.cur.x-1, t.cur.y)
	case '\r':
		t.moveTo(0, t.cur.y)
	case '\n', '\v', '\f':
		t.newline(t.mode&modeCRLF != 0)
	}
}

func (t *term) putTab(forward bool) {
	x := t.cur.x
	if forward {
		if x == t.cols {
			return
		}
		for x++; x < t.cols && !t.tabs[x]; x++ {
		}
	} else {
		if x == 0 {
			return
		}
		for x--; x > 0 && !t.tabs[x]; x-- {
		}
	}
	t.moveTo(x, t.cur.y)
}

// newline moves down a row, scrolling at the bottom of the region as IND
// does.
func (t *term) newline(firstCol bool) {
	y := t.cur.y
	if y == t.bot {
		t.scrollUp(t.top, 1)
	} else {
		y++
	}
	if firstCol {
		t.moveTo(0, y)
	} else {
		t.moveTo(t.cur.x, y)
	}
}

func (t *term) moveAbsTo(x, y int) {
	if t.cur.state&originMode != 0 {
		y += t.top
	}
	t.moveTo(x, y)
}

func (t *term) moveTo(x, y int) {
	miny, maxy := 0, t.rows-1
	if t.cur.state&originMode != 0 {
		miny, maxy = t.top, t.bot
	}
	t.cur.state &^= wrapNext
	t.cur.x = clamp(x, 0, t.cols-1)
	t.cur.y = clamp(y, miny, maxy)
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

// clear erases the rectangle between two corners given in any order.
func (t *term) clear(x0, y0, x1, y1 int) {
	if x0 > x1 {
		x0, x1 = x1, x0
	}
	if y0 > y1 {
		y0, y1 = y1, y0
	}
	x0, x1 = clamp(x0, 0, t.cols-1), clamp(x1, 0, t.cols-1)
	y0, y1 = clamp(y0, 0, t.rows-1), clamp(y1, 0, t.rows-1)
	b := t.cur.blank()
	for y := y0; y <= y1; y++ {
		row := t.lines[y][x0 : x1+1]
		for x := range row {
			row[x] = b
		}
		t.dirty[y] = true
	}
}

func (t *term) scrollUp(orig, n int) {
	n = clamp(n, 0, t.bot-orig+1)
	t.clear(0, orig, t.cols-1, orig+n-1)
	for i := orig; i <= t.bot-n; i++ {
		t.lines[i], t.lines[i+n] = t.lines[i+n], t.lines[i]
		t.dirty[i], t.dirty[i+n] = true, true
	}
}

func (t *term) scrollDown(orig, n int) {
	n = clamp(n, 0, t.bot-orig+1)
	t.clear(0, t.bot-n+1, t.cols-1, t.bot)
	for i := t.bot; i >= orig+n; i-- {
		t.lines[i], t.lines[i-n] = t.lines[i-n], t.lines[i]
		t.dirty[i], t.dirty[i-n] = true, true
	}
}

// index is IND: down a row, scrolling at the bottom of the region.
func (t *term) index() {
	if t.cur.y == t.bot {
		t.scrollUp(t.top, 1)
	} else {
		t.moveTo(t.cur.x, t.cur.y+1)
	}
}

// reverseIndex is RI.
func (t *term) reverseIndex() {
	if t.cur.y == t.top {
		t.scrollDown(t.top, 1)
	} else {
		t.moveTo(t.cur.x, t.cur.y-1)
	}
}

func (t *term) insertBlanks(n int) {
	src, dst, y := t.cur.x, t.cur.x+n, t.cur.y
	if dst >= t.cols {
		t.clear(t.cur.x, y, t.cols-1, y)
		return
	}
	row := t.lines[y]
	copy(row[dst:], row[src:t.cols-n])
	t.clear(src, y, dst-1, y)
}

func (t *term) deleteChars(n int) {
	src, y := t.cur.x+n, t.cur.y
	if src >= t.cols {
		t.clear(t.cur.x, y, t.cols-1, y)
		return
	}
	row := t.lines[y]
	copy(row[t.cur.x:], row[src:])
	t.clear(t.cols-n, y, t.cols-1, y)
}

func (t *term) insertLines(n int) {
	if t.cur.y >= t.top && t.cur.y <= t.bot {
		t.scrollDown(t.cur.y, n)
	}
}

func (t *term) deleteLines(n int) {
	if t.cur.y >= t.top && t.cur.y <= t.bot {
		t.scrollUp(t.cur.y, n)
	}
}

// setScroll sets the scrolling region, rows top to bot (0-based,
// inclusive), and homes the cursor, when it holds two rows or more; as in
// xterm, a smaller one is ignored.
func (t *term) setScroll(top, bot int) {
	if top < 0 || bot >= t.rows || bot <= top {
		return
	}
	t.top, t.bot = top, bot
	t.moveAbsTo(0, 0)
}

func (t *term) saveCursor() { t.saved = t.cur }

func (t *term) restoreCursor() {
	t.cur = t.saved
	t.moveTo(t.cur.x, t.cur.y)
}

func (t *term) swapScreen() {
	t.lines, t.altLines = t.altLines, t.lines
	t.mode ^= modeAlt
	t.dirtyAll()
}

func (t *term) dirtyAll() {
	for y := range t.dirty {
		t.dirty[y] = true
	}
}

func (t *term) setMode(m termMode, set bool) {
	if set {
		t.mode |= m
	} else {
		t.mode &^= m
	}
}

// privateMode sets or resets a DEC private mode that changes the screen.
func (t *term) privateMode(n int, set bool) {
	switch n {
	case 6: // DECOM
		if set {
			t.cur.state |= originMode
		} else {
			t.cur.state &^= originMode
		}
		t.moveAbsTo(0, 0)
	case 7: // DECAWM
		t.setMode(modeWrap, set)
	case 25: // DECTCEM
		t.setMode(modeHide, !set)
	case 47, 1047, 1049:
		alt := t.mode&modeAlt != 0
		if alt {
			t.clear(0, 0, t.cols-1, t.rows-1)
		}
		if !set || !alt {
			t.swapScreen()
		}
		if n == 1049 {
			t.privateMode(1048, set)
		}
	case 1048:
		if set {
			t.saveCursor()
		} else {
			t.restoreCursor()
		}
	}
}

// reset is RIS for the grid: the pen, the saved cursor, tab stops every 8
// columns, the margins and the modes as at start, and the screen erased.
func (t *term) reset() {
	t.cur = cursor{pen: defaultPen}
	t.saveCursor()
	for i := range t.tabs {
		t.tabs[i] = i > 0 && i%8 == 0
	}
	t.top, t.bot = 0, t.rows-1
	t.mode = modeWrap
	t.clear(0, 0, t.cols-1, t.rows-1)
}

// alignment is DECALN as xterm has it: margins reset, origin mode off, the
// pen's attributes reset (its colours kept), the cursor home, and the screen
// filled with E in the default rendition.
func (t *term) alignment() {
	t.top, t.bot = 0, t.rows-1
	t.cur.state &^= originMode
	t.cur.attr = 0
	t.moveTo(0, 0)
	e := Cell{Char: 'E', FG: DefaultFG, BG: DefaultBG}
	for y := range t.rows {
		for x := range t.cols {
			t.lines[y][x] = e
		}
		t.dirty[y] = true
	}
}

// resize keeps the content that still fits, moving it up when the cursor row
// would fall off the bottom, and blanks the rest of both screens. New
// columns get the default tab stops, every 8, as xterm's (set for every
// column at start) do.
func (t *term) resize(cols, rows int) {
	if cols < 1 || rows < 1 || cols == t.cols && rows == t.rows {
		return
	}
	if slide := t.cur.y - rows + 1; slide > 0 {
		copy(t.lines, t.lines[slide:slide+rows])
		copy(t.altLines, t.altLines[slide:slide+rows])
	}
	newLines := func(old [][]Cell) [][]Cell {
		all := make([]Cell, cols*rows)
		ls := make([][]Cell, rows)
		for y := range ls {
			ls[y] = all[y*cols : (y+1)*cols : (y+1)*cols]
			if y < len(old) {
				copy(ls[y], old[y])
			}
		}
		return ls
	}
	minCols, minRows := min(cols, t.cols), min(rows, t.rows)
	t.lines, t.altLines = newLines(t.lines), newLines(t.altLines)
	t.dirty = make([]bool, rows)
	tabs := make([]bool, cols)
	copy(tabs, t.tabs)
	for x := len(t.tabs); x < cols; x++ {
		tabs[x] = x > 0 && x%8 == 0
	}
	t.tabs = tabs
	t.cols, t.rows = cols, rows
	t.top, t.bot = 0, rows-1
	t.moveTo(t.cur.x, t.cur.y)
	for range 2 {
		if minCols < cols && minRows > 0 {
			t.clear(minCols, 0, cols-1, minRows-1)
		}
		if minRows < rows {
			t.clear(0, minRows, cols-1, rows-1)
		}
		t.swapScreen()
	}
}
