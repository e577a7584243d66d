//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/session"
)

// writeRules writes a rules file for one test and returns its path.
func writeRules(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(p, []byte("version: 1\nrules:\n"+yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAnswerForms answers real forms of every kind at several sizes and
// checks what Claude recorded: the tool_result the fake API received and
// the verified event (which compares with the PostToolUse hook).
func TestAnswerForms(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, prompt, id, size, rules string
		want                                    string
	}{
		{"far option 200 cols", "database.yaml", "pick a database", "toolu_01database", "200x50",
			"  - answer: {select: MongoDB}\n", `"Which database should we use?"="MongoDB"`},
		{"index at 60 cols", "database.yaml", "pick a database", "toolu_01database", "60x30",
			"  - answer: {select: {index: 2}}\n", `"Which database should we use?"="SQLite"`},
		{"wrapped long label at 60 cols", "long.yaml", "pick a strategy", "toolu_01long", "60x40",
			"  - answer: {select: Blue-green deployments on two identical Kubernetes clusters behind a global load balancer}\n",
			`"Which deployment strategy should we adopt for the new payments service given our constraints?"="Blue-green deployments on two identical Kubernetes clusters behind a global load balancer"`},
		{"CJK and emoji label", "cjk.yaml", "pick a 数据库", "toolu_01cjk", "80x40",
			"  - answer: {select: Mixed 混合 ✅}\n", `"我们应该使用哪个数据库？🚀"="Mixed 混合 ✅"`},
		{"emoji sequences, last option", "emoji.yaml", "pick a setup", "toolu_01emoji", "80x40",
			"  - answer: {select: \"Cafe\u0301 👍🏽 OK\"}\n", "\"Which 👨\u200d💻 setup should we use? ⚠️\"=\"Cafe\u0301 👍🏽 OK\""},
		{"headers holding the tab row's marks", "markhead.yaml", "mark the tabs", "toolu_01marktabs", "80x40",
			"  - {when: {header: \"✔ Done\"}, answer: {select: \"Yes\"}}\n" +
				"  - {when: {header: \"Next →\"}, answer: {select: \"← Rollback\"}}\n",
			`"Is the migration finished?"="Yes", "What comes after it?"="← Rollback"`},
		{"a header chip holding a box", "markhead.yaml", "mark the chip", "toolu_01markchip", "80x40",
			"  - answer: {select: Tests}\n", `"What is left to do?"="Tests"`},
		{"typed answer", "database.yaml", "pick a database", "toolu_01database", "120x40",
			"  - answer: {type: We use SQLite for now}\n", `"Which database should we use?"="We use SQLite for now"`},
		{"three questions at 60 cols", "three.yaml", "plan the project", "toolu_01three", "60x50",
			"  - {when: {header: Database}, answer: {select: PostgreSQL}}\n" +
				"  - {when: {header: Features}, answer: {select: [Search, Auth, Export]}}\n" +
				"  - {when: {header: Naming}, answer: {select: camelCase}}\n",
			`"Which database should we use?"="PostgreSQL", "Which features should we build?"="Search, Auth, Export", "How should we name things?"="camelCase"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forVersions(t, func(t *testing.T, version string) {
				r := runClaudewrap(t, version, "testdata/scenarios/"+tc.scenario, tc.prompt,
					"--rules", writeRules(t, tc.rules), "--size", tc.size, "--exit-after-turn")
				res := r.toolResult(t, tc.id)
				if res.IsError || !strings.Contains(res.Content, tc.want) {
					t.Errorf("tool_result %q, want %s\n%s", res.Content, tc.want, r)
				}
				if len(r.find("verified")) != 1 || r.code != 0 {
					t.Errorf("want one verified event and exit 0\n%s", r)
				}
				report("Claude Code %s: %s: verified (%d keys)", version, tc.name, len(r.find("key")))
			})
		})
	}
}

// recordCase is a form answered, and what Claude records for it: given on
// 2.1.227 and older or through the hook, shown on 2.1.266 and later.
type recordCase struct{ name, prompt, id, via, given, shown string }

// recorded answers each case's form from rules at 80x40 and checks what
// Claude recorded and that claudewrap verified it.
func recorded(t *testing.T, version, scenario, rules, what string, cases []recordCase) {
	t.Helper()
	for _, tc := range cases {
		want := tc.given
		if minor(version) >= 266 {
			want = tc.shown
		}
		r := runClaudewrap(t, version, scenario, tc.prompt, "--answer-via", tc.via,
			"--rules", writeRules(t, rules), "--size", "80x40", "--exit-after-turn")
		res := r.toolResult(t, tc.id)
		if res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s via %s: tool_result %q, want %q\n%s", tc.name, tc.via, res.Content, want, r)
		}
		if len(r.find("verified")) != 1 || len(r.find("mismatch")) != 0 || r.code != 0 {
			t.Errorf("%s via %s: want one verified event, no mismatch and exit 0\n%s", tc.name, tc.via, r)
		}
		report("Claude Code %s: %s, a %s via %s: verified", version, what, tc.name, tc.via)
	}
}

func TestChat(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		msg := "We never deploy from this session; skip it."
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, "  - answer: {chat: \""+msg+"\"}\n"), "--exit-after-turn")
		res := r.toolResult(t, "toolu_01database")
		if !res.IsError || !strings.Contains(res.Content, "clarify") {
			t.Errorf("tool_result %+v, want an is_error result about clarifying\n%s", res, r)
		}
		found := false
		for _, req := range r.sb.API.Requests() {
			if strings.Contains(req.Text, msg) {
				found = true
			}
		}
		var chatted, sent bool
		for _, e := range r.find("submitted") {
			chatted = chatted || e["chat"] == true
			sent = sent || e["chat_message"] == msg
		}
		if !found || r.code != 0 || !chatted || !sent {
			t.Errorf("chat message reached the API: %t; want exit 0 and submitted events for the chat and the message\n%s", found, r)
		}
		report("Claude Code %s: chat about this, then the message: sent", version)
	})
}

func TestCancel(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runUntil(t, version, "testdata/scenarios/database.yaml", "pick a database", "cancelled",
			"--rules", writeRules(t, "  - answer: {cancel: true}\n"))
		if len(r.find("cancelled")) != 1 || len(r.find("verified")) != 0 {
			t.Fatalf("want a cancelled event\n%s", r)
		}
		if res := r.sb.API.ToolResults(); len(res) != 0 {
			t.Errorf("a cancelled form gave tool results %+v", res)
		}
		report("Claude Code %s: cancel (Esc): declined", version)
	})
}

// TestTypedUnconfirmable: a typed answer holding what the screen gives no
// cell (a skin tone, an emoji joined by ZWJ) cannot be confirmed on the
// screen: no Enter goes, the form is cancelled (exit 5), and Claude records
// no answer. Labels with the same sequences are answered (TestAnswerForms).
func TestTypedUnconfirmable(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/emoji.yaml", "pick a setup",
			"--rules", writeRules(t, "  - answer: {type: \"Ship it 👍🏽 with 👩\u200d🚀\"}\n"), "--size", "80x40", "--exit-after-turn")
		if r.code != 5 || len(r.find("cancelled")) != 1 || len(r.find("verified")) != 0 {
			t.Fatalf("want exit 5, a cancelled form and nothing verified\n%s", r)
		}
		for _, res := range r.sb.API.ToolResults() {
			if strings.Contains(res.Content, "Ship it") {
				t.Errorf("Claude recorded the typed text: %q", res.Content)
			}
		}
		report("Claude Code %s: typed text the screen cannot show whole (skin tone, ZWJ): not committed, form cancelled, exit 5", version)
	})
}

// TestDryRun: decisions are made and logged, and nothing is pressed.
// Headless, a form the rules answer whole is the check a dry run is for:
// the run ends there (exit 0), having said on stderr what it would have
// answered; a form they leave open ends it blocked (exit 7), rather than
// wait for ever.
func TestDryRun(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, "  - answer: {select: SQLite}\n"), "--dry-run")
		d := r.find("decision")
		if len(d) != 1 || len(r.find("key")) != 0 || len(r.find("handed_over")) != 1 {
			t.Fatalf("want one decision, a dry-run hand-over and no key\n%s", r)
		}
		if res := r.sb.API.ToolResults(); len(res) != 0 {
			t.Errorf("a dry run answered: %+v", res)
		}
		if r.code != 0 || len(r.find("blocked")) != 0 || !strings.Contains(r.stderr, `answers "Which database should we use?": select "SQLite"`) ||
			!strings.Contains(lastLine(r.stderr), "dry run: the rules answer what Claude asked") {
			t.Fatalf("want exit 0, what it would answer on stderr, the dry run's end last\n%s", r)
		}
		r = runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, "  - {when: {header: Nothing}, answer: {select: SQLite}}\n"), "--dry-run", "--on-unmatched", "wait")
		b := r.find("blocked")
		if r.code != 7 || len(b) != 1 || b[0]["reason"] != session.DryRunReason || len(r.find("key")) != 0 {
			t.Fatalf("unmatched: want exit 7 and one blocked event with the dry run's reason\n%s", r)
		}
		report("Claude Code %s: dry run: decided SQLite, pressed nothing, ended by itself (exit 0); with a question left open, exit 7", version)
	})
}

// TestUserSettings: the person passes their own --settings with hooks of
// their own. Claude Code honours only the last --settings, so claudewrap
// merges its hooks into the person's: both run.
func TestUserSettings(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		mark := filepath.Join(t.TempDir(), "user-hook-ran")
		settings := `{"hooks":{"PreToolUse":[{"matcher":"AskUserQuestion","hooks":[{"type":"command","command":"touch ` + mark + `"}]}]}}`
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, sqliteRule), "--exit-after-turn", "--", "--settings", settings)
		res := r.toolResult(t, "toolu_01database")
		if !strings.Contains(res.Content, sqliteAnswer) || len(r.find("verified")) != 1 {
			t.Fatalf("tool_result %q\n%s", res.Content, r)
		}
		if _, err := os.Stat(mark); err != nil {
			t.Errorf("the person's own hook did not run: %v", err)
		}
		report("Claude Code %s: the person's --settings and hooks kept, claudewrap's merged in", version)
	})
}
