package screen_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

var update = flag.Bool("update", false, "rewrite golden files")

// byHand are the versions the recordings made by hand, outside
// manifest.yaml (a random form's session, a run with --record), were made
// on; the others are on every pinned version (claudetest.Pinned).
var byHand = []string{"2.1.197", "2.1.227", "2.1.266", "2.1.299", "2.1.321", "2.1.330"}

// recordings are the real Claude Code screens recorded by tools/recordscreens.
func recordings(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/screens/*/*.cast")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recordings in testdata/screens")
	}
	return files
}

// replay feeds a recording's output to a fresh emulator, each event split
// into chunks of the given size (0: whole events).
func replay(t testing.TB, path string, chunk int) vt.Snapshot {
	t.Helper()
	return replayAt(t, path, chunk, -1)
}

// replayAt is replay up to at seconds into the recording (-1: to its end).
func replayAt(t testing.TB, path string, chunk int, at float64) vt.Snapshot {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, evs, err := cast.Read(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	// The folder names the version, as an install would (Options.Version);
	// a header that names one (recordings made since cast.ClaudeVersionEnv)
	// must agree.
	version := filepath.Base(filepath.Dir(path))
	if v := h.ClaudeVersion(); v != "" && v != version {
		t.Fatalf("%s: recorded on Claude Code %s, filed under %s", path, v, version)
	}
	em := screen.New(screen.Options{Cols: h.Width, Rows: h.Height, Version: version})
	if err := cast.Play(evs, at, chunked{em, chunk}); err != nil {
		t.Fatal(err)
	}
	return em.Snapshot()
}

type chunked struct {
	vt.Emulator
	n int
}

func (c chunked) Write(p []byte) (int, error) {
	if c.n <= 0 {
		return c.Emulator.Write(p)
	}
	for i := 0; i < len(p); i += c.n {
		if _, err := c.Emulator.Write(p[i:min(i+c.n, len(p))]); err != nil {
			return i, err
		}
	}
	return len(p), nil
}

// describe is what a golden file holds: the recognised form, or why none
// and the dialog on the screen, if any.
func describe(s vt.Snapshot) string {
	f, err := screen.Recognize(s)
	if err != nil {
		out := err.Error() + "\n"
		if d, ok := screen.ParseDialog(s); ok {
			out += d.String()
			for _, l := range strings.Split(d.Body, "\n") {
				if d.Body != "" {
					out += strings.TrimRight("  | "+l, " ") + "\n"
				}
			}
		}
		if e, ok := screen.ParseElicitation(s); ok {
			out += e.String()
		}
		return out
	}
	return f.String()
}

// TestGolden replays every recording, recognises the form on its last
// screen and compares the result with screen/testdata/golden/VERSION/NAME.golden.
// Each recording is replayed whole and in chunks of 1, 7 and 64 bytes; all
// must give the same screen.
func TestGolden(t *testing.T) {
	for _, rec := range recordings(t) {
		version := filepath.Base(filepath.Dir(rec))
		name := strings.TrimSuffix(filepath.Base(rec), ".cast")
		t.Run(version+"/"+name, func(t *testing.T) {
			t.Parallel()
			snap := replay(t, rec, 0)
			got := describe(snap)
			for _, n := range []int{1, 7, 64} {
				other := replay(t, rec, n)
				if other.Text() != snap.Text() {
					t.Errorf("chunks of %d bytes give another screen:\n%s\nwhole events give:\n%s", n, other.Text(), snap.Text())
				}
				if d := describe(other); d != got {
					t.Errorf("chunks of %d bytes give another form:\n%s", n, d)
				}
			}
			golden := filepath.Join("testdata", "golden", version, name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run `make golden` to create it)", err)
			}
			if got != string(want) {
				t.Errorf("recognised form differs from %s:\n%s\nscreen:\n%s", golden, diff(string(want), got), snap.Text())
			}
		})
	}
}

// diff is a small line diff: lines only in want with "-", only in got with "+".
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			b.WriteString("  " + wl + "\n")
			continue
		}
		if i < len(w) {
			b.WriteString("- " + wl + "\n")
		}
		if i < len(g) {
			b.WriteString("+ " + gl + "\n")
		}
	}
	return b.String()
}

// FuzzRecognize checks that recognition never panics and never reports a
// focus while two elements are drawn focused. It is seeded with the last
// screen of every recording.
func FuzzRecognize(f *testing.F) {
	for _, rec := range recordings(f) {
		f.Add(replay(f, rec, 0).Text())
	}
	f.Fuzz(func(t *testing.T, text string) {
		em := screen.New(screen.Options{Cols: 100, Rows: 40})
		em.Write([]byte(strings.ReplaceAll(text, "\n", "\r\n")))
		form, err := screen.Recognize(em.Snapshot())
		if err != nil {
			return
		}
		focused := 0
		for _, o := range form.Options {
			if o.Focused {
				focused++
			}
		}
		for _, on := range []bool{form.Other != nil && form.Other.Focused, form.Button != nil && form.Button.Focused,
			form.Chat != nil && form.Chat.Focused} {
			if on {
				focused++
			}
		}
		if form.Review != nil {
			if form.Review.Submit.Focused {
				focused++
			}
			if form.Review.Cancel.Focused {
				focused++
			}
		}
		// The chat row's pointer wins over one left on an option or button.
		chat := form.Focus.Kind == screen.FocusChat && form.Chat != nil && form.Chat.Focused
		if form.Focus.Kind != screen.FocusUnknown && focused != 1 && !chat {
			t.Fatalf("focus %v with %d focused elements:\n%s", form.Focus, focused, form)
		}
		_ = form.String()
	})
}

// TestANSIRedrawsSnapshot draws every recorded screen's last snapshot
// from its ANSI form onto a blank emulator: the cells must come back the
// same (reverse video written as the colours it shows).
func TestANSIRedrawsSnapshot(t *testing.T) {
	for _, rec := range recordings(t) {
		want := replay(t, rec, 0)
		em := screen.New(screen.Options{Cols: want.Cols, Rows: want.Rows})
		if _, err := em.Write(want.ANSI()); err != nil {
			t.Fatal(err)
		}
		got := em.Snapshot()
		if got.Cursor != want.Cursor || got.CursorVisible != want.CursorVisible {
			t.Errorf("%s: cursor %v/%t, want %v/%t", rec, got.Cursor, got.CursorVisible, want.Cursor, want.CursorVisible)
		}
		for y := range want.Cells {
			for x, c := range want.Cells[y] {
				g := got.Cells[y][x]
				c.Attr &^= vt.Reverse
				g.Attr &^= vt.Reverse
				if g != c {
					t.Fatalf("%s: cell %d,%d is %+v, want %+v\n%s", rec, x, y, g, c, got.Text())
				}
			}
		}
	}
}

// FuzzRecognize feeds arbitrary output to an emulator of arbitrary size and
// recognises the screen: it must not panic, and a form it reports must hold
// together. The recordings seed it (their whole output, each at its size).
func FuzzRecognizeOutput(f *testing.F) {
	for _, rec := range recordings(f) {
		fh, err := os.Open(rec)
		if err != nil {
			f.Fatal(err)
		}
		h, evs, err := cast.Read(fh)
		fh.Close()
		if err != nil {
			f.Fatal(err)
		}
		var out strings.Builder
		for _, ev := range evs {
			if ev.Kind == "o" {
				out.WriteString(ev.Data)
			}
		}
		f.Add(uint16(h.Width), uint16(h.Height), []byte(out.String()))
	}
	f.Fuzz(func(t *testing.T, cols, rows uint16, in []byte) {
		em := screen.New(screen.Options{Cols: 20 + int(cols)%181, Rows: 5 + int(rows)%46})
		em.Write(in)
		fm, err := screen.Recognize(em.Snapshot())
		if err != nil {
			return
		}
		if fm.Review != nil {
			if fm.Review.Submit.Number != 1 || fm.Review.Cancel.Number != 2 {
				t.Fatalf("review page rows %+v", fm.Review)
			}
			return
		}
		focused := 0
		for i, o := range fm.Options {
			if o.Number < 1 || i > 0 && o.Number != fm.Options[i-1].Number+1 {
				t.Fatalf("options numbered %d after %+v", o.Number, fm.Options[:i])
			}
			if o.Focused {
				focused++
				if fm.Focus.Kind == screen.FocusOption && fm.Focus.Index != o.Number-1 && focused == 1 && fm.Chat != nil && !fm.Chat.Focused {
					t.Fatalf("focus %v on option %d", fm.Focus, o.Number)
				}
			}
		}
		if fm.Chat == nil || !strings.Contains(fm.Footer, "Esc to cancel") && !fm.Insert {
			t.Fatalf("a question page without chat row or footer: %+v", fm)
		}
		if fm.Insert && fm.Focus.Kind != screen.FocusOther && fm.Focus.Kind != screen.FocusUnknown {
			t.Fatalf("vim's insert mode with the focus on %v", fm.Focus)
		}
		if fm.Other != nil && len(fm.Options) > 0 && fm.Other.Number <= fm.Options[len(fm.Options)-1].Number {
			t.Fatalf("Type something numbered %d after option %d", fm.Other.Number, fm.Options[len(fm.Options)-1].Number)
		}
	})
}

// TestWrappedTabTitle: on 2.1.197's narrow tab row a tab's title wraps
// within its box onto the row under the tab row, the active tab's on its
// background. Read so only while that row is on the tab's background: the
// same text in the terminal's colours is a question's row pressed against
// the tab row, which is no form.
func TestWrappedTabTitle(t *testing.T) {
	for _, tc := range []struct {
		cast, header string
		tabs         []string
	}{
		// The active tab's title alone, wrapped whole.
		{"stress-6103-s013-40x38", "Priority", []string{"Priority", "Q1", "A…", "A…", "Submit"}},
		// The active tab's title broken between its words, and Submit's.
		{"stress-6103-s013b-40x38", "API style", []string{"P…", "Q1", "API style", "A…", "Submit"}},
	} {
		t.Run(tc.cast, func(t *testing.T) {
			snap := replay(t, "../testdata/screens/2.1.197/"+tc.cast+".cast", 0)
			f, err := screen.Recognize(snap)
			if err != nil {
				t.Fatalf("Recognize: %v", err)
			}
			var titles []string
			for _, tab := range f.Tabs {
				titles = append(titles, tab.Title)
			}
			if f.Header != tc.header || !slices.Equal(titles, tc.tabs) {
				t.Fatalf("header %q, tabs %q; want %q, %q", f.Header, titles, tc.header, tc.tabs)
			}
			y := f.Top + 1
			cells := slices.Clone(snap.Cells)
			cells[y] = slices.Clone(cells[y])
			for x := range cells[y] {
				cells[y][x].BG = vt.DefaultBG
			}
			snap.Cells = cells
			if _, err := screen.Recognize(snap); err == nil || !strings.Contains(err.Error(), "no blank line under the header") {
				t.Errorf("Recognize with the row under the tabs in the terminal's colours: %v, want no blank line under the header", err)
			}
		})
	}
}

// TestWrappedTabTitleCut: on a page cut at the top the tab row can be off
// the screen while the row it wraps onto is still on it, alone above a
// blank row: the active tab's title ("🚀 Deploy" ends in "Deploy") on its
// background, indented to the tab's box. It is not the question's. Any
// other row there is the question's own first visible row, and the page
// then does not end the question asked: no key.
func TestWrappedTabTitleCut(t *testing.T) {
	const question = "Which test runner should we use for part 4?"
	plain := vt.Cell{Char: 'x', FG: vt.DefaultFG, BG: vt.DefaultBG}
	blank := vt.Cell{Char: ' ', FG: vt.DefaultFG, BG: vt.DefaultBG}
	for _, v := range byHand {
		t.Run(v, func(t *testing.T) {
			snap := replay(t, "../testdata/screens/"+v+"/stress-4034-s020-40x20.cast", 0)
			f, err := screen.Recognize(snap)
			if err != nil {
				t.Fatalf("Recognize: %v", err)
			}
			if !f.Cut || f.Header != "" || f.Question != question {
				t.Fatalf("cut %t, header %q, question %q; want cut, no header, %q", f.Cut, f.Header, f.Question, question)
			}
			rows := strings.Split(snap.Text(), "\n")
			if !strings.HasPrefix(rows[2], "Which") || !strings.HasPrefix(rows[3], "4?") || strings.TrimSpace(rows[1]) != "" {
				t.Fatalf("rows 1 to 3 are not blank and the question:\n%s", snap.Text())
			}
			for _, tc := range []struct {
				name  string
				edit  func(cells [][]vt.Cell)
				whole bool // the question's own rows are left
			}{
				{"in the terminal's colours", func(cells [][]vt.Cell) {
					for x := range cells[0] {
						cells[0][x].BG = vt.DefaultBG
					}
				}, true},
				// The way a header chip is drawn.
				{"on its colour from the left edge", func(cells [][]vt.Cell) {
					cells[0][0].BG = cells[0][strings.IndexRune(rows[0], 'D')].BG
				}, true},
				{"with text at the left edge", func(cells [][]vt.Cell) {
					cells[0][0] = plain
				}, true},
				{"above another row", func(cells [][]vt.Cell) {
					cells[1][0] = plain
				}, true},
				{"above no question", func(cells [][]vt.Cell) {
					for _, y := range []int{2, 3} {
						for x := range cells[y] {
							cells[y][x] = blank
						}
					}
				}, false},
			} {
				cells := slices.Clone(snap.Cells)
				for y := range 4 {
					cells[y] = slices.Clone(cells[y])
				}
				tc.edit(cells)
				edited := snap
				edited.Cells = cells
				g, err := screen.Recognize(edited)
				if err != nil {
					t.Fatalf("%s: Recognize: %v", tc.name, err)
				}
				if !strings.Contains(g.Question, "Deploy") || tc.whole != strings.HasSuffix(g.Question, question) {
					t.Errorf("%s: question %q, want the top row's text in it, and then %q: %t", tc.name, g.Question, question, tc.whole)
				}
			}
		})
	}
}

// TestEmojiSequences: emoji sequences as Claude Code lays them out, on
// every pinned version (testdata/scenarios/emoji.yaml): a ZWJ sequence and
// a skin tone take the columns of their first emoji and what follows is
// drawn over the rest, VS16 and a combining accent take no column, and the
// header chip shows "❤️" as "❤�" (2.1.266 on) or "❤". The page agrees with
// the question asked; changing any one label's emoji makes it disagree.
func TestEmojiSequences(t *testing.T) {
	q := answer.Question{
		Question: "Which 👨\u200d💻 setup should we use? ⚠️",
		Header:   "Setup ❤️",
		Options: []answer.Option{
			{Label: "👨\u200d💻 Developer laptop"},
			{Label: "❤️ Heart first"},
			{Label: "🇯🇵 Tokyo region"},
			{Label: "Cafe\u0301 👍🏽 OK"},
		},
	}
	for _, v := range byHand {
		t.Run(v, func(t *testing.T) {
			f, err := screen.Recognize(replay(t, "../testdata/screens/"+v+"/emoji-sequences-80x40.cast", 0))
			if err != nil {
				t.Fatalf("Recognize: %v", err)
			}
			if d := f.Disagreements(q); d != nil {
				t.Fatalf("the page disagrees with the question asked: %q", d)
			}
			for i, other := range []string{"🧑\u200d💻 Developer laptop", "💙 Heart first", "🇰🇷 Tokyo region", "Cafe 👎🏽 OK"} {
				changed := q
				changed.Options = slices.Clone(q.Options)
				changed.Options[i].Label = other
				if f.Disagreements(changed) == nil {
					t.Errorf("the page agrees with option %d asked as %q", i+1, other)
				}
			}
		})
	}
}

// noCell removes from a header what a screen cell does not show of it, or
// shows in its place: VS16, a keycap's enclosing mark, U+FFFD.
var noCell = strings.NewReplacer("\ufe0f", "", "\u20e3", "", "\ufffd", "")

// TestVS16Header: a header whose emoji is a text character and VS16, with
// text after it (testdata/scenarios/vs16head.yaml). 2.1.227 and older give
// the emoji two columns and leave the second blank ("☐ ⚠  Risk"), 2.1.266 on
// draw U+FFFD there ("☐ ⚠� Risk"). On every pinned version the chip and the
// tab row are read, each page shows its own question and no other, and a
// header asked otherwise disagrees. The stress recordings are where it was
// found: no header was read, so the form was never answered (exit 5).
func TestVS16Header(t *testing.T) {
	one := answer.Question{
		Question: "How risky is the migration?",
		Header:   "⚠️ Risk",
		Options:  []answer.Option{{Label: "Low"}, {Label: "⚠️ High"}, {Label: "Unknown"}},
	}
	two := []answer.Question{
		{Question: one.Question, Header: one.Header, Options: one.Options[:2]},
		{Question: "Which checks come first?", Header: "1️⃣ First", MultiSelect: true,
			Options: []answer.Option{{Label: "✔️ Tests"}, {Label: "Lint"}, {Label: "1️⃣ Smoke"}}},
	}
	other := strings.NewReplacer("⚠️", "⛔", "1️⃣", "2️⃣")
	showsHeaders(t, "vs16head-", []headerPage{
		{"chip-80x40", []answer.Question{one}, 0},
		{"tabs-80x40", two, 0},
		{"tabs-first-80x40", two, 1},
	}, other.Replace)
	for _, tc := range []struct{ file, question string }{
		{"2.1.227/stress-1764070800-s036-167x20", "Which database should we use for part 2?"},
		{"2.1.197/stress-1764070800-s026-173x112", "Which queue should we use for part 6?"},
	} {
		f, err := screen.Recognize(replay(t, "../testdata/screens/"+tc.file+".cast", 0))
		if err != nil || f.Question != tc.question || screen.Squash(f.Header) != screen.Squash("⚠️ Risk") {
			t.Errorf("%s: want the form with header \"⚠️ Risk\" and its question, got %v\n%v", tc.file, err, f)
		}
	}
}

// headerPage is a recording (its name after the prefix) of the page of
// question page of the form qs.
type headerPage struct {
	file string
	qs   []answer.Question
	page int
}

// showsHeaders checks each page on every pinned version: it is read, shows
// its question and no other, its header reads exactly as asked, and it
// does not show its question when any header is asked as other makes it.
func showsHeaders(t *testing.T, prefix string, pages []headerPage, other func(string) string) {
	t.Helper()
	for _, v := range claudetest.Pinned {
		t.Run(v, func(t *testing.T) {
			for _, p := range pages {
				f, err := screen.Recognize(replay(t, "../testdata/screens/"+v+"/"+prefix+p.file+".cast", 0))
				if err != nil {
					t.Errorf("%s: Recognize: %v", p.file, err)
					continue
				}
				headers := make([]string, len(p.qs))
				for i, q := range p.qs {
					headers[i] = q.Header
				}
				if !f.Shows(p.qs, p.page) {
					t.Errorf("%s: the page does not show question %d: %q %q", p.file, p.page+1,
						f.Disagreements(p.qs[p.page]), f.TabDisagreements(headers))
				}
				// Read as asked, one space apart, less what has no cell, or
				// as a JSON string (2.1.266 on, TestWhiteSpaceHeader).
				read := func(h string) string { return strings.Join(strings.Fields(noCell.Replace(h)), " ") }
				if h, asked := noCell.Replace(f.Header), p.qs[p.page].Header; h != read(asked) && h != read(answer.QuoteJSON(asked)) {
					t.Errorf("%s: header %q, want %q read as it was asked, one space apart", p.file, f.Header, asked)
				}
				for i := range p.qs {
					changed := slices.Clone(p.qs)
					changed[i].Header = other(changed[i].Header)
					if f.Shows(changed, p.page) {
						t.Errorf("%s: the page shows question %d with header %q asked", p.file, p.page+1, changed[i].Header)
					}
				}
			}
		})
	}
}

// TestMarkHeader: headers holding the marks of Claude's own tab row
// (testdata/scenarios/markhead.yaml): "✔ Done" and "Next →" on a tab row,
// "☐ Todo" in a chip. The tab row was split at every chip and cut at the
// arrow ("[☒ ] [✔ Done] [☐ Next]"), so such a form was never answered.
func TestMarkHeader(t *testing.T) {
	yesNo := []answer.Option{{Label: "Yes"}, {Label: "No"}}
	two := []answer.Question{
		{Question: "Is the migration finished?", Header: "✔ Done", Options: yesNo},
		{Question: "What comes after it?", Header: "Next →", Options: []answer.Option{{Label: "Cleanup"}, {Label: "← Rollback"}}},
	}
	one := answer.Question{Question: "What is left to do?", Header: "☐ Todo", Options: []answer.Option{{Label: "Docs"}, {Label: "Tests"}}}
	showsHeaders(t, "markhead-", []headerPage{
		{"tabs-80x40", two, 0},
		{"tabs-next-80x40", two, 1},
		{"chip-80x40", []answer.Question{one}, 0},
	}, strings.NewReplacer("✔", "✘", "→", "⇒", "☐", "☒").Replace)

	// The other marks the generator draws, written over the titles (same
	// widths).
	snap := replay(t, "../testdata/screens/2.1.330/markhead-tabs-80x40.cast", 0)
	rows := strings.Split(snap.Text(), "\n")
	y := slices.IndexFunc(rows, func(r string) bool { return strings.HasPrefix(r, "←  ☐ ✔ Done  ☐ Next →") })
	if y < 0 {
		t.Fatalf("no tab row on 2.1.330's screen:\n%s", snap.Text())
	}
	for _, tc := range []struct {
		row     string
		headers [2]string
	}{
		{"←  ☐ ☐ Todo  ☐ ← Back  ✔ Submit  →", [2]string{"☐ Todo", "← Back"}},
		{"←  ☐ ☒ Clos  ☐ Next →  ✔ Submit  →", [2]string{"☒ Clos", "Next →"}},
	} {
		qs := slices.Clone(two)
		qs[0].Header, qs[1].Header = tc.headers[0], tc.headers[1]
		f, err := screen.Recognize(withRow(snap, y, tc.row))
		if err != nil || !f.Shows(qs, 0) {
			t.Errorf("%q: does not show question 1 with headers %q (%v)\n%v", tc.row, tc.headers, err, f)
		}
	}
}

// TestWhiteSpaceHeader: headers with white space at their ends or a quote
// (testdata/scenarios/spaces.yaml). 2.1.266 and later draw them as JSON
// strings (`☐ " Space "`, `☐ "Say \"hi\""`); 2.1.227 and older as they
// are, the chip keeping the leading space (" ☐  Space"). Both were
// refused.
func TestWhiteSpaceHeader(t *testing.T) {
	three := []answer.Question{
		{Question: "Which  spacing?", Header: " Space ", Options: opts("  Leading", "Trailing  ", "Two  spaces")},
		{Question: "Which ones?", Header: "A, B", MultiSelect: true, Options: opts(" A", "B ", "C  D")},
		{Question: "Which greeting?", Header: `Say "hi"`, Options: opts("Hello", "Hi")},
	}
	one := answer.Question{Question: "Which  spacing?", Header: " Space ", Options: opts("  Leading", "Two  spaces")}
	showsHeaders(t, "spaces-", []headerPage{
		{"tabs-80x40", three, 0},
		{"chip-80x40", []answer.Question{one}, 0},
	}, strings.NewReplacer("Space", "Spade", "A, B", "A, C", "hi", "ho").Replace)
}

// opts is an option for each label.
func opts(labels ...string) []answer.Option {
	var o []answer.Option
	for _, l := range labels {
		o = append(o, answer.Option{Label: l})
	}
	return o
}

// withRow is s with row y's characters replaced by text (blank after it),
// colours and attributes kept.
func withRow(s vt.Snapshot, y int, text string) vt.Snapshot {
	cells := slices.Clone(s.Cells)
	cells[y] = slices.Clone(cells[y])
	r := []rune(text)
	for x := range cells[y] {
		cells[y][x].Char = ' '
		if x < len(r) {
			cells[y][x].Char = r[x]
		}
	}
	s.Cells = cells
	return s
}

// TestChipRow: a header chip holds any text (two spaces in a row, as
// 2.1.227 and older draw "Two  words", or as a JSON string, as 2.1.266 on
// do; random forms run 38), and is the header only under the form's rule
// (or at the top of the screen): a row like it among the question's is not.
func TestChipRow(t *testing.T) {
	snap := replay(t, "../testdata/screens/2.1.330/vs16head-chip-80x40.cast", 0)
	rows := strings.Split(snap.Text(), "\n")
	y := slices.IndexFunc(rows, func(r string) bool { return strings.HasPrefix(r, " ☐ ") })
	if y < 1 || !strings.HasPrefix(rows[y-1], "─") {
		t.Fatalf("no header chip under a rule on 2.1.330's screen:\n%s", snap.Text())
	}
	q := answer.Question{Question: "How risky is the migration?", Header: "Two  words",
		Options: []answer.Option{{Label: "Low"}, {Label: "⚠️ High"}, {Label: "Unknown"}}}
	for _, chip := range []string{" ☐ Two  words", ` ☐ "Two  words"`} {
		if f, err := screen.Recognize(withRow(snap, y, chip)); err != nil || !f.Shows([]answer.Question{q}, 0) {
			t.Errorf("%q: want the form with header %q, got %v\n%v", chip, q.Header, err, f)
		}
	}
	noRule := withRow(withRow(snap, y, " ☐ Two  words"), y-1, "")
	if f, err := screen.Recognize(noRule); err == nil && f.Header != "" {
		t.Errorf("a chip row under no rule was read as the header %q:\n%v", f.Header, f)
	}
}

// TestNumberKeysRecorded: what an option's number does, on every pinned
// version, as askflow counts on (numberKey): on a single-select question it
// records that option at once and moves on, wherever the focus was; on a
// multi-select one it ticks that option and leaves the focus where it was.
func TestNumberKeysRecorded(t *testing.T) {
	for _, v := range claudetest.Pinned {
		t.Run(v, func(t *testing.T) {
			dir := "../testdata/screens/" + v + "/"
			for _, name := range []string{"digit-single-3", "digit-focus-2-3"} {
				s := replay(t, dir+name+"-100x40.cast", 0)
				if _, err := screen.Recognize(s); err == nil || !strings.Contains(s.Text(), "Which database should we use? → MongoDB") {
					t.Errorf("%s: want no form and MongoDB recorded, got:\n%s", name, s.Text())
				}
			}
			f, err := screen.Recognize(replay(t, dir+"digit-three-3-100x40.cast", 0))
			if err != nil || f.ActiveTab() != 1 || !f.Tabs[0].Answered || !f.MultiSelect ||
				f.Focus != (screen.Focus{Kind: screen.FocusOption, Index: 0}) {
				t.Errorf("3 on three.yaml's first question: want the Features page, Database answered, focus on option 1; got %v\n%v", err, f)
			}
			f, err = screen.Recognize(replay(t, dir+"digit-multi-2-100x40.cast", 0))
			if err != nil || len(f.Options) != 4 || f.Focus != (screen.Focus{Kind: screen.FocusOption, Index: 0}) {
				t.Fatalf("2 on the Features page: want the page, focus on option 1; got %v\n%v", err, f)
			}
			for _, o := range f.Options {
				if o.Ticked != (o.Number == 2) {
					t.Errorf("2 on the Features page: option %d ticked=%t, want only option 2 ticked", o.Number, o.Ticked)
				}
			}
		})
	}
}

// TestInvisibleText: forms in other scripts, and labels and a header
// holding invisible characters (testdata/scenarios/scripts.yaml). 2.1.266
// and later draw a soft hyphen, a zero-width space, a word joiner and
// U+FEFF as U+FFFD and leave a direction mark out; 2.1.227 and older leave
// them all out. The soft hyphen, one column to the emulator, was compared
// as asked, so the second page was never answered (exit 5) on any version.
func TestInvisibleText(t *testing.T) {
	three := []answer.Question{
		{Question: "Which script first?", Header: "ไทย", Options: opts("ที่นี่ ที่นั่น", "العربية", "עברית", "نیم\u200cفاصله")},
		{Question: "Which ones?", Header: "한국어", MultiSelect: true, Options: opts("한국어", "ＡＢＣ", "zero\u200bwidth", "soft\u00adhyphen")},
		{Question: "Which mark?", Header: "Zero\u200bW", Options: opts("word\u2060joiner", "\u200fRTL mark", "BOM\ufeff here", "no\u00a0break")},
	}
	hindi := []answer.Question{{Question: "कौन सी भाषा?", Header: "हिन्दी", Options: opts("हिन्दी में", "नमस्ते", "English")}}
	pages := []headerPage{
		{"tabs-80x40", three, 0},
		{"tabs-invisible-80x40", three, 1},
		{"tabs-marks-80x40", three, 2},
		{"devanagari-80x40", hindi, 0},
		{"devanagari-100x30", hindi, 0},
	}
	for _, v := range claudetest.Pinned {
		t.Run(v, func(t *testing.T) {
			for _, p := range pages {
				f, err := screen.Recognize(replay(t, "../testdata/screens/"+v+"/scripts-"+p.file+".cast", 0))
				if err != nil {
					t.Errorf("%s: Recognize: %v", p.file, err)
					continue
				}
				if !f.Shows(p.qs, p.page) {
					t.Errorf("%s: the page does not show question %d: %q", p.file, p.page+1, f.Disagreements(p.qs[p.page]))
				}
				// A visible character more in any label is told.
				for i := range p.qs[p.page].Options {
					changed := slices.Clone(p.qs)
					changed[p.page].Options = slices.Clone(changed[p.page].Options)
					changed[p.page].Options[i].Label += "x"
					if f.Shows(changed, p.page) {
						t.Errorf("%s: the page shows option %d as %q", p.file, i+1, changed[p.page].Options[i].Label)
					}
				}
			}
		})
	}
}

// TestKeycap: Claude Code measures a keycap ("1️⃣", drawn "1⃣" from 2.1.266
// on) as two columns, a terminal as one; 2.1.266 to 2.1.321 draw an option
// row of the preview layout as one run (" 1⃣ First      "), so the rest of
// the row came a column short of where Claude meant it and a stale letter
// was left at its end ("1 First      e", then "1 Firstt" once focused).
// Random forms run 48 (seed 1764130000, s005 at 60x27 on 2.1.266): the
// page never agreed with the form; after 20 s and a redraw the move to
// option 3 was refused (exit 5). The emulator gives a keycap two columns.
func TestKeycap(t *testing.T) {
	box := "+---------------+\n| nav           |\n+---------------+\n| main          |"
	long := func(n int) string {
		var b []string
		for i := 1; i <= n; i++ {
			b = append(b, fmt.Sprintf("line %d of a long preview", i))
		}
		return strings.Join(b, "\n")
	}
	q := answer.Question{Question: "भाग 2 के लिए कौन सा log format?", Header: "soft\u00adhy", Options: []answer.Option{
		{Label: `"Quoted"`, Description: "⚠️ Read this first", Preview: box},
		{Label: "1️⃣ First", Description: "⚠️ Read this first", Preview: long(13)},
		{Label: "Light", Description: "Embedded, simple", Preview: long(12)},
		{Label: "☐ box", Preview: "just content"}}}
	file := "../testdata/screens/2.1.266/stress-1764130000-s005-60x27.cast"
	for _, tc := range []struct {
		at    float64
		focus int
	}{{0.75, 0}, {-1, 1}} { // the page drawn, then Down
		f, err := screen.Recognize(replayAt(t, file, 0, tc.at))
		if err != nil {
			t.Fatalf("at %v: %v", tc.at, err)
		}
		if d := f.Disagreements(q); len(d) != 0 {
			t.Errorf("at %v: %q\n%v", tc.at, d, f)
		}
		if f.Focus.Kind != screen.FocusOption || f.Focus.Index != tc.focus {
			t.Errorf("at %v: focus %v, want option %d", tc.at, f.Focus, tc.focus+1)
		}
	}
	// The keycap's second column, in a run and alone; with VS16 too; a
	// digit and a keycap mark apart are not one.
	for _, tc := range []struct{ in, want string }{
		{"xxxxxxxxxx\r1⃣ First", "1  Firstxx"},
		{"xxxxxxxxxx\r1️⃣ First", "1  Firstxx"},
		{"xxxxxxxxxx\r#⃣|", "# |xxxxxxx"},
		{"xxxxxxxxxx\r12⃣|", "12 |xxxxxx"},
		{"xxxxxxxxxx\rA⃣|", "A|xxxxxxxx"},
		{"xxxxxxxxxx\r1\x1b[m⃣|", "1|xxxxxxxx"},
	} {
		em := screen.New(screen.Options{Cols: 20, Rows: 2})
		em.Write([]byte(tc.in))
		if got := strings.TrimRight(strings.Split(em.Snapshot().Text(), "\n")[0], " "); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSpacingMarks: Claude Code 2.1.321 and older measure a spacing mark (a
// Devanagari vowel sign) as part of its letter, and draw a word after one
// where they measured it to end ("हिन्दी" three columns, then "में" over
// its end: random forms run 39, on 2.1.197 to 2.1.321); the emulator,
// told the version by Claude's banner, gives such a mark no cell. Before,
// the label read "हिनदम" and the form was refused (exit 5).
func TestSpacingMarks(t *testing.T) {
	for _, tc := range []struct {
		file string
		q    answer.Question
	}{
		{"2.1.321/stress-1764087800-s006-196x27", answer.Question{Question: "1. Which API style? (1)", Header: "Format", MultiSelect: true,
			Options: opts(`Say "hi"`, "❤️ Favourite", "हिन्दी में", "Write everything to an append-only log and derive the views from it nightly")}},
		{"2.1.266/stress-1764087800-s001-104x39", answer.Question{Question: "Review your answers about the deployment target (8)?", Header: "架构",
			MultiSelect: true, Options: opts("テスト駆動", "हिन्दी में", "Yes, and always", "Rolling")}},
	} {
		f, err := screen.Recognize(replay(t, "../testdata/screens/"+tc.file+".cast", 0))
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		if d := f.Disagreements(tc.q); len(d) != 0 {
			t.Errorf("%s: %q\n%v", tc.file, d, f)
		}
	}
	// ... and a tab title (run 39's s019 on 2.1.266 read "हिनद").
	f, err := screen.Recognize(replay(t, "../testdata/screens/2.1.266/stress-1764087800-s019-50x31.cast", 0))
	if err != nil {
		t.Fatal(err)
	}
	if d := f.TabDisagreements([]string{"हिन्दी", "Tail ", "Review"}); len(d) != 0 {
		t.Errorf("s019: %q\n%v", d, f)
	}
	// The banner decides: a version up to 2.1.321 joins the marks, a later
	// one (and a child with no banner) gives them a column, as terminals do.
	// The logo must be beside the version or under it (narrow terminals),
	// so that a line someone typed does not count.
	// A version known from the install (Options.Version) decides until a
	// banner beside the logo, the running binary's own word, says otherwise.
	// The snapshot says which version it measures by, and whether the
	// marks join (Snapshot.Version, Snapshot.MarksJoin).
	for _, tc := range []struct{ version, banner, want, measured string }{
		{"", " ▐▛███▜▌   Claude Code v2.1.197", "हनद|", "2.1.197"},
		{"", " ▐▛███▜▌   Claude Code v2.1.321", "हनद|", "2.1.321"},
		{"", "           Claude Code v2.1.266\r\n ▐▛███▛█   Opus 5", "हनद|", "2.1.266"},
		{"", " ▐▛███▜▌   Claude Code v2.1.330", "हिनदी|", "2.1.330"},
		{"", " ▐▛███▜▌   Claude Code v3.0.0", "हिनदी|", "3.0.0"},
		{"", "❯ Claude Code v2.1.197", "हिनदी|", ""},
		{"", "", "हिनदी|", ""},
		{"2.1.227", "", "हनद|", "2.1.227"},
		{"2.1.227 (Claude Code)", "  Welcome back!", "हनद|", "2.1.227"},
		{"2.1.321", " ▐▛███▜▌   Claude Code v2.1.330", "हिनदी|", "2.1.330"},
		{"2.1.332", " ▐▛███▜▌   Claude Code v2.1.197", "हनद|", "2.1.197"},
		{"2.1.321", "╭─── Claude Code v2.1.321 ───╮\r\n│  Welcome back!  │\r\n│     ▐▛███▜▌     │", "हनद|", "2.1.321"},
		{"2.1.332", "╭─── Claude Code v2.1.197 ───╮\r\n│  Welcome back!  │\r\n│     ▐▛███▜▌     │", "हिनदी|", "2.1.332"},
		{"2.1", " ▐▛███▜▌   Claude Code v2.1.197", "हनद|", "2.1.197"},
		{"v2.1.197", "", "हिनदी|", ""},
	} {
		em := screen.New(screen.Options{Cols: 40, Rows: 6, Version: tc.version})
		em.Write([]byte(tc.banner + "\r\n\x1b[3Gहिन्दी|"))
		snap := em.Snapshot()
		rows := strings.Split(snap.Text(), "\n")
		if got := strings.TrimSpace(rows[strings.Count(tc.banner, "\n")+1]); got != tc.want {
			t.Errorf("version %q, after %q: %q, want %q", tc.version, tc.banner, got, tc.want)
		}
		if snap.Version != tc.measured || snap.MarksJoin != (tc.want == "हनद|") {
			t.Errorf("version %q, after %q: snapshot measures by %q, marks join %t; want %q, %t",
				tc.version, tc.banner, snap.Version, snap.MarksJoin, tc.measured, tc.want == "हनद|")
		}
	}
	// The banner is read as its row is left: a snapshot taken before then
	// is not returned again after it.
	em := screen.New(screen.Options{Cols: 40, Rows: 4})
	em.Write([]byte(" ▐▛███▜▌   Claude Code v2.1.197"))
	before := em.Snapshot()
	em.Write([]byte("\r\n"))
	if after := em.Snapshot(); before.MarksJoin || before.Version != "" || !after.MarksJoin || after.Version != "2.1.197" || after.Seq == before.Seq {
		t.Errorf("before the line feed: %t %q (seq %d); after: %t %q (seq %d); want false \"\", then true \"2.1.197\" with a new seq",
			before.MarksJoin, before.Version, before.Seq, after.MarksJoin, after.Version, after.Seq)
	}
	// A word drawn where 2.1.321 measured the one before it to end covers
	// a letter of it unless the marks are joined ("किताब" is three columns
	// to it, five to a terminal).
	em = screen.New(screen.Options{Cols: 40, Rows: 4})
	em.Write([]byte(" ▐▛███▜▌   Claude Code v2.1.321\r\n\x1b[3Gकिताब\x1b[7Gहै"))
	if got := strings.Split(em.Snapshot().Text(), "\n")[1]; screen.Squash(got) != screen.Squash("किताब है") {
		t.Errorf("%q, want किताब है as the screen shows it", got)
	}
}

// TestTypable: typed text is confirmed as SquashTyped leaves it, so it may
// hold spacing marks, but not only them (a doubled copy would confirm), nor
// anything else Squash leaves out (review of 260b462).
func TestTypable(t *testing.T) {
	for s, want := range map[string]bool{
		"hello": true, "किताब, ทำงาน": true, "数据库 🚀": true,
		"ा": false, "ाा ि": false, "": false, "  ": false,
		"👍🏽 fine": false, "soft\u00adhyphen": false, "e\u0301te\u0301": false,
	} {
		if got := screen.Typable(s); got != want {
			t.Errorf("Typable(%q) = %t, want %t", s, got, want)
		}
	}
	if screen.SquashTyped("ाा") != screen.SquashTyped("ा") || screen.SquashTyped("कि ता") != "कत" {
		t.Errorf("SquashTyped: %q %q", screen.SquashTyped("ाा"), screen.SquashTyped("कि ता"))
	}
}

// TestCheckText: CheckText refuses exactly what Typable does, naming what
// the screen cannot show, on one line; CheckAnswer holds an answer to
// Check and every text it types to CheckText.
func TestCheckText(t *testing.T) {
	for s, want := range map[string]string{
		"hello": "", "किताब, ทำงาน": "", "数据库 🚀": "", "ship it\n": "",
		"ok 👍🏽":            "a skin tone (U+1F3FD)",
		"ok \xff":          "not valid UTF-8",
		"ok \ufffd":        "the replacement character",
		"the 👩\u200d🚀":     "a zero-width joiner (U+200D)",
		"a\u200db":         "a zero-width joiner",
		"cafe\u0301":       "a combining mark",
		"keep ❤\ufe0f":     "a variation selector",
		"soft\u00adhyphen": "an invisible character",
		"tab\x07":          "a control character",
		"ाा ि":             "white space and spacing marks",
		"  ":               "white space and spacing marks",
	} {
		err := screen.CheckText(s)
		if (err == nil) != screen.Typable(s) {
			t.Errorf("CheckText(%q) = %v, but Typable says %t", s, err, screen.Typable(s))
		}
		switch {
		case want == "" && err != nil:
			t.Errorf("CheckText(%q) = %v, want nil", s, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("CheckText(%q) = %v, want one line saying %q", s, err, want)
		}
	}
	q := answer.Question{Question: "Which database?", Header: "Database", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}
	for _, tc := range []struct {
		d    answer.Decision
		want string
	}{
		{answer.Decision{Action: answer.Type, Text: "We use SQLite 🚀"}, ""},
		{answer.Decision{Action: answer.Type, Text: "ok 👍🏽"}, "a skin tone"},
		{answer.Decision{Action: answer.Chat, Text: "two\nlines 👩\u200d🚀"}, "a zero-width joiner"},
		{answer.Decision{Action: answer.Chat, Text: "two\nlines"}, ""},
		{answer.Decision{Action: answer.Chat}, ""},
		{answer.Decision{Action: answer.Select, Labels: []string{"Oracle"}}, "not offered"},
		{answer.Decision{Action: answer.Type, Text: "two\nlines"}, "one line"},
	} {
		err := screen.CheckAnswer(q, tc.d)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckAnswer(%v) = %v, want %q", tc.d, err, tc.want)
		}
	}
}

// TestResizeCutQuestion: random forms run 54 (2.1.266 s035): a resize to 80
// columns met the Tab that left a one-question multi-select page. Until
// Claude drew at the new width, the page showed cut to it, its question's
// first line with it: recognised, not asking the question, but resembling
// it (the same header and options), so not gone. Then the review page.
func TestResizeCutQuestion(t *testing.T) {
	q := answer.Question{Header: "Scope", MultiSelect: true,
		Question: "Which release cadence should we adopt for item 5, knowing that whatever we choose will be hard to change later and that the migration path matters?",
		Options:  []answer.Option{{Label: "数据库 分离 🚀"}, {Label: "zero\u200bwidth"}}}
	file := "../testdata/screens/2.1.266/stress-1764150000-s035-100x45.cast"
	f, err := screen.Recognize(replayAt(t, file, 0, 2.8210))
	if err != nil {
		t.Fatalf("cut to 80 columns: %v", err)
	}
	if f.Asks(q) || !f.Resembles(q) {
		t.Errorf("cut to 80 columns: asks %t, resembles %t; want false, true\n%v", f.Asks(q), f.Resembles(q), f)
	}
	if f, err := screen.Recognize(replayAt(t, file, 0, 2.83)); err != nil || f.Review == nil {
		t.Errorf("drawn at 80 columns: %v, want the review page\n%v", err, f)
	}
	other := q
	other.Header = "Scale"
	if f.Resembles(other) {
		t.Errorf("resembles a question with another header")
	}
	other = q
	other.Options = []answer.Option{{Label: "数据库 分离 🚀"}, {Label: "one width"}}
	if f.Resembles(other) {
		t.Errorf("resembles a question with other options")
	}
}

// TestResizeCutLabel: random forms run 89 (2.1.330 s034): resizes to 73,
// then 104 columns met the Tab that left a one-question multi-select page
// drawn at 122. Cut to 73 columns, the page lost the end of its question
// and of its first option's label ("… logical replication to", for "…
// logical replication to a read replica"); taken for gone, the form was
// reported submitted, and the review page then waited for ever (exit 5).
// It resembles the question; another label does not.
func TestResizeCutLabel(t *testing.T) {
	q := answer.Question{Header: "עברית", MultiSelect: true,
		Question: "Which build tool should we adopt for item 1, considering the constraints of the payments service, its latency budget and the on-call rota?",
		Options: []answer.Option{{Label: "A single shared PostgreSQL instance with logical replication to a read replica", Description: "Embedded, simple"},
			{Label: "Search", Description: "❯ not a pointer"}}}
	file := "../testdata/screens/2.1.330/stress-1764520000-s034-80x40.cast"
	for _, at := range []float64{5.69, 5.73} {
		f, err := screen.Recognize(replayAt(t, file, 0, at))
		if err != nil {
			t.Fatalf("at %.2fs: %v", at, err)
		}
		if f.Asks(q) || !f.Resembles(q) {
			t.Errorf("at %.2fs, cut to 73 columns: asks %t, resembles %t; want false, true\n%v", at, f.Asks(q), f.Resembles(q), f)
		}
		other := q
		other.Options = []answer.Option{{Label: "A single shared PostgreSQL instance with logical replica"}, {Label: "Search"}}
		if f.Resembles(other) {
			t.Errorf("at %.2fs: resembles a question whose first label is not the start of the one cut", at)
		}
		if len(f.Disagreements(q)) == 0 {
			t.Errorf("at %.2fs: the cut page agrees with the question: a label cut must still disagree", at)
		}
	}
	if f, err := screen.Recognize(replayAt(t, file, 0, 5.9)); err != nil || f.Review == nil {
		t.Errorf("drawn at 104 columns: %v, want the review page\n%v", err, f)
	}
}

// TestSwapAfterSibling: Claude Code 2.1.197 painted the form asked last
// of two asked together ("Which release cadence…", a single-select) over
// the one on the screen ("Review your answers…", a multi-select) 1.297 s
// into the recording, about 200 ms after its hook, with two sessions on
// two cores (random forms run 66, seed 1764270000, s029). claudewrap's
// tick for the multi-select went 6 ms before, after the 200 ms wait it
// then gave such a form, and picked the single-select's second option.
// askflow now waits a second from the other form's hook (siblingAge);
// this recording keeps the two frames, each read as its own form.
func TestSwapAfterSibling(t *testing.T) {
	const rec = "../testdata/screens/2.1.197/stress-1764270000-s029-160x33.cast"
	for _, tc := range []struct {
		at       float64
		question string
		multi    bool
	}{
		{1.29, "Review your answers about the auth provider (3)?", true},
		{-1, "Which release cadence should we adopt for item 2, knowing that whatever we choose will be hard to change later and that the migration path matters?", false},
	} {
		f, err := screen.Recognize(replayAt(t, rec, 0, tc.at))
		if err != nil || f.Question != tc.question || f.MultiSelect != tc.multi {
			t.Errorf("at %v s: %v, want the form %q (multi-select %v)\n%v", tc.at, err, tc.question, tc.multi, f)
		}
	}
}

// TestSquashedNumberBox: random forms run 72, s000 (2.1.332, 53x24, every
// version): a preview question whose labels are single words too long for
// the column. Claude squeezes the option's number box: " N." wraps, its dim
// space alone on the row above "N.", on which the label begins; a label
// whose first line is empty leaves that row blank but for the dim space.
// Read as the options they are (the form before was read so already), and
// as the very form the hook describes, focus on option 2 after a Down.
func TestSquashedNumberBox(t *testing.T) {
	const rec = "../testdata/screens/2.1.332/stress-1764350000-s000-53x24.cast"
	q := answer.Question{Question: "Which deployment target should we adopt for item 11, given that the team is small, the budget is fixed and we must ship before the end of the quarter?",
		Header: " Space ", Options: []answer.Option{
			{Label: "averyveryverylongidentifierwithoutanyspacesorpunctuationatallinsideit", Preview: "x"},
			{Label: `C:\Users\name\project`},
			{Label: "https://example.com/a/very/long/path/that/does/not/break/anywhere/at/all/and/keeps/going", Preview: "x"},
			{Label: "/usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js", Preview: "x"},
		}}
	f, err := screen.Recognize(replay(t, rec, 0))
	if err != nil {
		t.Fatal(err)
	}
	if d := f.Disagreements(q); len(d) > 0 || !f.Asks(q) || f.Focus.Kind != screen.FocusOption || f.Focus.Index != 1 {
		t.Errorf("read as %v; disagreements %q, focus %+v", f, d, f.Focus)
	}
}

// TestWrappedEmojiEllipsis: random forms run 73, s025 (111x37, every
// version): a review page whose multi-select answer wraps where
// "👨‍💻 Dev laptop" begins. Claude left the emoji at the row's end, where
// it did not fit: 2.1.332 drew "…" in its place, 2.1.197 nothing, and
// "Dev laptop" on the next row. The page is read as it shows, the row
// that reached the edge marked, and the intended answer is the one it lists.
func TestWrappedEmojiEllipsis(t *testing.T) {
	q := answer.Question{Question: "Which storage backend should we use for part 3?\nWe need to decide today.", MultiSelect: true}
	d := answer.Decision{Action: answer.Select, Labels: []string{"1️⃣ First", "Keep the current setup and revisit the question after the next quarterly planning", "↓ 4. more", "👨\u200d💻 Dev laptop"}}
	for _, tc := range []struct{ rec, end string }{
		{"../testdata/screens/2.1.332/stress-1764360000-s025-111x37.cast", "more, …\nDev laptop"},
		{"../testdata/screens/2.1.197/stress-1764360000-s025-111x37.cast", "more,\nDev laptop"},
	} {
		rv := reviewOf(t, tc.rec, 4)
		a := rv.Answers[0]
		if !strings.HasSuffix(a.Answer, tc.end) {
			t.Errorf("%s: answer read %q; the recording shows %q", tc.rec, a.Answer, tc.end)
		}
		silent := rv.Silent
		if silent != strings.Contains(tc.rec, "2.1.197") {
			t.Errorf("%s: silent %t", tc.rec, silent)
		}
		if !screen.SameWrapped(a.Question, q.Question, silent) || !slices.ContainsFunc(d.Renderings(true), func(w string) bool { return screen.SameWrapped(a.Answer, w, silent) }) {
			t.Errorf("%s: review entry %q -> %q not read as %q -> %q", tc.rec, a.Question, a.Answer, q.Question, d.Renderings(true))
		}
	}
}

// TestSameWrapped: at the end of a row that reached the right edge ("\n"),
// "…" may stand for the rest of the word asked there on a row holding odd
// text (2.1.266 and later), and nothing for the rest of a word holding odd
// text (silent: 2.1.227 and older); nothing else may be missing, nor
// anywhere else.
func TestSameWrapped(t *testing.T) {
	const E, S = false, true // "…" drawn; silent
	for _, tc := range []struct {
		shown, asked string
		silent, want bool
	}{
		{"more, …\nDev laptop", "more, 👨\u200d💻 Dev laptop", E, true}, // 2.1.332, run 73
		{"more,\nDev laptop", "more, 👨\u200d💻 Dev laptop", S, true},   // 2.1.197
		{"more, …\nDev laptop", "more, 1️⃣ Dev laptop", E, true},
		{"more,\nDev laptop", "more, ❤️ Dev laptop", S, true},
		{"more,\nDev laptop", "more, 👍🏽 Dev laptop", S, true},
		{"more, …\n", "more, 👨\u200d💻", E, true},
		{"Python, नम…\n", "Python, नमस्ते", E, true}, // run 75
		{"Python, नम…\nworld", "Python, नमस्ते world", E, true},
		{"Python, नम\n", "Python, नमस्ते", S, true}, // 2.1.197
		{"Python, नम\nworld", "Python, नमस्ते world", S, true},
		{"नमस्ते, Py…\n", "नमस्ते, Python", E, true}, // odd text earlier on the row
		{"Wait…", "Wait…", E, true},
		{"Wait…\nthere", "Wait… there", E, true},
		{"Wait…\nthere", "Wait… there", S, true},
		{"Dev lap\ntop", "Dev laptop", E, true},
		{"Dev lap top", "Dev laptop", S, true},
		{"cafe\u0301\nDev", "cafe\u0301 Dev", E, true},
		{"Auth,\nFast", "Auth, Fast", S, true},

		{"more,\nDev laptop", "more, 👨\u200d💻 Dev laptop", E, false},   // nothing drawn where "…" would be
		{"more, …\nDev laptop", "more, 👨\u200d💻 Dev laptop", S, false}, // "…" where none is drawn
		{"Python, नम\n", "Python, नमस्ते", E, false},
		{"more, …", "more, 👨\u200d💻", E, false},                       // a row short of the edge
		{"Python, नम…", "Python, नमस्ते", E, false},                   // the same
		{"more, … Dev laptop", "more, 👨\u200d💻 Dev laptop", E, false}, // the same
		{"Later…", "Later ⏳", E, false},                               // the same
		{"Python, नम…\n", "Python, नमस्ते world", E, false},           // the rest of the word only
		{"Python, नम…\n", "Python, नमक", E, false},                    // nothing odd on the row
		{"Python, नम\n", "Python, नमक", S, false},
		{"Python, …\n", "Python,", E, false},                    // "…" stands for something
		{"A, …\nB", "A, C, B", E, false},                        // nothing odd on the row
		{"more, …\nDev laptop", "more, 🚀 Dev laptop", E, false}, // one code point: measured alike
		{"more,\nDev laptop", "more, 🚀 Dev laptop", S, false},
		{"数据\n说明", "数据库说明", S, false},                         // so is a wide letter
		{"Auth, Fast", "Auth, 👨\u200d💻 Fast", S, false},       // not at a row's end
		{"Go,\nRust", "Go, नमस्ते, Rust", E, false},           // a label left out, no "…"
		{"1️⃣ First,\nRust", "1️⃣ First, Go, Rust", S, false}, // a plain label lost whole, odd text before it
		{"1️⃣ First, …\nRust", "1️⃣ First, Go, Rust", E, false},
		{"1️⃣ First,\nRust", "1️⃣ First, ❤️, Rust", S, true},                  // an odd one, as short: not told
		{"Go,\nRust", "Go, नमस्ते, Rust", S, false},                           // the same: longer than a wrap loses
		{"Python,\n", "Python, नमस्ते", S, false},                             // four lost
		{"more,\nDev laptop", "more, 👨\u200d💻 👨\u200d💻 Dev laptop", S, false}, // one word only
		{"more, …\nDev laptop", "more, Dev laptop", E, false},
		{"more, 👨\u200d💻\nDev laptop", "more, … Dev laptop", E, false},
		{"Dev laptop", "Dev laptops", E, false},
		{"Auth,\n", "Auth, Fast", S, false},
		{"Auth, Fa\n", "Auth, Fast", S, false},
		{"किab\n", "किabc", S, true},              // odd text on the row, a little lost
		{"ab\n", "abc", S, false},                 // nothing odd on the row
		{"tab        he\n", "tab\there", S, true}, // run 76, s035
		{"tab he\n", "tab here", S, false},
		{"caf\nDev", "cafe\u0301 Dev", S, false}, // an accent is not odd
		{"caf\nDev", "cafe\u200d Dev", S, false}, // nor a ZWJ after a letter
		{"mor\nDev", "more \ufe0fDev", S, false}, // nor a VS16 after a space
	} {
		if got := screen.SameWrapped(tc.shown, tc.asked, tc.silent); got != tc.want {
			t.Errorf("SameWrapped(%q, %q, silent %t) = %t, want %t", tc.shown, tc.asked, tc.silent, got, tc.want)
		}
	}
}

// TestWrappedDevanagari: random forms run 75, s006 (97x35, every version):
// a review page whose answer ends with "नमस्ते" at the row's end. Claude
// laid the row out as fitting and drew "नम…" (2.1.332) or "नम" (2.1.197),
// the rest of the word lost; the page is read so, and the intended answer
// is the one it lists, not one with more after it or less.
func TestWrappedDevanagari(t *testing.T) {
	const want = "A single shared PostgreSQL instance with logical replication to a read replica, Python, नमस्ते"
	for _, tc := range []struct{ rec, end string }{
		{"../testdata/screens/2.1.332/stress-1764380000-s006-97x35.cast", "नम…\n"},
		{"../testdata/screens/2.1.197/stress-1764380000-s006-97x35.cast", "नम\n"},
	} {
		rv := reviewOf(t, tc.rec, 2)
		a := rv.Answers[1]
		silent := rv.Silent
		if !strings.HasSuffix(a.Answer, tc.end) || !screen.SameWrapped(a.Answer, want, silent) {
			t.Errorf("%s: answer read %q, not as %q", tc.rec, a.Answer, want)
		}
		if screen.SameWrapped(a.Answer, want+", Go", silent) || screen.SameWrapped(a.Answer, "A single shared PostgreSQL instance with logical replication to a read replica, Python", silent) ||
			screen.SameWrapped(a.Answer, "A single shared PostgreSQL instance with logical replication to a read replica, Python, नमक", silent) {
			t.Errorf("%s: answer read %q taken for another", tc.rec, a.Answer)
		}
	}
}

// TestWrappedTab: random forms run 76, s035 (2.1.197, 50x30; 2.1.227 too):
// a review page whose answer "plain here, \tleading tab, tab\there" holds
// tabs, which Claude measures narrower than the terminal draws them: its
// row drawn "… tab        he", the "re" lost, nothing in its place. Read
// as the intended answer; a plain row losing as much is not.
func TestWrappedTab(t *testing.T) {
	rv := reviewOf(t, "../testdata/screens/2.1.197/stress-1764390000-s035-50x30.cast", 1)
	if !rv.Silent {
		t.Errorf("2.1.197 not silent")
	}
	a := rv.Answers[0].Answer
	if !strings.HasSuffix(a, "he\n") || !screen.SameWrapped(a, "plain here, \tleading tab, tab\there", true) {
		t.Errorf("answer read %q, not as intended", a)
	}
	if screen.SameWrapped(a, "plain here, \tleading tab, tab\there, Go", true) {
		t.Errorf("answer read %q taken for one with more", a)
	}
}

// TestVimInsert: with Claude's vim mode on (editorMode "vim"), 2.1.321 and
// later type "Type something" in insert mode, where Esc leaves the mode: the
// footer begins "-- INSERT -- · " and does not offer "Esc to cancel". The
// page is the form's all the same, its focus on the row, the text read;
// older versions draw the plain footer.
func TestVimInsert(t *testing.T) {
	for _, v := range claudetest.Pinned {
		for _, tc := range []struct{ rec, text string }{
			{"vim-other-focus-100x40", ""},
			{"vim-other-focus-50x30", ""},
			{"vim-other-typed-100x40", "We use SQLite for now"},
		} {
			rec := "../testdata/screens/" + v + "/" + tc.rec + ".cast"
			f, err := screen.Recognize(replay(t, rec, 0))
			if err != nil {
				t.Errorf("%s: %v", rec, err)
				continue
			}
			insert := strings.HasPrefix(f.Footer, "-- INSERT -- · ")
			if n, _ := strconv.Atoi(strings.Split(v, ".")[2]); insert != (n >= 321) {
				t.Errorf("%s: footer %q: insert mode %v", rec, f.Footer, insert)
			}
			if f.Focus.Kind != screen.FocusOther || f.Other == nil || f.Other.Placeholder != (tc.text == "") || !f.Other.Placeholder && f.Other.Text != tc.text {
				t.Errorf("%s: focus %+v, row %+v", rec, f.Focus, f.Other)
			}
		}
	}
}

// TestReviewArrowAlone: random forms run 81, s017 (2.1.332, 73x24, the
// fullscreen renderer): a review entry whose answer, a multi-select's
// "averyvery…insideit", "a.b.c…" and "/usr/local/…/cli.js", begins with a
// word that does not fit after the arrow, drawn alone on its row. The rows
// after it are the answer, not the question's.
func TestReviewArrowAlone(t *testing.T) {
	const (
		question = "Which storage backend should we use for part 7?"
		want     = "averyveryverylongidentifierwithoutanyspacesorpunctuationatallinsideit, a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z, /usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js"
	)
	rv := reviewOf(t, "../testdata/screens/2.1.332/stress-1764440000-s017-73x24.cast", 2)
	a := rv.Answers[0]
	if a.Question != question || !screen.SameWrapped(a.Answer, want, rv.Silent) {
		t.Errorf("read %q -> %q, want %q -> %q", a.Question, a.Answer, question, want)
	}
	if screen.SameWrapped(a.Answer, strings.TrimSuffix(want, ", /usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js"), rv.Silent) {
		t.Errorf("answer %q taken for one without its last label", a.Answer)
	}
}

// reviewOf is the review page recording rec ends on, focus on Submit,
// listing n answers.
func reviewOf(t *testing.T, rec string, n int) *screen.Review {
	t.Helper()
	f, err := screen.Recognize(replay(t, rec, 0))
	if err != nil {
		t.Fatal(err)
	}
	if f.Review == nil || len(f.Review.Answers) != n || f.Focus.Kind != screen.FocusSubmit {
		t.Fatalf("%s: read as %v, focus %+v", rec, f, f.Focus)
	}
	return f.Review
}

// TestPointerHover: Claude's fullscreen renderer reports the pointer (?1003h).
// With it over option 3 the focus stays on row 1, and Enter chooses row 1,
// on every pinned version; 2.1.332 shades the row under the pointer, and
// before 2.1.299 a second "❯" marks it, which leaves the focus unread (what
// screen.Typed's version rule for the pointer rests on).
func TestPointerHover(t *testing.T) {
	for _, v := range claudetest.Pinned {
		rec := "../testdata/screens/" + v + "/fullscreen-hover-100x25.cast"
		s := replay(t, rec, 0)
		f, err := screen.Recognize(s)
		if err != nil {
			t.Errorf("%s: %v", rec, err)
			continue
		}
		marked := strings.Contains(s.Text(), "❯ 3. MongoDB")
		if marked == screen.PointerInert(v) || !marked && (f.Focus.Kind != screen.FocusOption || f.Focus.Index != 0) || marked && f.Focus.Kind != screen.FocusUnknown {
			t.Errorf("%s: option 3 marked %t, focus %+v", rec, marked, f.Focus)
		}
		rec = "../testdata/screens/" + v + "/fullscreen-hover-enter-100x25.cast"
		if txt := replay(t, rec, 0).Text(); !strings.Contains(txt, "Which database should we use? → PostgreSQL") {
			t.Errorf("%s: Enter with the pointer over option 3 did not choose row 1:\n%s", rec, txt)
		}
	}
}

// TestSameBesidePointer: drawn fullscreen, 2.1.299 and later shade the row
// under the pointer and move the logo's eyes after it, and draw nothing
// else for it; SameBesidePointer leaves both out. Moving the focus is a
// change.
func TestSameBesidePointer(t *testing.T) {
	for _, tc := range []struct {
		version string
		at      []float64 // the pointer's reports came at the first
	}{
		{"2.1.332", []float64{2.189543, 2.22, 2.425, 2.617, 2.89}},
		{"2.1.330", []float64{2.534214, 2.63, 2.78, 2.957, 3.156, 3.357}},
		{"2.1.321", []float64{1.85381, 1.985, 2.217, 2.422, 2.754}},
		{"2.1.299", []float64{2.44417, 2.476, 2.977, 3.392, 3.683}},
	} {
		rec := "../testdata/screens/" + tc.version + "/fullscreen-hover-100x25.cast"
		before := replayAt(t, rec, 0, tc.at[0])
		moved := false
		for _, at := range tc.at[1:] {
			s := replayAt(t, rec, 0, at)
			moved = moved || s.Text() != before.Text()
			if !screen.SameBesidePointer(before, s) {
				t.Errorf("%s at %.3fs: not the same beside the pointer\n%s\n---\n%s", rec, at, before.Text(), s.Text())
			}
		}
		if !moved {
			t.Errorf("%s: the logo never moved after the pointer: the test shows nothing", rec)
		}
	}
	// Random forms run 87, s032 on 2.1.330: after a chat, Claude's prompt
	// empty while the pointer kept moving over the conversation, whose
	// last answer's "⎿" changed colour under it, for ever.
	rec := "../testdata/screens/2.1.330/stress-1764500000-s032-73x42.cast"
	first := replayAt(t, rec, 0, 23.82)
	if p, ok := screen.Prompt(first); !ok || p != "" {
		t.Fatalf("%s at 23.82s: prompt %q (shown %v), want it empty", rec, p, ok)
	}
	for _, at := range []float64{23.91, 24.06, 25.11} { // its "⎿" plain, coloured at 23.82
		s := replayAt(t, rec, 0, at)
		if slices.EqualFunc(first.Cells, s.Cells, slices.Equal) || !screen.SameBesidePointer(first, s) {
			t.Errorf("%s at %.2fs: not the same beside the pointer\n%s", rec, at, s.Text())
		}
	}
	// A character changed on the focused row (the focus moving changes
	// two), or right of the logo on the banner's row: a change.
	a := replay(t, "../testdata/screens/2.1.330/fullscreen-hover-100x25.cast", 0)
	for _, text := range []string{"❯ 1. PostgreSQL", "Claude Code v"} {
		if b, ok := flipped(a, text); !ok || screen.SameBesidePointer(a, b) {
			t.Errorf("%q changed (found %v): taken for the same beside the pointer", text, ok)
		}
	}
}

// flipped returns s with the first character of text, on the first row
// that holds it, changed; its rows before text hold no wide character.
func flipped(s vt.Snapshot, text string) (vt.Snapshot, bool) {
	for y := range s.Cells {
		line := s.Line(y)
		if i := strings.Index(line, text); i >= 0 {
			x := utf8.RuneCountInString(line[:i])
			row := slices.Clone(s.Cells[y])
			row[x].Char++
			s.Cells = slices.Clone(s.Cells)
			s.Cells[y] = row
			return s, true
		}
	}
	return s, false
}
