package stress

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
	"github.com/claudewrap/claudewrap/rules"
)

// TestGenerateDialogs: the same seed gives the same dialogs; every session
// builds a scenario, its rules load and decide each call as the case says
// once its folders are filled in (decoys never match), asking is only for
// the last call of a session, and every kind of tool and decision is drawn.
func TestGenerateDialogs(t *testing.T) {
	a := GenerateDialogs(3, 200)
	if !reflect.DeepEqual(a, GenerateDialogs(3, 200)) {
		t.Fatal("the same seed gave two plans")
	}
	if short := GenerateDialogs(3, 10); !reflect.DeepEqual(short[0], a[0]) {
		t.Error("the first session differs between counts")
	}
	classes := map[string]int{}
	n := 0
	for _, s := range a {
		if s.Name[0] != 'd' {
			continue // another kind: TestKindSessions
		}
		if s.Cols < 60 || s.Cols > 200 || s.Rows < 16 || s.Rows > 50 || s.Terminal {
			t.Errorf("%s: size %dx%d (terminal %t)", s.Name, s.Cols, s.Rows, s.Terminal)
		}
		r := s.resolved("/p/2.1.1/project", "/p/2.1.1/outside")
		_, f := loadSession(t, r)
		set := &rules.Set{Files: []*rules.File{f}}
		for k, c := range r.Cases {
			n++
			d := c.Dialog
			if d == nil {
				t.Fatalf("%s: not a dialog", c.ID)
			}
			for _, cl := range c.Classes {
				classes[cl]++
			}
			if (d.Decide == decideAsk || d.Decide == decideNone || d.Decide == decideNo) && k != len(r.Cases)-1 {
				t.Errorf("%s: %s before the last call", c.ID, d.Decide)
			}
			if strings.Contains(string(mustJSON(t, d)), "@") {
				t.Errorf("%s: a placeholder left: %s", c.ID, mustJSON(t, d))
			}
			got := set.Permit(rules.Call{Tool: d.Tool, Input: mustJSON(t, d.Input)})
			want := map[string]rules.Action{decideAllow: rules.Allow, decideSession: rules.AllowSession, decideDeny: rules.Deny,
				decideYes: rules.SelectOption, decideNo: rules.SelectOption, decideAsk: rules.AskPerson}[d.Decide]
			if got.Rule != c.ID && !(d.Decide == decideNone && !got.Matched()) || got.Action != want ||
				got.Message != d.Message {
				t.Errorf("%s (%s %v): decided %+v, want %s", c.ID, d.Tool, d.Input, got, d.Decide)
			}
			if d.Lead != nil && d.Lead.Name == "Read" {
				if _, ok := r.Files[d.Lead.Input["file_path"].(string)]; !ok {
					t.Errorf("%s: reads a file the session does not write", c.ID)
				}
			}
		}
	}
	if n < 200 {
		t.Errorf("%d dialogs, want 200", n)
	}
	for _, want := range []string{"plan", "plan-file", "write", "edit", "read-outside", "webfetch", "long-command",
		"multi-line", "outside", "80-columns", "narrow", "short", "chained",
		"mode-acceptEdits", "decide-allow", "decide-allow_session", "decide-deny", "decide-select-yes", "decide-select-no", "decide-ask", "decide-none"} {
		if classes[want] == 0 {
			t.Errorf("no dialog of class %s in 200", want)
		}
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJudgeDialog: a dialog is judged by what Claude recorded: a tool
// that ran against a deny or with no rule is wrong, a refusal against an
// allow is wrong, a deny must carry the rule's message where the dialog
// takes words, and nothing recorded is right only for a dialog nobody
// answers, in a run that ended by itself.
func TestJudgeDialog(t *testing.T) {
	bash := func(decide, msg string) Case {
		return Case{ID: "x", Dialog: &Dialog{Tool: "Bash", Decide: decide, Message: msg}}
	}
	fetch := Case{ID: "x", Dialog: &Dialog{Tool: "WebFetch", Decide: decideDeny, Message: "no web", Fallible: true}}
	plan := Case{ID: "x", Dialog: &Dialog{Tool: "ExitPlanMode", Decide: decideDeny, Message: "split it"}}
	planFile := plan
	planFile.Dialog = &Dialog{Tool: "ExitPlanMode", Decide: decideDeny, Message: "split it", Lead: &fakeapi.Block{}}
	ran := &fakeapi.ToolResult{Content: "hello"}
	no := &fakeapi.ToolResult{Content: "The user doesn't want to proceed with this tool use.", IsError: true}
	for _, tc := range []struct {
		name  string
		c     Case
		res   *fakeapi.ToolResult
		ended bool
		want  Outcome
	}{
		{"allowed, ran", bash(decideAllow, ""), ran, true, Right},
		{"allowed, refused", bash(decideAllow, ""), no, true, Wrong},
		{"allowed, nothing", bash(decideAllow, ""), nil, true, Failed},
		{"allowed, failed", bash(decideAllow, ""), &fakeapi.ToolResult{Content: "Exit code 1", IsError: true}, true, Failed},
		{"denied, ran", bash(decideDeny, "no rm"), ran, true, Wrong},
		{"denied with the message", bash(decideDeny, "no rm"), &fakeapi.ToolResult{Content: "no rm", IsError: true}, true, Right},
		{"denied by the person", bash(decideDeny, "no rm"), no, true, Failed},
		{"fetch denied, fetched and failed", fetch, &fakeapi.ToolResult{Content: "getaddrinfo ENOTFOUND", IsError: true}, true, Wrong},
		{"fetch denied", fetch, &fakeapi.ToolResult{Content: "no web", IsError: true}, true, Right},
		{"select No", bash(decideNo, ""), no, true, Right},
		{"select No, ran", bash(decideNo, ""), ran, true, Wrong},
		{"no rule, nothing", bash(decideNone, ""), nil, true, Right},
		{"no rule, hung", bash(decideNone, ""), nil, false, Failed},
		{"no rule, ran", bash(decideNone, ""), ran, true, Wrong},
		{"asked, interrupted", bash(decideAsk, ""), &fakeapi.ToolResult{Content: "[Request interrupted by user for tool use]", IsError: true}, true, Right},
		{"plan without a file, No", plan, no, true, Right},
		{"plan with a file, No without words", planFile, no, true, Failed},
		{"plan with a file, approved", planFile, &fakeapi.ToolResult{Content: "User has approved your plan."}, true, Wrong},
		{"plan with a file, feedback", planFile, &fakeapi.ToolResult{Content: no.Content + " the user said:\nsplit it", IsError: true}, true, Right},
	} {
		if got, detail := judgeDialog(tc.c, tc.res, tc.ended); got != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, got, detail, tc.want)
		}
	}
}

// TestSummaryDialogs: dialogs are tallied apart from the forms, and the
// Markdown has a table of each.
func TestSummaryDialogs(t *testing.T) {
	s := Summarize([]Verdict{
		{Version: "2.1.1", Case: "f", Outcome: Right, Classes: []string{"single"}},
		{Version: "2.1.1", Case: "d1", Outcome: Right, Dialog: true, Classes: []string{"dialog"}},
		{Version: "2.1.1", Case: "d2", Outcome: Wrong, Dialog: true, Classes: []string{"dialog"}},
		{Version: "2.1.1", Case: "d3", Outcome: Failed, Dialog: true, Classes: []string{"dialog"}},
	})
	if s.Total.Asked != 1 || s.Dialogs == nil || s.Dialogs.Total != (Tally{Asked: 3, Right: 1, Wrong: 1, Failed: 1}) {
		t.Fatalf("forms %+v, dialogs %+v", s.Total, s.Dialogs)
	}
	var b strings.Builder
	s.Markdown(&b)
	if !strings.Contains(b.String(), "| forms asked |") && !strings.Contains(b.String(), "forms asked") ||
		!strings.Contains(b.String(), "dialogs asked") || slices.Contains(s.Classes, "dialog") {
		t.Errorf("markdown:\n%s", b.String())
	}
}
