//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// TestAnswerViaHook: --answer-via hook on every pinned version: the
// three-question form (single-select, multi-select, typed) answered by the
// rules through the PreToolUse hook, no key pressed, verified in what
// Claude recorded; a cancel, which the hook cannot say, goes on the screen
// (Esc); a hook of the person's that changes the answer on the way is
// caught by the verification (mismatch, exit 6).
func TestAnswerViaHook(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		demo := filepath.Join(claudetest.Root(t), "examples", "demo.yaml")
		r := runClaudewrap(t, version, "testdata/scenarios/three.yaml", "plan the project",
			"--rules", demo, "--answer-via", "hook", "--exit-after-turn")
		res := r.toolResult(t, "toolu_01three")
		want := `"Which database should we use?"="SQLite", "Which features should we build?"="Auth, API", "How should we name things?"="snake_case, like the rest of the repo"`
		if r.code != 0 || !strings.Contains(res.Content, want) || len(r.find("verified")) != 1 || len(r.find("key")) != 0 {
			t.Fatalf("hook: exit %d, tool_result %q\n%s", r.code, res.Content, r)
		}

		// Notes on a preview question go in the hook's annotations.
		r = runClaudewrap(t, version, "testdata/scenarios/preview.yaml", "design the dashboard",
			"--rules", writeRules(t, "  - {when: {header: Layout}, answer: {select: Sidebar, notes: keep it collapsible}}\n"+
				"  - {when: {header: Theme}, answer: {select: Dark}}\n"), "--answer-via", "hook", "--exit-after-turn")
		res = r.toolResult(t, "toolu_01preview")
		if r.code != 0 || !strings.Contains(res.Content, `="Sidebar" notes: keep it collapsible`) || len(r.find("verified")) != 1 || len(r.find("key")) != 0 {
			t.Fatalf("notes: exit %d, tool_result %q\n%s", r.code, res.Content, r)
		}

		r = runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, "  - {name: no, answer: {cancel: true}}\n"), "--answer-via", "hook", "--exit-after-turn")
		if r.code != 0 || len(r.find("cancelled")) != 1 || len(r.find("key")) == 0 {
			t.Fatalf("cancel: want it pressed on the screen (Esc) and cancelled\n%s", r)
		}

		// The person's own PreToolUse hook answers MongoDB, a second after
		// ours: Claude takes the hook that finishes last.
		hookScript := filepath.Join(t.TempDir(), "theirs.sh")
		os.WriteFile(hookScript, []byte(`#!/bin/sh
cat >/dev/null
sleep 1
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"questions":[{"question":"Which database should we use?","header":"Database","multiSelect":false,"options":[{"label":"PostgreSQL","description":"Relational, robust"},{"label":"SQLite","description":"Embedded, simple"},{"label":"MongoDB","description":"Document store"}]}],"answers":{"Which database should we use?":"MongoDB"}}}}'
`), 0o755)
		settings := fmt.Sprintf(`{"hooks":{"PreToolUse":[{"matcher":"AskUserQuestion","hooks":[{"type":"command","command":%q}]}]}}`, hookScript)
		r = runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, sqliteRule), "--answer-via", "hook", "--exit-after-turn", "--", "--settings", settings)
		res = r.toolResult(t, "toolu_01database")
		if !strings.Contains(res.Content, `="MongoDB"`) || r.code != 6 || len(r.find("mismatch")) != 1 {
			t.Fatalf("another hook's MongoDB: want it recorded and caught (mismatch, exit 6); tool_result %q\n%s", res.Content, r)
		}
		report("Claude Code %s: --answer-via hook: three kinds and notes verified, no key; cancel on the screen; another hook's MongoDB caught (mismatch, exit 6)", version)
	})
}
