//go:build e2e && full

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

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
			if via == "screen" && minor(version) >= 266 {
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
			if minor(version) >= 266 {
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
		if minor(version) <= 227 && !box {
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

// TestNoHook: Claude's hooks stop reaching claudewrap: a command of
// Claude's removes claudewrap's private folder (its hook socket), then
// Claude asks a form, so no PreToolUse arrives. claudewrap must notice the
// form anyway, say why it cannot answer, and (headless) cancel rather than
// wait for ever. The person's own --settings cannot turn the hooks off:
// such a run is refused before Claude starts (exit 2).
func TestNoHook(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, sqliteRule), "--exit-after-turn", "--", "--settings", `{"disableAllHooks": true}`)
		if r.code != 2 || !strings.Contains(lastLine(r.stderr), "turns every hook off") || len(r.sb.API.Requests()) != 0 {
			t.Fatalf("--settings with disableAllHooks: want exit 2 before Claude starts, naming the key\n%s", r)
		}

		sb := claudetest.New(t, version, "testdata/scenarios/unhook.yaml")
		tmp, err := os.MkdirTemp("", "cw")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(tmp) })
		bypass(t, sb)
		r = runEnv(t, sb, []string{"TMPDIR=" + tmp, "IS_SANDBOX=1"}, "pick a database for real",
			"--rules", writeRules(t, sqliteRule), "--exit-after-turn", "--", "--dangerously-skip-permissions")
		errs := r.find("error")
		if r.code != 5 || len(errs) == 0 || !strings.Contains(fmt.Sprint(errs[0]["message"]), "no PreToolUse hook arrived") {
			t.Fatalf("want exit 5 and an error naming the missing hook\n%s", r)
		}
		if l := lastLine(r.stderr); !strings.Contains(l, "did not reach claudewrap") || !strings.Contains(l, "private folder was removed") {
			t.Errorf("want stderr's last line naming the missing hooks, got %q", r.stderr)
		}
		for _, res := range r.sb.API.ToolResults() {
			if res.ToolUseID == "toolu_01database" && !res.IsError {
				t.Errorf("Claude recorded %q", res.Content)
			}
		}
		report("Claude Code %s: --settings turning hooks off refused (exit 2); hooks cut off mid-run: the form noticed, reported, cancelled", version)
	})
}
