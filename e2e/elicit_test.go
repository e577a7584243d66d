//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// allowDeploy lets the MCP test server's tool run; the cases add their
// elicitation rules.
const allowDeploy = `version: 1
permissions:
  - {name: deploy, when: {tool: "^mcp__demo__deploy$"}, decide: allow}
`

// TestElicitation: Claude calls the project's MCP server's deploy tool,
// whose server asks for input (an enum and a boolean). A rule's accept
// reaches the server with its values typed as the server's schema says,
// and decline reaches it as decline; with no rule, a headless run ends by
// itself, blocked (exit 7), and the server is answered nothing. On every
// pinned version.
func TestElicitation(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		for _, tc := range []struct {
			name  string
			rules string
			want  map[string]any // what the server received; nil: nothing
			code  int
		}{
			{name: "accept", rules: allowDeploy + `elicitations:
  - name: staging
    when: {server: demo, message: "(?i)environment"}
    answer: {accept: {Environment: staging, confirm: true}}
`, want: map[string]any{"action": "accept", "content": map[string]any{"env": "staging", "confirm": true}}},
			{name: "decline", rules: allowDeploy + `elicitations:
  - {name: no, when: {server: demo}, answer: decline}
`, want: map[string]any{"action": "decline"}},
			{name: "no rule", rules: allowDeploy, code: 7},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sb := claudetest.New(t, version, "testdata/scenarios/elicit.yaml")
				got := filepath.Join(t.TempDir(), "mcp.jsonl")
				r := runWrapped(t, sb, tc.rules, nil, nil, "deploy it",
					"--mcp-config", claudetest.MCPConfig(t, got), "--permission-mode", "default")
				b, _ := os.ReadFile(got)
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				if r.code != tc.code {
					t.Fatalf("exit %d, want %d; the server got %s\n%s", r.code, tc.code, b, r)
				}
				if tc.want == nil {
					if len(b) != 0 || !strings.Contains(r.stderr, `MCP server "demo" asks for input`) || !r.has("blocked") {
						t.Fatalf("want blocked, the server answered nothing; it got %s\n%s", b, r)
					}
					report("Claude Code %s: an MCP server's input form no rule answers: blocked, exit 7 in %v", version, r.elapsed.Round(100e6))
					return
				}
				var first map[string]any
				if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &first) != nil || !reflect.DeepEqual(first, tc.want) {
					t.Fatalf("the server got %s, want %v\n%s", b, tc.want, r)
				}
				res := toolResult(r, "toolu_01deploy")
				if res == nil || res.IsError || !strings.Contains(res.Content, `"action":"`+tc.name+`"`) {
					t.Errorf("Claude's tool_result %+v does not hold the server's answer\n%s", res, r)
				}
				if !r.has("decision", "elicitation", "demo", "action", tc.name, "via", "hook") || !r.has("submitted", "elicitation", "demo") {
					t.Errorf("the decision and its answer are not reported\n%s", r)
				}
				report("Claude Code %s: MCP server's input form answered %s by rule; the server got %s", version, tc.name, lines[0])
			})
		}
	})
}
