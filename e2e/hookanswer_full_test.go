//go:build e2e && full

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnswerViaHookDenied: a hook of the person's denies AskUserQuestion
// while claudewrap's answers it: Claude never runs the tool, so no
// PostToolUse comes for the answers claudewrap gave. The form is reported
// after the record grace (exit 5, one line), and no longer holds the turn's
// end: the run ends by itself at Claude's Stop. Before, it waited for ever.
func TestAnswerViaHookDenied(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		hookScript := filepath.Join(t.TempDir(), "deny.sh")
		os.WriteFile(hookScript, []byte(`#!/bin/sh
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not now"}}'
`), 0o755)
		settings := fmt.Sprintf(`{"hooks":{"PreToolUse":[{"matcher":"AskUserQuestion","hooks":[{"type":"command","command":%q}]}]}}`, hookScript)
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
			"--rules", writeRules(t, sqliteRule), "--answer-via", "hook", "--exit-after-turn", "--", "--settings", settings)
		res := r.toolResult(t, "toolu_01database")
		if r.code != 5 || len(r.find("verified")) != 0 || !strings.Contains(r.stderr, "answered through the hook, but Claude recorded no answer") {
			t.Fatalf("denied: exit %d, tool_result %q\n%s", r.code, res.Content, r)
		}
		report("Claude Code %s: --answer-via hook, the person's hook denying the question: reported after the record grace (exit 5), the run ended by itself; tool_result %q", version, res.Content)
	})
}
