//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// sawForm replays the run's recording and reports whether some frame held
// a form for which ok holds: proof that a test met the layout it is about.
func (r *run) sawForm(t *testing.T, ok func(vt.Snapshot, *screen.Form) bool) bool {
	t.Helper()
	f, err := os.Open(r.cast)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, evs, err := cast.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	em := screen.New(screen.Options{Cols: h.Width, Rows: h.Height, Version: h.ClaudeVersion()})
	for _, ev := range evs {
		if err := cast.Play([]cast.Event{ev}, -1, em); err != nil {
			t.Fatal(err)
		}
		if ev.Kind != "o" {
			continue
		}
		s := em.Snapshot()
		if fm, err := screen.Recognize(s); err == nil && ok(s, fm) {
			return true
		}
	}
	return false
}

// answered checks that Claude recorded every want (pairs `"Q"="A"`, any of
// a slice's forms) and that claudewrap verified the form and exited 0.
func (r *run) answered(t *testing.T, id string, want ...[]string) string {
	t.Helper()
	res := r.toolResult(t, id)
	if res.IsError {
		t.Fatalf("tool_result is an error: %q\n%s", res.Content, r)
	}
	for _, w := range want {
		found := false
		for _, alt := range w {
			found = found || strings.Contains(res.Content, alt)
		}
		if !found {
			t.Errorf("tool_result %q lacks %q\n%s", res.Content, w[0], r)
		}
	}
	if len(r.find("verified")) == 0 || r.code != 0 {
		t.Errorf("want a verified event and exit 0\n%s", r)
	}
	return res.Content
}

// TestPreviewWithNotes answers a form whose first question has previews
// (Claude's side-by-side layout) with an option and notes, at a roomy size
// and at a narrow one where Claude squeezes the option column.
func TestPreviewWithNotes(t *testing.T) {
	// Two Claude Code processes at once at most: the versions run side by
	// side, the sizes one after another.
	forVersions(t, func(t *testing.T, version string) {
		for _, size := range []string{"120x40", "50x30"} {
			t.Run(size, func(t *testing.T) {
				r := runClaudewrap(t, version, "testdata/scenarios/preview.yaml", "design the dashboard",
					"--rules", writeRules(t, "  - {when: {header: Layout}, answer: {select: Top bar, notes: keep it collapsible}}\n"+
						"  - {when: {header: Theme}, answer: {select: Dark}}\n"),
					"--size", size, "--exit-after-turn")
				r.answered(t, "toolu_01preview",
					[]string{`"Which layout should the dashboard use?"="Top bar"`},
					[]string{"notes: keep it collapsible"},
					[]string{`"Which theme should it have?"="Dark"`})
				v := r.find("verified")
				if len(v) == 0 || !strings.Contains(strings.ReplaceAll(toJSON(v[0]["notes"]), " ", ""), "keepitcollapsible") {
					t.Errorf("the verified event does not carry the notes Claude recorded\n%s", r)
				}
				if !r.sawForm(t, func(_ vt.Snapshot, f *screen.Form) bool { return f.Preview != nil && f.Preview.Editing }) {
					t.Errorf("the recording never shows the preview layout with notes open\n%s", r)
				}
				report("Claude Code %s: preview layout at %s: option and notes recorded and verified (%d keys)", version, size, len(r.find("key")))
			})
		}
	})
}

// TestShortTerminal answers a two-question form of four options each on a
// 16-row terminal: the form is taller than the screen (its tab row is cut
// off) and the option list scrolls.
func TestShortTerminal(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/tall.yaml", "plan the service",
			"--rules", writeRules(t, "  - {when: {header: Database}, answer: {select: Redis}}\n"+
				"  - {when: {header: Features}, answer: {select: [API, Auth]}}\n"),
			"--size", "60x16", "--exit-after-turn")
		r.answered(t, "toolu_01tall",
			[]string{`"Which database should we use for the new payments service?"="Redis"`},
			[]string{`"Which features should we build first?"="API, Auth"`})
		if !r.sawForm(t, func(_ vt.Snapshot, f *screen.Form) bool { return f.Cut && f.Review == nil }) {
			t.Errorf("the recording never shows a form cut at the top\n%s", r)
		}
		if !r.sawForm(t, func(_ vt.Snapshot, f *screen.Form) bool { return f.MoreAbove || f.MoreBelow }) {
			t.Errorf("the recording never shows a scrolled option list\n%s", r)
		}
		report("Claude Code %s: 16-row terminal, four options, top cut and list scrolled: verified (%d keys)", version, len(r.find("key")))
	})
}

// TestReviewPage answers three questions whose review page wraps a long
// question (2.1.330 draws it behind a bar) and lists a multi-select answer
// whose labels hold ", " and a double quote, which newer Claude Code quotes.
func TestReviewPage(t *testing.T) {
	// Two Claude Code processes at once at most: the versions run side by
	// side, the sizes one after another.
	forVersions(t, func(t *testing.T, version string) {
		for _, size := range []string{"80x40", "200x50"} {
			t.Run(size, func(t *testing.T) {
				r := runClaudewrap(t, version, "testdata/scenarios/review.yaml", "review the plan",
					"--rules", writeRules(t, "  - {when: {header: Deploy}, answer: {select: Canary}}\n"+
						"  - {when: {header: Approvals}, answer: {select: ['Say \"hi\" first', 'Yes, and always']}}\n"+
						"  - {when: {header: Naming}, answer: {select: pay-svc}}\n"),
					"--size", size, "--exit-after-turn")
				r.answered(t, "toolu_01review",
					[]string{`"Which deployment strategy should we adopt for the new payments service, given that it must never be down during business hours and that the team is on call for it?"="Canary"`},
					[]string{`"Which approvals do we need?"=""Say \"hi\" first", "Yes, and always""`,
						`"Which approvals do we need?"="Say "hi" first, Yes, and always"`},
					[]string{`"How should we name the service?"="pay-svc"`})
				barred := r.sawForm(t, func(s vt.Snapshot, f *screen.Form) bool {
					return f.Review != nil && strings.Contains(s.Text(), "│ ● ")
				})
				if !r.sawForm(t, func(_ vt.Snapshot, f *screen.Form) bool { return f.Review != nil && len(f.Review.Answers) == 3 }) {
					t.Errorf("the recording never shows the review page with three answers\n%s", r)
				}
				report("Claude Code %s: review page at %s (question behind a bar: %t), quoted multi-select labels: verified", version, size, barred)
			})
		}
	})
}

// TestChainedForms answers two forms in one turn: the first answer brings
// the second form.
func TestChainedForms(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/chain.yaml", "plan in two steps",
			"--rules", writeRules(t, "  - {when: {header: Database}, answer: {select: SQLite}}\n"+
				"  - {when: {header: Cache}, answer: {select: None}}\n"),
			"--exit-after-turn")
		r.answered(t, "toolu_01chain1", []string{`"Which database should we use?"="SQLite"`})
		r.answered(t, "toolu_01chain2", []string{`"Which cache should sit in front of it?"="None"`})
		if n := len(r.find("verified")); n != 2 {
			t.Errorf("%d verified events, want 2\n%s", n, r)
		}
		report("Claude Code %s: two forms chained in one turn: both verified", version)
	})
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
