package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Stream returns frames of output imitating Claude Code's TUI (see
// testdata/screens/*/ for the real thing): synchronized-update frames that move
// the cursor up, redraw lines with 256-colour and truecolour SGR, erase to the
// end of line, tab-like column jumps, a spinner with an OSC title, prose with
// CJK and emoji, and now and then a whole form redrawn. The same seed gives
// the same frames. cols is the width the frames are drawn for.
func Stream(cols int, seed uint64) [][]byte {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), cols: cols}
	var frames [][]byte
	frames = append(frames, []byte("\x1b7\x1b[r\x1b8\x1b[?25l\x1b[?2004h\x1b[?2031h\x1b[?1004h\x1b]0;✳ Claude Code\x07"))
	for i := range 600 {
		switch {
		case i%50 == 49:
			frames = append(frames, g.form(i))
		case i%5 == 0:
			frames = append(frames, g.message(i))
		default:
			frames = append(frames, g.spinner(i))
		}
	}
	return frames
}

// StreamBytes is [Stream] joined, repeated until it holds at least n bytes.
func StreamBytes(cols int, seed uint64, n int) []byte {
	frames := Stream(cols, seed)
	var b []byte
	for len(b) < n {
		for _, f := range frames {
			b = append(b, f...)
		}
	}
	return b
}

type gen struct {
	r    *rand.Rand
	cols int
}

var (
	spinner = []string{"·", "✢", "✳", "✶", "✻", "✽"}
	verbs   = []string{"Discombobulating", "Pondering", "Reticulating", "Thinking", "Schlepping", "Noodling"}
	words   = []string{
		"the", "config", "loader", "retries", "database", "migration", "数据库", "分离", "测试", "🚀", "📦", "✅",
		"handler", "returns", "an", "error", "when", "the", "socket", "is", "closed", "日本語", "のテスト", "🔧",
		"cursor", "moves", "before", "every", "key", "and", "waits", "for", "the", "screen", "to", "settle",
	}
	codeLines = []string{
		"\x1b[38;5;204mfunc\x1b[39m \x1b[38;5;149mLoad\x1b[39m(path \x1b[38;5;81mstring\x1b[39m) (*Config, \x1b[38;5;81merror\x1b[39m) {",
		"\t\x1b[38;5;204mif\x1b[39m err != \x1b[38;5;141mnil\x1b[39m {",
		"\t\t\x1b[38;5;204mreturn\x1b[39m \x1b[38;5;141mnil\x1b[39m, fmt.\x1b[38;5;149mErrorf\x1b[39m(\x1b[38;5;186m\"load %s: %w\"\x1b[39m, path, err)",
		"\x1b[38;2;80;200;120m+\x1b[39m\x1b[48;2;2;40;0m  rows := \x1b[38;5;149mmake\x1b[39m([]\x1b[38;5;81mstring\x1b[39m, 0, n) // 行を集める\x1b[49m",
		"\x1b[38;2;220;90;90m-\x1b[39m\x1b[48;2;60;1;1m  rows := nil\x1b[49m",
	}
)

func (g *gen) sentence(width int) string {
	var b strings.Builder
	w := 0
	for {
		word := words[g.r.IntN(len(words))]
		ww := textWidth(word) + 1
		if w+ww > width {
			return b.String()
		}
		b.WriteString(word)
		b.WriteByte(' ')
		w += ww
	}
}

// textWidth counts East Asian wide characters and emoji as two columns.
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		if r >= 0x1100 && (r <= 0x115f || (r >= 0x2e80 && r <= 0xa4cf) || (r >= 0xac00 && r <= 0xd7a3) ||
			(r >= 0xf900 && r <= 0xfaff) || (r >= 0xff00 && r <= 0xff60) || (r >= 0x1f300 && r <= 0x1faff) || r == 0x2705) {
			w += 2
		} else {
			w++
		}
	}
	return w
}

// spinner is the small frame Claude draws several times a second while it
// works: a title update, then the spinner glyph and the elapsed time.
func (g *gen) spinner(i int) []byte {
	s := spinner[i%len(spinner)]
	return fmt.Appendf(nil, "\x1b]0;%s Claude Code\x07\x1b[?2026h\x1b[2D\x1b[3B\r\x1b[6A\x1b[38;5;174m%s\x1b[39m\x1b[3G\x1b[38;5;174m%s…\x1b[39m \x1b[38;5;246m(%ds · ↓ %d tokens · esc to interrupt)\x1b[39m\x1b[K\r\r\n\r\n\r\n\r\n\x1b[2C\x1b[3A\x1b[?2026l",
		s, s, verbs[(i/6)%len(verbs)], i/10, 17*i)
}

// message is a frame that adds streamed text above the prompt: move up,
// erase the old prompt box, write new lines (prose, code, a diff), redraw
// the box and the status line.
func (g *gen) message(i int) []byte {
	var b strings.Builder
	rule := "\x1b[38;5;244m" + strings.Repeat("─", g.cols) + "\x1b[39m"
	b.WriteString("\x1b[?2026h\x1b[2D\x1b[3B\r\x1b[7A")
	for range 7 {
		b.WriteString("\x1b[2K\x1b[1B")
	}
	b.WriteString("\x1b[7A\r")
	fmt.Fprintf(&b, "\x1b[38;5;231m⏺\x1b[39m %s\x1b[K\r\r\n", g.sentence(g.cols-4))
	for range 1 + g.r.IntN(4) {
		fmt.Fprintf(&b, "  %s\x1b[K\r\r\n", g.sentence(g.cols-4))
	}
	fmt.Fprintf(&b, "\x1b[38;5;246m  ⎿ \x1b[39m \x1b[1mRead\x1b[22m(internal/loader_%d.go)\x1b[K\r\r\n", i)
	for range g.r.IntN(5) {
		fmt.Fprintf(&b, "\x1b[6G%s\x1b[K\r\r\n", codeLines[g.r.IntN(len(codeLines))])
	}
	b.WriteString("\r\r\n")
	b.WriteString(rule + "\r\r\n")
	b.WriteString("❯ \x1b[7m \x1b[27m\x1b[K\r\r\n")
	b.WriteString(rule + "\r\r\n")
	b.WriteString("\x1b[3G\x1b[38;5;220m⏵⏵\x1b[6Gauto\x1b[11Gmode\x1b[16Gon\x1b[81G\x1b[38;5;246m◐\x1b[83Gmedium\x1b[90G·\x1b[92G/effort\x1b[39m\r\r\n")
	b.WriteString("\x1b[2C\x1b[3A\x1b[?2026l")
	return []byte(b.String())
}

// form is a whole AskUserQuestion form drawn in one frame, like the one in
// testdata/screens/2.1.330/three-features-auth-100x40.cast.
func (g *gen) form(i int) []byte {
	var b strings.Builder
	rule := "\x1b[38;5;246m" + strings.Repeat("─", g.cols) + "\x1b[39m"
	b.WriteString("\x1b[?2026h\x1b[2D\x1b[3B\r\x1b[7A" + rule + "\r\x1b[1B")
	b.WriteString("← \x1b[48;5;153m\x1b[38;5;16m ☐ 数据库 \x1b[39m\x1b[49m ☐ Features\x1b[28G☐\x1b[30GNaming\x1b[38G✔\x1b[40GSubmit\x1b[48G→\r\x1b[2B")
	fmt.Fprintf(&b, "\x1b[38;5;231m\x1b[1mWhich database should we use for service %d? 🚀\x1b[22m\x1b[39m\x1b[K\r\x1b[1B\x1b[K\r\x1b[1B", i)
	opts := [][2]string{{"PostgreSQL", "Relational, robust"}, {"SQLite", "Embedded, 简单"}, {"MongoDB", "Document store 📦"}}
	for j, o := range opts {
		mark := " "
		if j == 0 {
			mark = "\x1b[38;5;153m❯\x1b[39m"
		}
		fmt.Fprintf(&b, "%s \x1b[38;5;246m%d.\x1b[39m \x1b[38;5;153m%s\x1b[39m\x1b[K\r\r\n\x1b[6G\x1b[38;5;246m%s\x1b[39m\x1b[K\r\r\n", mark, j+1, o[0], o[1])
	}
	b.WriteString("\x1b[3G\x1b[38;5;246m4.\x1b[6GType\x1b[11Gsomething.\x1b[39m\x1b[K\r\r\n")
	b.WriteString(rule + "\r\r\n")
	b.WriteString("\x1b[3G5.\x1b[6GChat\x1b[11Gabout\x1b[17Gthis\x1b[K\r\r\n\r\r\n")
	b.WriteString("\x1b[38;5;246mEnter\x1b[7Gto\x1b[10Gselect\x1b[17G·\x1b[19GTab/Arrow\x1b[29Gkeys\x1b[34Gto\x1b[37Gnavigate\x1b[46G·\x1b[48GEsc\x1b[52Gto\x1b[55Gcancel\x1b[39m\r\r\n")
	b.WriteString("\x1b[11A\x1b[?2026l")
	return []byte(b.String())
}
