package vt

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

type screenTest struct {
	name       string
	cols, rows int
	in         []string // chunks as the child might write them
	want       []string // rows from the top; rows below must be blank
	cursor     Pos
	replies    string  // wanted answers on Options.Replies
	measure    Measure // Options.Measure
	check      func(t *testing.T, s Snapshot)
}

var screenTests = []screenTest{
	{
		name: "plain text",
		cols: 20, rows: 4,
		in:     []string{"hello\r\n", "world"},
		want:   []string{"hello", "world"},
		cursor: Pos{5, 1},
	},
	{
		name: "wrap at right margin",
		cols: 10, rows: 3,
		in:     []string{"0123456789ab"},
		want:   []string{"0123456789", "ab"},
		cursor: Pos{2, 1},
	},
	{
		name: "scroll",
		cols: 10, rows: 2,
		in:     []string{"one\r\ntwo\r\nthree"},
		want:   []string{"two", "three"},
		cursor: Pos{5, 1},
	},
	{
		// 数据库 takes columns 0-5, the space 6, 分离 7-10, the space 11, 🚀
		// 12-13, the space 14, so x is at column 15.
		name: "CJK and emoji line up",
		cols: 30, rows: 3,
		in:     []string{"数据库 分离 🚀 x"},
		want:   []string{"数据库 分离 🚀 x"},
		cursor: Pos{16, 0},
		check: func(t *testing.T, s Snapshot) {
			wantCells(t, s, 0, map[int]rune{0: '数', 1: 0, 6: ' ', 7: '分', 12: '🚀', 13: 0, 14: ' ', 15: 'x'})
		},
	},
	{
		name: "UTF-8 split across writes",
		cols: 10, rows: 2,
		in:     []string{"a\xe6\x95", "\xb0b\xf0\x9f", "\x9a\x80c"}, // a数b🚀c
		want:   []string{"a数b🚀c"},
		cursor: Pos{7, 0},
	},
	{
		name: "wide character that does not fit wraps",
		cols: 5, rows: 3,
		in:     []string{"abcd数"},
		want:   []string{"abcd", "数"},
		cursor: Pos{2, 1},
	},
	{
		name: "wide character fills the last two columns",
		cols: 5, rows: 3,
		in:     []string{"abc数", "x"},
		want:   []string{"abc数", "x"},
		cursor: Pos{1, 1},
	},
	{
		name: "overwritten right half blanks the left",
		cols: 10, rows: 2,
		in: []string{
			"数据",
			"\x1b[1;2H", // CUP row 1, column 2: the right half of 数
			"x",
		},
		want:   []string{" x据"},
		cursor: Pos{2, 0},
	},
	{
		name: "combining marks and variation selectors take no cell",
		cols: 10, rows: 2,
		in:     []string{"e\u0301x\u2705\ufe0fy"}, // é (decomposed), x, ✅ with VS16, y
		want:   []string{"ex✅y"},
		cursor: Pos{5, 0},
	},
	{
		// A program that measures an emoji sequence as its first emoji
		// draws what follows it two columns on.
		name: "an emoji joined by ZWJ, and a skin tone, join the emoji before them",
		cols: 20, rows: 2,
		in:      []string{"👨\u200d💻x", "👨\u200d👩\u200d👧", "👍\U0001F3FDy"},
		want:    []string{"👨x👨👍y"},
		cursor:  Pos{8, 0},
		measure: Measure{EmojiSequences: true},
	},
	{
		name: "a ZWJ joins nothing across text, a control or a sequence",
		cols: 20, rows: 2,
		in:      []string{"a\u200d💻", "👨\u200d\x1b[m💻", "👨\u200d\a💻", "x\U0001F3FD"},
		want:    []string{"a💻👨💻👨💻x\U0001F3FD"},
		cursor:  Pos{14, 0},
		measure: Measure{EmojiSequences: true},
	},
	{
		// xterm gives each emoji of a sequence its own two columns.
		name: "emoji sequences as xterm measures them",
		cols: 20, rows: 2,
		in:     []string{"👨\u200d💻x", "👍\U0001F3FDy", "1\u20e3z"},
		want:   []string{"👨💻x👍\U0001F3FDy1z"},
		cursor: Pos{12, 0},
	},
	{
		name: "invalid UTF-8, C1 controls and the placeholder rune",
		cols: 10, rows: 2,
		in:     []string{"a\xffb\u009bc\U0010FFFDd"},
		want:   []string{"a\ufffdbc\ufffdd"},
		cursor: Pos{6, 0},
	},
	{
		name: "colours",
		cols: 30, rows: 2,
		in: []string{
			"\x1b[48;5;4m",           // SGR background palette 4, like the active tab
			" tab ",                  //
			"\x1b[0m",                // SGR reset
			" \x1b[38;2;215;119;87m", // SGR true-colour foreground
			"o",                      //
			"\x1b[38:2::1:2:3m",      // SGR colon form of a true colour
			"c",                      //
			"\x1b[0;7m",              // SGR reverse
			"r",                      //
			"\x1b[;2m",               // SGR reset (empty parameter) and dim
			"d",                      //
			"\x1b[22;1;4:3m",         // SGR normal intensity, bold, curly underline
			"b",                      //
		},
		want:   []string{" tab  ocrdb"},
		cursor: Pos{11, 0},
		check: func(t *testing.T, s Snapshot) {
			row := s.Cells[0]
			for x, want := range map[int]Cell{
				1:  {'t', DefaultFG, 4, 0},
				5:  {' ', DefaultFG, DefaultBG, 0},
				6:  {'o', RGB(215, 119, 87), DefaultBG, 0},
				7:  {'c', RGB(1, 2, 3), DefaultBG, 0},
				8:  {'r', DefaultBG, DefaultFG, Reverse},
				9:  {'d', DefaultFG, DefaultBG, Dim},
				10: {'b', DefaultFG, DefaultBG, Bold | Underline},
			} {
				if row[x] != want {
					t.Errorf("cell %d = %+v, want %+v", x, row[x], want)
				}
			}
		},
	},
	{
		name: "kitty keyboard sequences are dropped",
		cols: 20, rows: 2,
		in: []string{
			"a",
			"\x1b[>1u",    // kitty: push flags 1
			"b",           //
			"\x1b[?u",     // kitty: query flags (unanswered)
			"\x1b[<u",     // kitty: pop flags
			"c",           //
			"\x1b[=1;1u",  // kitty: set flags
			"\x1b[<2u",    // kitty: pop 2
			"\x1b[>4;1m",  // modifyOtherKeys, not SGR
			"d\x1b[>4;0m", // modifyOtherKeys off
		},
		want:   []string{"abcd"},
		cursor: Pos{4, 0},
	},
	{
		name: "synchronized output",
		cols: 20, rows: 3,
		in: []string{
			"\x1b[?2026h",   // begin synchronized update
			"\x1b[H\x1b[2J", // CUP home, ED clear
			"frame 1",
			"\x1b[?2026l", // end synchronized update
		},
		want:   []string{"frame 1"},
		cursor: Pos{7, 0},
	},
	{
		name: "alternate screen enter and leave",
		cols: 20, rows: 3,
		in: []string{
			"main",
			"\x1b[?1049h", // enter alternate screen, save cursor
			"\x1b[?1049h", // redundant enter: must not clear
			"\x1b[2;1Halt",
			"\x1b[?1049l", // leave alternate screen, restore cursor
			"\x1b[?1049l", // redundant leave: vt10x would swap to the alternate screen
			"!",
		},
		want:   []string{"main!"},
		cursor: Pos{5, 0},
		check: func(t *testing.T, s Snapshot) {
			if s.AltScreen {
				t.Error("AltScreen = true after leaving")
			}
		},
	},
	{
		name: "alternate screen stays while drawing",
		cols: 20, rows: 3,
		in: []string{
			"main\r\n",
			"\x1b[?1049h", // enter alternate screen
			"alt",
			"\x1b[?47h", // redundant enter with the old mode
		},
		want:   []string{"", "alt"},
		cursor: Pos{3, 1},
		check: func(t *testing.T, s Snapshot) {
			if !s.AltScreen {
				t.Error("AltScreen = false on the alternate screen")
			}
		},
	},
	{
		name: "alternate screen 47 and 1047",
		cols: 20, rows: 3,
		in: []string{
			"main",
			"\x1b[?47h",   // enter alternate screen (old)
			"x\x1b[?47l",  // leave
			"\x1b[?1047h", // enter alternate screen (newer)
			"y\x1b[?1047l",
			"\x1b[?1047l", // redundant leave
		},
		want:   []string{"main"},
		cursor: Pos{6, 0},
	},
	{
		name: "terminal queries answered",
		cols: 20, rows: 3,
		in: []string{
			"\x1b[c",          // DA1
			"\x1b[0c",         // DA1 with explicit 0
			"\x1b[>c",         // DA2
			"\x1b[>q",         // XTVERSION
			"\x1b[5n",         // DSR
			"\x1b[?2026$p",    // DECRQM synchronized output
			"\x1b[?2004h",     // bracketed paste on
			"\x1b[?2004$p",    // DECRQM bracketed paste
			"\x1b[?9999$p",    // DECRQM unknown mode
			"\x1b]10;?\x07",   // OSC 10 foreground query, BEL
			"\x1b]11;?\x1b\\", // OSC 11 background query, ST
			"\x1b[18t",        // XTWINOPS text area size
			"\x1bZ",           // DECID
			"ok",
		},
		want:   []string{"ok"},
		cursor: Pos{2, 0},
		replies: "\x1b[?62;22c" + "\x1b[?62;22c" + "\x1b[>0;276;0c" + "\x1bP>|claudewrap\x1b\\" +
			"\x1b[0n" + "\x1b[?2026;2$y" + "\x1b[?2004;1$y" + "\x1b[?9999;0$y" +
			"\x1b]10;rgb:ffff/ffff/ffff\x07" + "\x1b]11;rgb:0000/0000/0000\x1b\\" +
			"\x1b[8;3;20t" + "\x1b[?62;22c",
	},
	{
		name: "cursor position report after wide characters",
		cols: 20, rows: 3,
		in: []string{
			"\r\n数据x",
			"\x1b[6n",  // CPR
			"\x1b[?6n", // DECXCPR
		},
		want:    []string{"", "数据x"},
		cursor:  Pos{5, 1},
		replies: "\x1b[2;6R\x1b[?2;6R",
	},
	{
		name: "OSC title, hyperlink and notifications leave no text",
		cols: 30, rows: 2,
		in: []string{
			"\x1b]0;✳ Claude Code\x07",               // OSC 0 title, BEL
			"\x1b]8;;https://example.com/\x1b\\link", // OSC 8 hyperlink start, ST
			"\x1b]8;;\x1b\\ ",                        // OSC 8 hyperlink end
			"\x1b]9;Claude is waiting\x07",           // OSC 9 notification
			"\x1b]777;notify;Claude;done\x1b\\",      // OSC 777 notification
			"\x1bP+q544e\x1b\\",                      // DCS XTGETTCAP
			"\x1b_Gi=1;AAAA\x1b\\",                   // APC kitty graphics
			"after",
		},
		want:   []string{"link after"},
		cursor: Pos{10, 0},
		check: func(t *testing.T, s Snapshot) {
			if s.Title != "✳ Claude Code" {
				t.Errorf("Title = %q", s.Title)
			}
		},
	},
	{
		name: "private modes do not corrupt the screen",
		cols: 20, rows: 3,
		in: []string{
			"ab",
			"\x1b[?2004h",      // bracketed paste on
			"\x1b[?1004h",      // focus events on
			"\x1b[?1000h",      // mouse button reports
			"\x1b[?1002h",      // mouse motion on press
			"\x1b[?1003h",      // all mouse motion
			"\x1b[?1006h",      // SGR mouse
			"\x1b[?2031h",      // colour scheme updates
			"\x1b[?1;7;12;25l", // several at once: DECCKM, DECAWM, blink, cursor hidden
			"\x1b[?7h",         // autowrap back on
			"cd",
			"\x1b[?2004l\x1b[?1004l\x1b[?1000;1002;1003;1006l\x1b[?2031l",
			"\x1b[?1049l",    // leave alternate screen while not in it
			"\x1b[?s\x1b[?r", // XTSAVE, XTRESTORE
			"\x1b[2 q",       // DECSCUSR steady block
			"\x1b[5 @",       // SL: vt10x would insert blanks
			"\x1b[!p",        // DECSTR
			"e",
		},
		want:   []string{"abcde"},
		cursor: Pos{5, 0},
		check: func(t *testing.T, s Snapshot) {
			if s.CursorVisible {
				t.Error("CursorVisible = true after DECTCEM reset")
			}
		},
	},
	{
		name: "charset designations print nothing",
		cols: 20, rows: 2,
		in: []string{
			"\x1b)0",  // SCS G1 line drawing: vt10x would print the 0
			"\x1b(0q", // SCS G0 line drawing, then a horizontal line
			"\x1b(B",  // SCS G0 ASCII
			"q",
		},
		want:   []string{"─q"},
		cursor: Pos{2, 0},
	},
	{
		name: "empty parameters and repeat",
		cols: 20, rows: 3,
		in: []string{
			"\x1b[;5H", // CUP row default, column 5
			"a",
			"\x1b[3b",  // REP 3
			"\x1b[2;H", // CUP row 2, column default
			"数\x1b[b",  // REP once, of a wide character
		},
		want:   []string{"    aaaa", "数数"},
		cursor: Pos{4, 1},
	},
	{
		name: "counts of zero, default and huge",
		cols: 20, rows: 3,
		in: []string{
			"abcdef",
			"\x1b[1;3H",      // CUP row 1, column 3
			"\x1b[0X",        // ECH 0, which means 1: erases c
			"\x1b[L",         // IL, default 1
			"\x1b[99999999I", // CHT far beyond the margin: vt10x would loop for long
			"z",
		},
		want:   []string{"                   z", "ab def"},
		cursor: Pos{19, 0},
	},
	{
		name: "reset leaves the alternate screen and clears all",
		cols: 20, rows: 3,
		in: []string{
			"main main main main\r\nmore",
			"\x1b[?1049h", // enter alternate screen
			"alt",
			"\x1b]2;title\x07", // OSC 2 title
			"\x1bc",            // RIS
			"ok",
		},
		want:   []string{"ok"},
		cursor: Pos{2, 0},
		check: func(t *testing.T, s Snapshot) {
			if s.AltScreen || s.Title != "" {
				t.Errorf("AltScreen, Title = %t, %q after reset", s.AltScreen, s.Title)
			}
		},
	},
	{
		name: "sequences split anywhere",
		cols: 20, rows: 3,
		in: []string{
			"\x1b", "[", "2", ";", "3", "H", // CUP row 2, column 3, one byte a write
			"x\x1b]0;t", "itle\x1b", "\\y", // OSC 0 title cut inside and before ST
		},
		want:   []string{"", "  xy"},
		cursor: Pos{4, 1},
	},

	// Where the emulator follows xterm and vt10x did not (see
	// xtermDifferences in oracle_test.go).
	{
		name: "ED 1 from the second row erases the first",
		cols: 10, rows: 3,
		in: []string{
			"aaa\r\nbbb\r\nccc",
			"\x1b[2;2H", // CUP row 2, column 2
			"\x1b[1J",   // ED 1: from the top to the cursor
		},
		want:   []string{"", "  b", "ccc"},
		cursor: Pos{1, 1},
	},
	{
		name: "DECSTBM ignores a region of less than two rows",
		cols: 10, rows: 3,
		in: []string{
			"top\r\nmid\r\nbot",
			"\x1b[2;2r", // DECSTBM rows 2 to 2: ignored, the cursor stays
			"\x1b[3;1r", // DECSTBM rows 3 to 1: ignored
			"\n",        // LF at the bottom scrolls the whole screen
			"x",
		},
		want:   []string{"mid", "bot", "   x"},
		cursor: Pos{4, 2},
	},
	{
		name: "DECSTBM with a bottom of 0 takes the last row",
		cols: 10, rows: 4,
		in: []string{
			"a\r\nb\r\nc\r\nd",
			"\x1b[2;0r", // DECSTBM rows 2 to the last, cursor home
			"\x1b[4;1H", // CUP row 4
			"\n",        // LF at the bottom scrolls rows 2 to 4
		},
		want:   []string{"a", "c", "d"},
		cursor: Pos{0, 3},
	},
	{
		name: "DECALN resets margins, origin mode and attributes",
		cols: 4, rows: 3,
		in: []string{
			"\x1b[1;4;31m", // SGR bold, underline, red
			"\x1b[2;3r",    // DECSTBM rows 2 to 3
			"\x1b[?6h",     // DECOM: origin mode
			"\x1b[2;2H",    // CUP row 2, column 2 of the region
			"\x1b#8",       // DECALN: E everywhere, cursor home
			"x",
		},
		want:   []string{"xEEE", "EEEE", "EEEE"},
		cursor: Pos{1, 0},
		check: func(t *testing.T, s Snapshot) {
			for x, want := range map[int]Cell{0: {'x', 1, DefaultBG, 0}, 1: {'E', DefaultFG, DefaultBG, 0}} {
				if got := s.Cells[0][x]; got != want {
					t.Errorf("cell %d = %+v, want %+v", x, got, want)
				}
			}
		},
	},
	{
		name: "SGR 21 underlines and SGR 26 does nothing",
		cols: 10, rows: 2,
		in: []string{
			"\x1b[2m", // SGR dim
			"a",
			"\x1b[26m", // SGR 26: nothing (vt10x cleared dim)
			"b",
			"\x1b[1;21m", // SGR bold, double underline (vt10x: bold off)
			"c",
		},
		want:   []string{"abc"},
		cursor: Pos{3, 0},
		check: func(t *testing.T, s Snapshot) {
			for x, want := range []Attr{Dim, Dim, Dim | Bold | Underline} {
				if got := s.Cells[0][x].Attr; got != want {
					t.Errorf("cell %d attributes %b, want %b", x, got, want)
				}
			}
		},
	},
	{
		name: "SGR parameters in unusual forms",
		cols: 10, rows: 2,
		in: []string{
			"\x1b[99999999999999999999;1m", // SGR an overlong parameter (ignored), bold
			"a",
			"\x1b[0;38:5:m", // SGR reset, palette colour with an empty index: 0
			"b",
			"\x1b[0;38;5;04m", // SGR reset, palette colour 4 with a leading zero
			"c",
		},
		want:   []string{"abc"},
		cursor: Pos{3, 0},
		check: func(t *testing.T, s Snapshot) {
			for x, want := range []Cell{{'a', DefaultFG, DefaultBG, Bold}, {'b', 0, DefaultBG, 0}, {'c', 4, DefaultBG, 0}} {
				if got := s.Cells[0][x]; got != want {
					t.Errorf("cell %d = %+v, want %+v", x, got, want)
				}
			}
		},
	},
	{
		name: "a true colour with red and green 0",
		cols: 10, rows: 2,
		in: []string{
			"\x1b[38;2;0;0;5m", // SGR true-colour foreground rgb(0, 0, 5)
			"a",
			"\x1b[1m", // SGR bold: brightens palette colours only
			"b",
		},
		want:   []string{"ab"},
		cursor: Pos{2, 0},
		check: func(t *testing.T, s Snapshot) {
			for x, want := range []Cell{{'a', RGB(0, 0, 5), DefaultBG, 0}, {'b', RGB(0, 0, 5), DefaultBG, Bold}} {
				if got := s.Cells[0][x]; got != want {
					t.Errorf("cell %d = %+v, want %+v", x, got, want)
				}
			}
		},
	},
	{
		name: "DEC special graphics leave letters alone",
		cols: 10, rows: 2,
		in: []string{
			"\x1b(0", // SCS G0 DEC special graphics
			"ABCDEFGqx",
			"\x1b(B", // SCS G0 ASCII
		},
		want:   []string{"ABCDEFG─│"},
		cursor: Pos{9, 0},
	},
	{
		name: "erasing leaves the pen's colours without its attributes",
		cols: 6, rows: 2,
		in: []string{
			"\x1b[1;4;7;41m", // SGR bold, underline, reverse, red background
			"ab",
			"\x1b[K", // EL to the end of the row
		},
		want:   []string{"ab"},
		cursor: Pos{2, 0},
		check: func(t *testing.T, s Snapshot) {
			for x, want := range map[int]Cell{1: {'b', 1, DefaultFG, Bold | Underline | Reverse}, 2: {' ', DefaultFG, 1, 0}, 5: {' ', DefaultFG, 1, 0}} {
				if got := s.Cells[0][x]; got != want {
					t.Errorf("cell %d = %+v, want %+v", x, got, want)
				}
			}
		},
	},
	{
		name: "a line feed scrolls in a row in the pen's colours",
		cols: 4, rows: 2,
		in: []string{
			"\x1b[44m", // SGR blue background
			"x\r\n",
			"y\r\n", // LF at the bottom scrolls
		},
		want:   []string{"y"},
		cursor: Pos{0, 1},
		check: func(t *testing.T, s Snapshot) {
			if got := s.Cells[1][0]; got != (Cell{' ', DefaultFG, 4, 0}) {
				t.Errorf("scrolled-in cell = %+v, want a blank on blue", got)
			}
		},
	},
	{
		name: "a wrap scrolls in a row in the pen's colours",
		cols: 3, rows: 1,
		in: []string{
			"\x1b[45m", // SGR magenta background
			"abcd",     // d wraps and scrolls
		},
		want:   []string{"d"},
		cursor: Pos{1, 0},
		check: func(t *testing.T, s Snapshot) {
			if got := s.Cells[0][1]; got != (Cell{' ', DefaultFG, 5, 0}) {
				t.Errorf("scrolled-in cell = %+v, want a blank on magenta", got)
			}
		},
	},
}

// chunkSizes are the write sizes every screen test is replayed at; 0 means
// the chunks as listed, -1 all input at once.
var chunkSizes = []int{0, 1, 2, 3, 5, 7, 64, -1}

func TestScreen(t *testing.T) {
	for _, tc := range screenTests {
		for _, size := range chunkSizes {
			t.Run(fmt.Sprintf("%s/%s", tc.name, sizeName(size)), func(t *testing.T) {
				var replies bytes.Buffer
				e := New(Options{Cols: tc.cols, Rows: tc.rows, Replies: &replies, Measure: tc.measure})
				for _, c := range chunks(tc.in, size) {
					if n, err := e.Write([]byte(c)); n != len(c) || err != nil {
						t.Fatalf("Write(%q) = %d, %v", c, n, err)
					}
				}
				s := e.Snapshot()
				if got, want := s.Text(), strings.Join(tc.want, "\n"); got != want {
					t.Errorf("screen:\n%s\nwant:\n%s", got, want)
				}
				if s.Cursor != tc.cursor {
					t.Errorf("cursor = %v, want %v", s.Cursor, tc.cursor)
				}
				if got := replies.String(); got != tc.replies {
					t.Errorf("replies = %q, want %q", got, tc.replies)
				}
				if s.Cols != tc.cols || s.Rows != tc.rows || len(s.Cells) != tc.rows {
					t.Errorf("size = %dx%d with %d rows, want %dx%d", s.Cols, s.Rows, len(s.Cells), tc.cols, tc.rows)
				}
				if tc.check != nil {
					tc.check(t, s)
				}
			})
		}
	}
}

func sizeName(size int) string {
	switch size {
	case 0:
		return "as listed"
	case -1:
		return "whole"
	}
	return fmt.Sprintf("by %d", size)
}

// chunks splits the joined input into writes of size bytes.
func chunks(in []string, size int) []string {
	all := strings.Join(in, "")
	switch size {
	case 0:
		return in
	case -1:
		return []string{all}
	}
	var out []string
	for len(all) > size {
		out = append(out, all[:size])
		all = all[size:]
	}
	return append(out, all)
}

func wantCells(t *testing.T, s Snapshot, y int, want map[int]rune) {
	t.Helper()
	for x, r := range want {
		if got := s.Cells[y][x].Char; got != r {
			t.Errorf("cell %d,%d = %q, want %q", x, y, got, r)
		}
	}
}

func TestQueriesWithoutReplies(t *testing.T) {
	e := New(Options{Cols: 20, Rows: 3}).(*vtEmulator)
	queries := "\x1b[c\x1b[>c\x1b[6n\x1b[5n\x1b]11;?\x07\x1b[?2026$p\x1b[>q\x1b[18t"
	e.mu.Lock()
	e.feed([]byte(queries))
	reply := e.reply
	e.mu.Unlock()
	if len(reply) != 0 {
		t.Errorf("replies made with nowhere to go: %q", reply)
	}
	e.Write([]byte(queries))
	if s := e.Snapshot(); s.Text() != "" || s.Cursor != (Pos{}) {
		t.Errorf("queries left a trace:\n%s", s)
	}
}

func TestResize(t *testing.T) {
	e := New(Options{Cols: 20, Rows: 4})
	e.Write([]byte("hello\r\nworld"))
	before := e.Snapshot()

	e.Resize(40, 10)
	s := e.Snapshot()
	if s.Cols != 40 || s.Rows != 10 || len(s.Cells) != 10 || len(s.Cells[0]) != 40 {
		t.Fatalf("size after Resize(40, 10) = %dx%d", s.Cols, s.Rows)
	}
	if c, r := e.Size(); c != 40 || r != 10 {
		t.Errorf("Size() = %d, %d", c, r)
	}
	if s.Text() != "hello\nworld" {
		t.Errorf("content after growing:\n%s", s)
	}
	if s.Seq <= before.Seq {
		t.Errorf("Seq %d did not increase from %d", s.Seq, before.Seq)
	}

	e.Resize(3, 2)
	if s := e.Snapshot(); s.Text() != "hel\nwor" {
		t.Errorf("content after shrinking:\n%s", s)
	}
	seq := e.Snapshot().Seq
	e.Resize(3, 2)
	e.Resize(0, 5)
	if s := e.Snapshot(); s.Seq != seq || s.Cols != 3 {
		t.Errorf("no-op resizes changed Seq or size: %d %dx%d", s.Seq, s.Cols, s.Rows)
	}
}

// TestTabStopsAfterResize: columns a resize adds get the default tab stops,
// every 8 columns, as xterm's do (vt10x gave them none).
func TestTabStopsAfterResize(t *testing.T) {
	in := []string{
		"\t",     // HT: to column 3, the last (no stop before it)
		"\r\tx",  // after the resize, HT to the stop at column 8
		"\t",     // HT: to the stop at column 16
		"\x1b[Z", // CBT: back to column 8
	}
	for _, size := range chunkSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			e := New(Options{Cols: 4, Rows: 2})
			e.Write([]byte(in[0]))
			e.Resize(20, 2)
			for _, c := range chunks(in[1:], size) {
				e.Write([]byte(c))
			}
			s := e.Snapshot()
			if got, want := s.Line(0), "        x"; got != want || s.Cursor != (Pos{8, 0}) {
				t.Errorf("row %q cursor %v, want %q cursor {8 0}", got, s.Cursor, want)
			}
		})
	}
}

func TestSnapshotText(t *testing.T) {
	e := New(Options{Cols: 10, Rows: 4})
	e.Write([]byte("a \r\n\r\n b数"))
	s := e.Snapshot()
	for y, want := range []string{"a", "", " b数", ""} {
		if got := s.Line(y); got != want {
			t.Errorf("Line(%d) = %q, want %q", y, got, want)
		}
	}
	if s.Line(-1) != "" || s.Line(4) != "" {
		t.Error("Line outside the screen is not empty")
	}
	if got := s.String(); !strings.HasSuffix(got, "[10x4 cursor 4,2 visible=true alt=false]") {
		t.Errorf("String() = %q", got)
	}
}

func TestRuneWidth(t *testing.T) {
	for r, want := range map[rune]int{
		'a': 1, 'é': 1, '─': 1, '⎿': 1, '✻': 1, '⏺': 1,
		'数': 2, '한': 2, 'ア': 2, 'Ａ': 2, '🚀': 2, '✅': 2, '🫠': 2, '\U00020000': 2,
		'\u0301': 0, '\u200d': 0, '\ufe0f': 0,
	} {
		if got := RuneWidth(r); got != want {
			t.Errorf("RuneWidth(%q) = %d, want %d", r, got, want)
		}
	}
}

// TestSkip: Skip forgets the screen and a sequence cut short (but a mode
// switch), as a feeder that dropped part of the stream needs, but keeps the
// private modes.
func TestSkip(t *testing.T) {
	e := New(Options{Cols: 20, Rows: 3})
	_, _ = e.Write([]byte("\x1b[?1049h\x1b[?25lhello\r\nworld\x1b[3"))
	before := e.Snapshot().Seq
	e.Skip(nil)
	s := e.Snapshot()
	if s.Seq == before || strings.TrimSpace(s.Text()) != "" {
		t.Fatalf("after Skip: Seq %d (was %d), screen %q; want a new Seq and a blank screen", s.Seq, before, s.Text())
	}
	if !s.AltScreen || s.CursorVisible {
		t.Errorf("after Skip: alternate screen %t, cursor visible %t; want the modes kept (true, false)", s.AltScreen, s.CursorVisible)
	}
	_, _ = e.Write([]byte("1mX"))
	if got := e.Snapshot().Text(); !strings.HasPrefix(got, "1mX") {
		t.Errorf("after Skip the next bytes show as %q, want \"1mX\" at the top-left (the cut sequence forgotten)", got)
	}
}

// TestSkipCutSwitch: a mode switch cut where the feeder begins or ends
// skipping is read whole.
func TestSkipCutSwitch(t *testing.T) {
	e := New(Options{Cols: 20, Rows: 3})
	_, _ = e.Write([]byte("hello\x1b[?10"))
	e.Skip([]byte("49h skipped \x1b[?1;2;3;4;5;6;7;8;9;10;25l \x1b[?104"))
	if s := e.Snapshot(); !s.AltScreen || s.CursorVisible {
		t.Fatalf("a switch cut as skipping began, then one of eleven modes: alternate screen %t, cursor visible %t; want true, false", s.AltScreen, s.CursorVisible)
	}
	_, _ = e.Write([]byte("9lafter"))
	if s := e.Snapshot(); s.AltScreen || !strings.HasPrefix(s.Text(), "after") {
		t.Errorf("a switch cut as skipping ended: alternate screen %t, screen %q; want the main screen, \"after\"", s.AltScreen, s.Text())
	}
}

// TestSkipModes: the modes switched in skipped output are kept, however
// the output is cut across Skip calls; nothing else in it is drawn.
func TestSkipModes(t *testing.T) {
	stream := "\x1b[31mred\x1b[?1049l\x1b[2J\x1b[?25;2004h\x1b[?2026h\x1b[?1004$p\x1b[?7l" +
		strings.Repeat("x", 40) + "\x1b[?1049h\x1b[?1000;1006h\x1b[?25l\x1b[?2004l\x1b[?2026lframe\x1b"
	for cut := range len(stream) + 1 {
		for cut2 := cut; cut2 <= len(stream); cut2 += 7 {
			e := New(Options{Cols: 20, Rows: 3}).(*vtEmulator)
			_, _ = e.Write([]byte("\x1b[?1049hon alt"))
			e.Skip([]byte(stream[:cut]))
			e.Skip([]byte(stream[cut:cut2]))
			e.Skip([]byte(stream[cut2:]))
			s := e.Snapshot()
			if !s.AltScreen || s.CursorVisible || strings.TrimSpace(s.Text()) != "" {
				t.Fatalf("cut at %d and %d: alternate screen %t, cursor visible %t, screen %q; want true, false, blank",
					cut, cut2, s.AltScreen, s.CursorVisible, s.Text())
			}
			want := map[int]int{2004: 2, 1000: 1, 1006: 1, 7: 2, 2026: 2, 1004: 2}
			for m, st := range want {
				if got := e.modeState(m); got != st {
					t.Fatalf("cut at %d and %d: mode %d reads %d, want %d", cut, cut2, m, got, st)
				}
			}
			// The ESC at the end is read on by the next Write, as a
			// terminal would (ESC n is a charset shift).
			_, _ = e.Write([]byte("next"))
			if got := e.Snapshot().Text(); !strings.HasPrefix(got, "ext") {
				t.Fatalf("cut at %d and %d: a Write after Skip shows %q", cut, cut2, got)
			}
		}
	}
}
