package stress

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
	"github.com/claudewrap/claudewrap/rules"
)

// TestDialogsUnchanged: the sessions of permission prompts and plan
// approval a seed draws are the very ones it drew before the other kinds
// came (their JSON's SHA-256, from the generator without them, its command
// conditions written for each part of a command), the other kinds only
// added between them.
func TestDialogsUnchanged(t *testing.T) {
	for _, tc := range []struct {
		seed uint64
		n    int
		sum  string
	}{
		{2026112805, 100, "fa6cd7f65bcb536e6334209dd538ff13b5916296572d0cddd07bc2fd6ef50d0d"},
		{3, 6, "6c49de0a149ac3136d1a71c171e7157fb9dedc24104b183bb14c3761c7e7742c"},
		{2026112806, 20, "f91c7922544748365ac9af653c8fb1deda508fdff18fc5b5b58d7f5cdc7d4a93"},
	} {
		all := GenerateDialogs(tc.seed, tc.n)
		old := slices.DeleteFunc(slices.Clone(all), func(s Session) bool { return s.Name[0] != 'd' })
		b, err := json.Marshal(old)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != tc.sum {
			t.Errorf("seed %d, %d dialogs: the permission and plan sessions changed (sha256 %s)", tc.seed, tc.n, got)
		}
		if len(all) == len(old) {
			t.Errorf("seed %d, %d dialogs: no session of another kind", tc.seed, tc.n)
		}
	}
}

// TestKindSessions: the trust dialog, the bypass confirmation and MCP
// servers' forms are drawn with every answer, every kind of field and
// every way of refusing; each session builds a scenario and rules that
// load, and the rules answer each form as its case says (checked against
// package rules): accept with the content the server must receive,
// decline, cancel, nothing (decoys never match), or a value refused,
// which leaves the form unmatched.
func TestKindSessions(t *testing.T) {
	classes := map[string]int{}
	for seed := uint64(1); seed <= 40; seed++ {
		for _, s := range GenerateDialogs(seed, 30) {
			if s.Name[0] == 'd' {
				continue
			}
			r := s.resolved("/p/project", "/p/outside")
			sc, f := loadSession(t, r)
			set := &rules.Set{Files: []*rules.File{f}}
			for _, c := range r.Cases {
				for _, cl := range c.Classes {
					classes[cl]++
				}
				if !slices.Contains(c.Classes, "dialog") {
					t.Errorf("%s: not tallied as a dialog: %v", c.ID, c.Classes)
				}
				d := c.Dialog
				switch {
				case d.Start != nil:
					checkStart(t, s, *d.Start, f, sc)
				case d.Elicit != nil:
					checkElicit(t, c, *d.Elicit, set, sc)
				default:
					got := set.Permit(rules.Call{Tool: d.Tool, Input: mustJSON(t, d.Input)})
					want := map[string]rules.Action{decideAllow: rules.Allow, decideSession: rules.AllowSession, decideDeny: rules.Deny,
						decideYes: rules.SelectOption, decideNo: rules.SelectOption, decideAsk: rules.AskPerson}[d.Decide]
					none := d.Decide == decideNone || d.Decide == decideRuns
					if none && got.Matched() || !none && (got.Rule != c.ID || got.Action != want || got.Message != d.Message) {
						t.Errorf("%s (%s %v): decided %+v, want %s", c.ID, d.Tool, d.Input, got, d.Decide)
					}
				}
			}
		}
	}
	for _, want := range []string{"trust-rule", "trust-flag", "trust-none", "trust-folder", "after-trust",
		"bypass-rule", "bypass-none", "bypass-folder", "mode-bypass", "decide-runs",
		"elicit-accept", "elicit-decline", "elicit-cancel", "elicit-none", "elicit-refused", "decoys", "required",
		"field-enum", "field-enum-names", "field-one-of", "field-boolean", "field-string", "field-number", "field-integer",
		"field-multi", "field-multi-titled", "by-title", "option-by-title", "text-like-a-value",
		"refused-value", "refused-no-field", "refused-required", "narrow", "80-columns", "short"} {
		if classes[want] == 0 {
			t.Errorf("no case of class %s", want)
		}
	}
}

// checkStart: the trust dialog or the bypass confirmation is answered by
// the rules file only when a rule says so, the session's scenario plays
// the prompt, and a permission prompt follows only when it is answered.
func checkStart(t *testing.T, s Session, st Start, f *rules.File, sc *fakeapi.Scenario) {
	t.Helper()
	inFile := st.By == byRule || st.By == byFolder
	if got := map[string]bool{startTrust: f.Dialogs.Trust, startBypass: f.Dialogs.Bypass}[st.Kind]; got != inFile {
		t.Errorf("%s: the rules file answers the %s dialog: %t, want %t", s.Name, st.Kind, got, inFile)
	}
	if st.Kind == startBypass && st.By == byFlag {
		t.Errorf("%s: the bypass confirmation has no flag", s.Name)
	}
	if (len(s.Cases) == 2) != st.Answered() || len(sc.Rules) == 0 || sc.Rules[0].When.TextContains != s.Prompt {
		t.Errorf("%s: %d cases, answered %t; scenario %+v", s.Name, len(s.Cases), st.Answered(), sc.Rules)
	}
}

// checkElicit: the MCP tool is allowed, its lead is WaitForMcpServers,
// and the elicitation rules answer the form as the case says.
func checkElicit(t *testing.T, c Case, e Elicit, set *rules.Set, sc *fakeapi.Scenario) {
	t.Helper()
	if p := set.Permit(rules.Call{Tool: c.Dialog.Tool, Input: json.RawMessage(`{}`)}); p.Action != rules.Allow || c.Dialog.Lead.Name != "WaitForMcpServers" || len(sc.Rules) != 3 {
		t.Errorf("%s: the tool %s is not allowed (%+v), or not after WaitForMcpServers", c.ID, c.Dialog.Tool, p)
	}
	var schema struct {
		Properties map[string]map[string]any
	}
	if err := json.Unmarshal([]byte(e.Schema), &schema); err != nil || len(schema.Properties) == 0 {
		t.Fatalf("%s: schema %s: %v", c.ID, e.Schema, err)
	}
	for name, p := range schema.Properties {
		if !slices.Contains([]string{"string", "boolean", "number", "integer", "array"}, fmt.Sprint(p["type"])) {
			t.Errorf("%s: field %s of type %v", c.ID, name, p["type"])
		}
	}
	got := set.Elicit(e.Server, e.Message, json.RawMessage(e.Schema))
	switch e.Answer {
	case elicitNone:
		if got.Rule != "" {
			t.Errorf("%s: a decoy matched: %+v", c.ID, got)
		}
	case elicitRefused:
		if got.Rule != c.ID || got.Err == nil {
			t.Errorf("%s: want the rule matched and its values refused, got %+v (values %v, schema %s)", c.ID, got, e.Values, e.Schema)
		}
	default:
		if got.Rule != c.ID || !got.Matched() || string(got.Action) != e.Answer {
			t.Errorf("%s: decided %+v, want %s", c.ID, got, e.Answer)
		}
		if e.Answer == elicitAccept && !sameContent(got.Content, e.Want) {
			t.Errorf("%s: content %v, want %v (values %v, schema %s)", c.ID, got.Content, e.Want, e.Values, e.Schema)
		}
	}
}

// TestJudgeElicit: an MCP server's form is judged by what the server
// received and the run's exit only: accept with exactly the content (a
// multi-select's options in any order), decline and cancel as such; a form
// no rule answers, or whose rule is refused, ends blocked (exit 7) with
// nothing accepted or declined.
func TestJudgeElicit(t *testing.T) {
	accept := Elicit{Answer: elicitAccept, Want: map[string]any{"env": "staging", "n": 3.0, "tags": []any{"a", "b"}, "ok": false}}
	for _, tc := range []struct {
		name  string
		e     Elicit
		log   string
		exit  int
		ended bool
		want  Outcome
	}{
		{"accepted", accept, `{"action":"accept","content":{"env":"staging","n":3,"tags":["b","a"],"ok":false}}`, 0, true, Right},
		{"accepted, other value", accept, `{"action":"accept","content":{"env":"production","n":3,"tags":["a","b"],"ok":false}}`, 0, true, Wrong},
		{"accepted, a field left out", accept, `{"action":"accept","content":{"env":"staging","n":3,"tags":["a","b"]}}`, 0, true, Wrong},
		{"accepted, a number as text", accept, `{"action":"accept","content":{"env":"staging","n":"3","tags":["a","b"],"ok":false}}`, 0, true, Wrong},
		{"declined instead", accept, `{"action":"decline"}`, 0, true, Wrong},
		{"nothing", accept, ``, 7, true, Failed},
		{"nothing, hung", accept, ``, -1, false, Failed},
		{"accepted, exit 6", accept, `{"action":"accept","content":{"env":"staging","n":3,"tags":["a","b"],"ok":false}}`, 6, true, Failed},
		{"twice", accept, "{\"action\":\"cancel\"}\n{\"action\":\"cancel\"}", 0, true, Wrong},
		{"an error", accept, `{"error":{"code":-1}}`, 0, true, Failed},
		{"declined", Elicit{Answer: elicitDecline}, `{"action":"decline"}`, 0, true, Right},
		{"cancelled", Elicit{Answer: elicitCancel}, `{"action":"cancel"}` + "\n", 0, true, Right},
		{"cancel, declined", Elicit{Answer: elicitCancel}, `{"action":"decline"}`, 0, true, Wrong},
		{"no rule, blocked", Elicit{Answer: elicitNone}, ``, 7, true, Right},
		{"no rule, cancelled as the run ended", Elicit{Answer: elicitNone}, `{"action":"cancel"}`, 7, true, Right},
		{"no rule, declined", Elicit{Answer: elicitNone}, `{"action":"decline"}`, 7, true, Wrong},
		{"refused, accepted", Elicit{Answer: elicitRefused}, `{"action":"accept","content":{}}`, 0, true, Wrong},
		{"refused, exit 0", Elicit{Answer: elicitRefused}, ``, 0, true, Failed},
		{"refused, hung", Elicit{Answer: elicitRefused}, ``, -1, false, Failed},
	} {
		if got, detail := judgeElicit(tc.e, []byte(tc.log), tc.exit, tc.ended); got != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, got, detail, tc.want)
		}
	}
}

// TestJudgeStart: answered Yes by the person's flag or rule, Claude's
// session must start with the answer recorded; otherwise nothing may start
// or be recorded, and the run ends blocked (exit 7) by itself.
func TestJudgeStart(t *testing.T) {
	for _, tc := range []struct {
		st             Start
		sent, recorded bool
		exit           int
		ended          bool
		want           Outcome
	}{
		{Start{startTrust, byFlag}, true, true, 0, true, Right},
		{Start{startTrust, byRule}, true, true, 7, true, Right}, // a later dialog may block
		{Start{startTrust, byRule}, true, false, 0, true, Failed},
		{Start{startTrust, byRule}, false, false, 7, true, Failed},
		{Start{startBypass, byRule}, false, false, -1, false, Failed},
		{Start{startTrust, byNone}, false, false, 7, true, Right},
		{Start{startTrust, byFolder}, true, true, 0, true, Wrong},
		{Start{startBypass, byFolder}, false, true, 7, true, Wrong},
		{Start{startBypass, byNone}, false, false, 1, true, Failed},
		{Start{startBypass, byNone}, false, false, -1, false, Failed},
	} {
		if got, detail := judgeStart(tc.st, tc.sent, tc.recorded, tc.exit, tc.ended); got != tc.want {
			t.Errorf("%+v sent %t recorded %t exit %d ended %t: %s (%s), want %s", tc.st, tc.sent, tc.recorded, tc.exit, tc.ended, got, detail, tc.want)
		}
	}
}

// TestSummaryKinds: the dialogs' report has a row per kind.
func TestSummaryKinds(t *testing.T) {
	s := Summarize([]Verdict{
		{Version: "2.1.1", Case: "d1", Outcome: Right, Dialog: true, Classes: []string{"dialog"}},
		{Version: "2.1.1", Case: "d2", Outcome: Right, Dialog: true, Classes: []string{"dialog", "plan"}},
		{Version: "2.1.1", Case: "e1", Outcome: Wrong, Dialog: true, Classes: []string{"dialog", "elicitation"}},
		{Version: "2.1.1", Case: "t1", Outcome: Failed, Dialog: true, Classes: []string{"dialog", "trust"}},
		{Version: "2.1.1", Case: "t2", Outcome: NotAsked, Dialog: true, Classes: []string{"dialog", "trust"}},
	})
	var b strings.Builder
	s.Markdown(&b)
	for _, want := range []string{"| permission prompt | 2.1.1 | 1 | 1 | 0 | 0 |", "| plan approval | 2.1.1 | 1 | 1 | 0 | 0 |",
		"| MCP server's form | 2.1.1 | 1 | 0 | 1 | 0 |", "| trust dialog | 2.1.1 | 1 | 0 | 0 | 1 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no row %q in\n%s", want, b.String())
		}
	}
}
