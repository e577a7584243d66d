//go:build e2e && full

package e2e

import (
	"strings"
	"testing"
)

// TestChatWide chooses "Chat about this" on wide screens (2.1.197 once
// redrew the whole screen there and lost the Down keys).
func TestChatWide(t *testing.T) {
	// Two Claude Code processes at once at most: the versions run side by
	// side, the sizes one after another.
	forVersions(t, func(t *testing.T, version string) {
		for _, size := range []string{"100x40", "160x40"} {
			t.Run(size, func(t *testing.T) {
				msg := "Let us talk about the database first."
				r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database",
					"--rules", writeRules(t, "  - answer: {chat: \""+msg+"\"}\n"), "--size", size, "--exit-after-turn")
				res := r.toolResult(t, "toolu_01database")
				if !res.IsError || !strings.Contains(res.Content, "clarify") {
					t.Errorf("tool_result %+v, want the clarify error\n%s", res, r)
				}
				found := false
				for _, req := range r.sb.API.Requests() {
					found = found || strings.Contains(req.Text, msg)
				}
				if !found || r.code != 0 {
					t.Errorf("the chat message reached the API: %t; exit %d\n%s", found, r.code, r)
				}
				report("Claude Code %s: chat at %s: chatted, message sent", version, size)
			})
		}
	})
}
