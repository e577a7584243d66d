package randscreen

import (
	"math/rand/v2"
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

// The words random text is made of: mostly English, some CJK, emoji, and
// words longer than a narrow line.
var (
	english = strings.Fields("the server config build deploy cache check mode session project folder file " +
		"token tests branch commit review gateway proxy action network access write read change plan agent " +
		"result output value window safety approve each that needs your requests go through and isn't getting " +
		"leave stay accept edits which has no it off these then run without asking some tools such as " +
		"restart install update remove keep all new old first last next (beta) v2.1 it's")
	cjk   = []string{"数据库", "分离", "配置", "服务器", "迁移", "検証", "設定", "한국어", "테스트", "确认"}
	emoji = []string{"🚀", "✅", "🎉", "🔥", "📦", "🧪"}
	long  = []string{"configuration-management-service", "https://example.com/docs/a/b/c?x=1&y=2",
		"/usr/local/lib/node_modules/@scope/pkg/cli.js", "averyveryverylongidentifierwithoutanyspacesatall"}
)

// word is a random word; short keeps it narrower than a third of width.
func word(r *rand.Rand, width int, short bool) string {
	for {
		var w string
		switch n := r.IntN(100); {
		case n < 78:
			w = english[r.IntN(len(english))]
		case n < 88:
			w = cjk[r.IntN(len(cjk))]
		case n < 94:
			w = emoji[r.IntN(len(emoji))]
		default:
			w = long[r.IntN(len(long))]
		}
		if !short || cells(w)*3 <= width {
			return w
		}
	}
}

// words is n random words.
func words(r *rand.Rand, n, width int, short bool) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = word(r, width, short)
	}
	return out
}

// cells is how many columns s takes on a terminal.
func cells(s string) int {
	n := 0
	for _, c := range s {
		n += vt.RuneWidth(c)
	}
	return n
}

// wrap lays words out in lines at most width columns wide, as Claude's
// renderer does: a word that does not fit goes to the next line, a word
// wider than a line is broken where the line ends.
func wrap(ws []string, width int) []string {
	var lines []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		if curW > 0 {
			lines = append(lines, cur.String())
			cur.Reset()
			curW = 0
		}
	}
	for _, w := range ws {
		ww := cells(w)
		if curW > 0 && curW+1+ww <= width {
			cur.WriteString(" " + w)
			curW += 1 + ww
			continue
		}
		flush()
		for ww > width {
			head, rest := cutCells(w, width)
			lines = append(lines, head)
			w, ww = rest, cells(rest)
		}
		cur.WriteString(w)
		curW = ww
	}
	flush()
	return lines
}

// cutCells splits s after at most n columns.
func cutCells(s string, n int) (head, rest string) {
	w := 0
	for i, c := range s {
		cw := vt.RuneWidth(c)
		if w+cw > n {
			return s[:i], s[i:]
		}
		w += cw
	}
	return s, ""
}

// pad fills s with spaces to n columns.
func pad(s string, n int) string {
	if w := cells(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}
