package screen_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/internal/testsupport/randscreen"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// randomShapes is how many random screens TestRandomShapes reads (a tenth
// with -short), from seed 1 on.
const randomShapes = 4000

// drawShape feeds a random screen's output to an emulator of its size in
// chunks of a size its seed picks (whole, one byte, or up to 64 bytes, so
// that escape sequences and characters are split).
func drawShape(sc randscreen.Screen) vt.Snapshot {
	r := rand.New(rand.NewPCG(uint64(sc.Seed), 7))
	em := screen.New(screen.Options{Cols: sc.Cols, Rows: sc.Rows})
	out := sc.Output
	for len(out) > 0 {
		n := len(out)
		switch r.IntN(3) {
		case 0:
			n = 1
		case 1:
			n = 1 + r.IntN(64)
		}
		n = min(n, len(out))
		_, _ = em.Write(out[:n])
		out = out[n:]
	}
	return em.Snapshot()
}

// noSpace is s without white space: a long word the screen broke at a
// line's end reads whole.
func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// misread says how d, read off sc's screen, differs from what sc drew; ""
// when it does not.
func misread(sc randscreen.Screen, d screen.Dialog, ok bool) string {
	if ok != sc.Dialog {
		return fmt.Sprintf("read as a dialog: %v, want %v", ok, sc.Dialog)
	}
	if !ok {
		return ""
	}
	var want []screen.Key
	for _, k := range sc.Keys {
		want = append(want, screen.Key{Key: k.Key, Does: k.Does})
	}
	var diffs []string
	if d.Title != sc.Title || d.Cut != sc.Cut {
		diffs = append(diffs, fmt.Sprintf("title %q (cut %t), want %q (cut %t)", d.Title, d.Cut, sc.Title, sc.Cut))
	}
	if !slices.Equal(d.Options, sc.Options) || d.Focus != sc.Focus {
		diffs = append(diffs, fmt.Sprintf("options %q (focus %d), want %q (focus %d)", d.Options, d.Focus, sc.Options, sc.Focus))
	}
	if !slices.Equal(d.Keys, want) {
		diffs = append(diffs, fmt.Sprintf("keys %q, want %q", d.Keys, want))
	}
	if noSpace(d.Body) != noSpace(sc.Body) {
		diffs = append(diffs, fmt.Sprintf("body %q, want %q", d.Body, sc.Body))
	}
	return strings.Join(diffs, "; ")
}

// TestRandomShapes draws thousands of screens nobody picked
// (internal/testsupport/randscreen), from fixed seeds at 40 to 200 columns
// and 16 to 50 rows, through the emulator in chunks of random sizes: every
// dialog — a box or a rule with a title, a body of random text, key hints,
// a menu or none, a menu with no frame, bodies that scroll or run off the
// top — must be read with its exact title, options, focus and keys, and
// its body; no screen that is no dialog (Claude's input box with typed
// text, its command menu or file suggestions, spinners, tool output, the
// banner) may be read as one. The forms recorded from the real Claude Code
// are replayed in random chunks alongside: never a dialog.
func TestRandomShapes(t *testing.T) {
	n := randomShapes
	if testing.Short() {
		n /= 10
	}
	shapes := map[string]int{}
	var misses []string
	dialogs := 0
	for seed := int64(1); seed <= int64(n); seed++ {
		sc := randscreen.New(seed)
		for _, part := range strings.Split(sc.Shape, "+") {
			shapes[part]++
		}
		if sc.Dialog {
			dialogs++
		}
		snap := drawShape(sc)
		d, ok := screen.ParseDialog(snap)
		if why := misread(sc, d, ok); why != "" {
			misses = append(misses, fmt.Sprintf("%s\n%s\nscreen:\n%s", sc, why, snap.Text()))
		}
	}
	t.Logf("%d random screens, %d dialogs; shapes and their parts %v; %d misread", n, dialogs, shapes, len(misses))
	for i, m := range misses {
		if i == 5 {
			t.Errorf("… and %d more", len(misses)-i)
			break
		}
		t.Errorf("misread: %s", m)
	}

	// The forms and MCP servers' forms recorded, which must stay apart.
	forms := 0
	r := rand.New(rand.NewPCG(1, 2))
	for _, rec := range recordings(t) {
		if r.IntN(4) > 0 && !testing.Short() || r.IntN(20) > 0 && testing.Short() {
			continue
		}
		snap := replay(t, rec, 1+r.IntN(64))
		_, err := screen.Recognize(snap)
		_, elicit := screen.ParseElicitation(snap)
		if err != nil && !elicit {
			continue
		}
		forms++
		if d, ok := screen.ParseDialog(snap); ok {
			t.Errorf("%s: a form read as a dialog: %s", rec, d)
		}
	}
	t.Logf("%d recorded forms replayed in random chunks", forms)
}

// FuzzDialog feeds arbitrary output to an emulator of arbitrary size and
// reads a dialog off it: it must not panic, and a dialog it reads must hold
// together (its options each on a row, the focus on one of them or none
// with no menu, no title when its top is cut, every key named and doing
// something, nothing read while Claude's input box shows). The recordings
// of the real Claude Code and random screens seed it.
func FuzzDialog(f *testing.F) {
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
	for seed := int64(1); seed <= 50; seed++ {
		sc := randscreen.New(seed)
		f.Add(uint16(sc.Cols), uint16(sc.Rows), sc.Output)
	}
	f.Fuzz(func(t *testing.T, cols, rows uint16, in []byte) {
		em := screen.New(screen.Options{Cols: 20 + int(cols)%181, Rows: 5 + int(rows)%46})
		_, _ = em.Write(in)
		snap := em.Snapshot()
		d, ok := screen.ParseDialog(snap)
		if !ok {
			return
		}
		if _, prompt := screen.Prompt(snap); prompt {
			t.Fatalf("a dialog with Claude's input box on the screen: %s", d)
		}
		if len(d.Rows) != len(d.Options) || len(d.Options) == 1 ||
			len(d.Options) == 0 && (d.Focus != -1 || len(d.Keys) == 0) ||
			len(d.Options) > 0 && (d.Focus < 0 || d.Focus >= len(d.Options)) {
			t.Fatalf("options %q on rows %v, focus %d, keys %q", d.Options, d.Rows, d.Focus, d.Keys)
		}
		if d.Cut && d.Title != "" || d.Kind == "" {
			t.Fatalf("cut %t with title %q, kind %q", d.Cut, d.Title, d.Kind)
		}
		for _, k := range d.Keys {
			if k.Key == "" || k.Does == "" {
				t.Fatalf("key %q", k)
			}
		}
		_ = d.String()
	})
}
