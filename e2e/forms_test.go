//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
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

// TestVS16Label: Claude Code 2.1.266 and later record a label without its
// variation selector 16 ("❤️ Heart first" as "❤ Heart first"; 2.1.227 and
// earlier keep it) when it is picked on the screen; through the hook it
// records the label as given. The option intended is the one recorded, so
// the answer is verified (exit 0), not reported as a mismatch (stress seed
// 1764068400: 28 forms, all of them right on the screen).
func TestVS16Label(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		for _, via := range []string{"screen", "hook"} {
			want := "\"❤️ Heart first\""
			if via == "screen" && patchOf(version) >= 266 {
				want = "\"❤ Heart first\""
			}
			r := runClaudewrap(t, version, "testdata/scenarios/emoji.yaml", "pick a setup", "--answer-via", via,
				"--rules", writeRules(t, "  - answer: {select: \"❤️ Heart first\"}\n"), "--size", "80x40", "--exit-after-turn")
			res := r.toolResult(t, "toolu_01emoji")
			if res.IsError || !strings.Contains(res.Content, "\"Which 👨\u200d💻 setup should we use? ⚠️\"="+want) {
				t.Errorf("via %s: tool_result %q, want the answer %s\n%s", via, res.Content, want, r)
			}
			if len(r.find("verified")) != 1 || len(r.find("mismatch")) != 0 || r.code != 0 {
				t.Errorf("via %s: want one verified event, no mismatch and exit 0\n%s", via, r)
			}
			report("Claude Code %s: a label with VS16, answered via %s, recorded as %s: verified", version, via, want)
		}
	})
}

// TestVS16Header: a header whose emoji is a text character and VS16 with
// text after it ("⚠️ Risk"), in a header chip and on a tab row
// (testdata/scenarios/vs16head.yaml). 2.1.227 and older leave a blank
// column after the emoji ("☐ ⚠  Risk"), which the recogniser refused in a
// chip: such a form was never answered (exit 5; stress seed 1764070800).
// Each form is answered on the screen and verified; what Claude records
// drops the labels' VS16 on 2.1.266 and later (TestVS16Label).
func TestVS16Header(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		vs := func(s string) string {
			if patchOf(version) >= 266 {
				return strings.ReplaceAll(s, "\ufe0f", "")
			}
			return s
		}
		for _, tc := range []struct {
			name, prompt, id, rules, want string
		}{
			{"header chip", "weigh the risk", "toolu_01vs16one",
				"  - answer: {select: \"⚠️ High\"}\n",
				`"How risky is the migration?"="` + vs("⚠️ High") + `"`},
			{"tab row", "weigh both risks", "toolu_01vs16two",
				"  - {when: {header: \"⚠️ Risk\"}, answer: {select: \"⚠️ High\"}}\n" +
					"  - {when: {header: \"1️⃣ First\"}, answer: {select: [\"✔️ Tests\", \"1️⃣ Smoke\"]}}\n",
				`"How risky is the migration?"="` + vs("⚠️ High") + `", "Which checks come first?"="` + vs("✔️ Tests, 1️⃣ Smoke") + `"`},
		} {
			r := runClaudewrap(t, version, "testdata/scenarios/vs16head.yaml", tc.prompt,
				"--rules", writeRules(t, tc.rules), "--size", "80x40", "--exit-after-turn")
			res := r.toolResult(t, tc.id)
			if res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Errorf("%s: tool_result %q, want %s\n%s", tc.name, res.Content, tc.want, r)
			}
			if len(r.find("verified")) != 1 || r.code != 0 {
				t.Errorf("%s: want one verified event and exit 0\n%s", tc.name, r)
			}
			report("Claude Code %s: a header \"⚠️ Risk\" in a %s: verified (%d keys)", version, tc.name, len(r.find("key")))
		}
	})
}

// TestWhiteSpace: headers and labels with white space at their ends or two
// spaces inside, a header holding ", " or a quote
// (testdata/scenarios/spaces.yaml). 2.1.266 and later draw such a header
// JSON-quoted (`" Space "`), and show and record a label picked on the
// screen trimmed, its spaces made one ("C  D" as "C D"); through the hook
// the label is recorded as given. 2.1.227 and older keep the header's
// leading space in the chip (" ☐  Space"). Before, the header was refused
// on every version (exit 5), and the labels on 2.1.266+ were a mismatch
// (exit 6).
func TestWhiteSpace(t *testing.T) {
	rules := "  - {when: {header: Space}, answer: {select: \"Two  spaces\"}}\n" +
		"  - {when: {header: \"A, B\"}, answer: {select: [\"C  D\", \" A\"]}}\n" +
		"  - {when: {header: hi}, answer: {select: Hi}}\n"
	forVersions(t, func(t *testing.T, version string) {
		// given is what Claude records for labels as given, shown for them
		// picked on the screen of 2.1.266 and later.
		const given = `"Which  spacing?"="Two  spaces", "Which ones?"="C  D,  A", "Which greeting?"="Hi"`
		const shown = `"Which  spacing?"="Two spaces", "Which ones?"="C D, A", "Which greeting?"="Hi"`
		recorded(t, version, "testdata/scenarios/spaces.yaml", rules, "white space in headers and labels", []recordCase{
			{"tab row", "space it", "toolu_01spaces", "screen", given, shown},
			{"tab row", "space it", "toolu_01spaces", "hook", given, given},
			{"header chip", "space one", "toolu_01spaceone", "screen", `"Which  spacing?"="Two  spaces"`, `"Which  spacing?"="Two spaces"`},
		})
	})
}

// TestInvisibleText: forms in Thai, Arabic, Hebrew, Persian (a zero-width
// non-joiner), Hangul, fullwidth Latin and Devanagari, with labels and a
// header holding a zero-width space, a soft hyphen, a word joiner, U+FEFF
// and a no-break space (testdata/scenarios/scripts.yaml). 2.1.266 and later
// draw most of these as U+FFFD and record a label picked on the screen so
// ("soft\ufffdhyphen"), a no-break space as a space; through the hook, and
// on 2.1.227 and older, the label is recorded as given. Before, the soft
// hyphen's page was refused on every version (exit 5).
func TestInvisibleText(t *testing.T) {
	rules := "  - {when: {header: \"ไทย\"}, answer: {select: \"نیم\\u200cفاصله\"}}\n" +
		"  - {when: {header: \"한국어\"}, answer: {select: [\"soft\\u00adhyphen\", \"zero\\u200bwidth\", \"ＡＢＣ\"]}}\n" +
		"  - {when: {question: \"Which mark\"}, answer: {select: \"BOM\\ufeff here\"}}\n" +
		"  - {when: {header: \"हिन्दी\"}, answer: {select: \"हिन्दी में\"}}\n"
	forVersions(t, func(t *testing.T, version string) {
		const (
			given = "\"Which script first?\"=\"نیم\u200cفاصله\", \"Which ones?\"=\"soft\u00adhyphen, zero\u200bwidth, ＡＢＣ\", " +
				"\"Which mark?\"=\"BOM\ufeff here\""
			shown = "\"Which script first?\"=\"نیم\u200cفاصله\", \"Which ones?\"=\"soft\ufffdhyphen, zero\ufffdwidth, ＡＢＣ\", " +
				"\"Which mark?\"=\"BOM\ufffd here\""
			hindi = "\"कौन सी भाषा?\"=\"हिन्दी में\""
		)
		recorded(t, version, "testdata/scenarios/scripts.yaml", rules, "other scripts and invisible characters", []recordCase{
			{"tab row", "scripts it", "toolu_01scripts", "screen", given, shown},
			{"tab row", "scripts it", "toolu_01scripts", "hook", given, given},
			{"Devanagari chip", "devanagari it", "toolu_01devanagari", "screen", hindi, hindi},
		})
		// Typed text with spacing marks, which 2.1.321 and older give no
		// cell: confirmed without them there; 2.1.330 and later give them
		// a cell, and there they must show as typed.
		typed := "  - {when: {header: \"हिन्दी\"}, answer: {type: \"किताब, ทำงาน\"}}\n"
		recorded(t, version, "testdata/scenarios/scripts.yaml", typed, "typed Devanagari and Thai", []recordCase{
			{"Devanagari chip", "devanagari it", "toolu_01devanagari", "screen", "\"कौन सी भाषा?\"=\"किताब, ทำงาน\"", "\"कौन सी भाषा?\"=\"किताब, ทำงาน\""},
		})
	})
}

// TestWelcomeBox: in a project Claude was never onboarded in, 2.1.227 and
// older open with a "Welcome back!" box that names the version in its top
// border, away from the logo, so the screen does not tell the emulator
// the version: the install does (session's InstalledVersion). A form
// with a tab titled in Devanagari, whose vowel signs those versions
// measure as part of their letter, is answered and verified there, on
// every pinned version, with no redraw asked for.
func TestWelcomeBox(t *testing.T) {
	rules := "  - {when: {header: \"हिन्दी\"}, answer: {select: \"हिन्दी में\"}}\n" +
		"  - {when: {header: Next}, answer: {select: Docs}}\n"
	forEach(t, claudetest.PinnedVersions(), func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/scripts.yaml")
		path := filepath.Join(sb.Home, ".claude.json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		projects, _ := cfg["projects"].(map[string]any)
		project, ok := projects[sb.Dir].(map[string]any)
		if !ok {
			t.Fatalf("%s has no project %s: %s", path, sb.Dir, b)
		}
		delete(project, "hasCompletedProjectOnboarding")
		if b, err = json.Marshal(cfg); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r := runIn(t, sb, "devanagari tabs", "", "--rules", writeRules(t, rules), "--size", "80x40", "--exit-after-turn")
		res := r.toolResult(t, "toolu_01devtabs")
		if want := "\"कौन सी भाषा?\"=\"हिन्दी में\", \"Which next?\"=\"Docs\""; res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("tool_result %q, want %q\n%s", res.Content, want, r)
		}
		if len(r.find("verified")) != 1 || r.code != 0 {
			t.Errorf("want one verified event and exit 0\n%s", r)
		}
		rec, err := os.ReadFile(r.cast)
		if err != nil {
			t.Fatal(err)
		}
		box := strings.Contains(string(rec), "Welcome")
		if patchOf(version) <= 227 && !box {
			t.Errorf("no \"Welcome back!\" box in the recording: the case is not the one tested")
		}
		// Read without the version, the second page showed what the first
		// left ("❯ 1. Tests म", "Which next??"), and claudewrap could only
		// go on after making Claude redraw by a resize (a size event in the
		// recording besides the first).
		if n := strings.Count(string(rec), `, "r", "`); n != 1 {
			t.Errorf("the recording holds %d size events, want 1 (no redraw asked for)\n%s", n, r)
		}
		report("Claude Code %s: a project never onboarded in (\"Welcome back!\" box: %t): a Devanagari tab title and label answered and verified", version, box)
	})
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
		if patchOf(version) >= 266 {
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
// Headless, nobody can answer the form then: the run ends by itself at
// it (blocked, exit 7, one line on stderr), rather than wait for ever.
func TestDryRun(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, "  - answer: {select: SQLite}\n"), "--dry-run", "--exit-after-turn")
		d := r.find("decision")
		if len(d) != 1 || len(r.find("key")) != 0 || len(r.find("handed_over")) != 1 {
			t.Fatalf("want one decision, a dry-run hand-over and no key\n%s", r)
		}
		if res := r.sb.API.ToolResults(); len(res) != 0 {
			t.Errorf("a dry run answered: %+v", res)
		}
		b := r.find("blocked")
		if r.code != 7 || len(b) != 1 || b[0]["reason"] != session.DryRunReason {
			t.Fatalf("want exit 7 and one blocked event with the dry run's reason\n%s", r)
		}
		if l := lastLine(r.stderr); !strings.Contains(l, "dry run") {
			t.Errorf("stderr %q, want the reason last", r.stderr)
		}
		report("Claude Code %s: dry run: decided SQLite, pressed nothing, ended by itself (exit 7)", version)
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

// TestNoHook: the person's settings disable every hook, so no PreToolUse
// arrives. claudewrap must notice the form anyway, say why it cannot answer,
// and (headless) cancel rather than wait for ever.
func TestNoHook(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, sqliteRule), "--exit-after-turn", "--", "--settings", `{"disableAllHooks": true}`)
		errs := r.find("error")
		if r.code != 5 || len(errs) == 0 || !strings.Contains(fmt.Sprint(errs[0]["message"]), "no PreToolUse hook arrived") {
			t.Fatalf("want exit 5 and an error naming the missing hook\n%s", r)
		}
		if l := lastLine(r.stderr); !strings.Contains(l, "hooks did not run") {
			t.Errorf("want stderr's last line naming the missing hooks, got %q", r.stderr)
		}
		for _, res := range r.sb.API.ToolResults() {
			if !res.IsError {
				t.Errorf("Claude recorded %q", res.Content)
			}
		}
		report("Claude Code %s: hooks disabled by the person's settings: form noticed, reported, cancelled", version)
	})
}
