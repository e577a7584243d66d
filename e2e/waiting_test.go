//go:build e2e

package e2e

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// atLeast are the versions of vs from 2.1.n on.
func atLeast(vs []string, n int) []string {
	var out []string
	for _, v := range vs {
		if minor(v) >= n {
			out = append(out, v)
		}
	}
	return out
}

// TestAutoModeDialog: behind a base URL that is not Anthropic's, auto mode
// (2.1.330 and later start in it) cannot run its check on a piped download
// and draws "Auto mode can't check actions in this session", a dialog of
// key hints with no menu. With no rule it is named at once and ends the
// headless run within seconds (exit 7, its title in the reason); the rule
// auto_mode: leave presses shift+Tab (accept-edits mode, the turn stops,
// the run ends, exit 0, nothing ran); auto_mode: stay presses Enter, and
// Claude then asks about the action itself.
func TestAutoModeDialog(t *testing.T) {
	forEach(t, atLeast(claudetest.PinnedVersions(), 330), func(t *testing.T, version string) {
		t.Run("no rule", func(t *testing.T) {
			sb := claudetest.New(t, version, "testdata/scenarios/curlsh.yaml")
			r := runWrapped(t, sb, "", nil, nil, "run the installer")
			d, b := r.find("dialog"), r.find("blocked")
			if r.code != 7 || len(d) == 0 || d[0]["kind"] != "auto_mode_check" || d[0]["title"] != "Auto mode can't check actions in this session" ||
				len(b) != 1 || !strings.Contains(b[0]["reason"].(string), "auto mode cannot check actions") ||
				eventTime(t, b[0]).Sub(eventTime(t, d[0])) > 5*time.Second {
				t.Fatalf("want the dialog named and the run blocked within 5 s (exit 7)\n%s", r)
			}
			report("Claude Code %s: auto mode's \"can't check actions\" dialog, no rule: named, blocked %v after (exit 7)", version,
				eventTime(t, b[0]).Sub(eventTime(t, d[0])).Round(100*time.Millisecond))
		})
		t.Run("leave", func(t *testing.T) {
			sb := claudetest.New(t, version, "testdata/scenarios/curlsh.yaml")
			r := runWrapped(t, sb, "version: 1\ndialogs: {auto_mode: leave}\n", nil, nil, "run the installer")
			if r.code != 0 || !r.has("submitted", "dialog", "auto_mode_check", "key", "shift+Tab") || len(r.find("blocked")) != 0 {
				t.Fatalf("want shift+Tab pressed by the rule and the run ended (exit 0)\n%s", r)
			}
			if res := toolResult(r, "toolu_01curlsh"); res != nil && !res.IsError {
				t.Errorf("the piped download ran after leaving auto mode: %+v", res)
			}
			report("Claude Code %s: auto mode's dialog answered by auto_mode: leave (shift+Tab), the turn stopped, nothing ran", version)
		})
		t.Run("stay", func(t *testing.T) {
			sb := claudetest.New(t, version, "testdata/scenarios/curlsh.yaml")
			r := runWrapped(t, sb, "version: 1\ndialogs: {auto_mode: stay}\n", nil, nil, "run the installer")
			var asked bool
			for _, d := range r.find("dialog") {
				asked = asked || d["kind"] == "permission"
			}
			if !r.has("submitted", "dialog", "auto_mode_check", "key", "Enter") || !asked {
				t.Fatalf("want Enter pressed by the rule and Claude asking about the action\n%s", r)
			}
			report("Claude Code %s: auto mode's dialog answered by auto_mode: stay (Enter): Claude then asked about the action", version)
		})
	})
}

// TestWaitingScreens: screens Claude shows before its session, none a
// question form: the first-run theme picker (named at once, with the fix,
// exit 7 in seconds), the custom API key question (not a permission
// prompt: blocked with its own fix, answered by dialogs.api_key: use), and
// a project's new MCP server (answered by the person's own
// dialogs.mcp_servers, never by the folder's .claudewrap.yaml, even
// allowed).
func TestWaitingScreens(t *testing.T) {
	bin := claudetest.Claudewrap(t)
	forVersions(t, func(t *testing.T, version string) {
		t.Run("first run", func(t *testing.T) {
			sb := claudetest.New(t, version, "testdata/scenarios/hello.yaml")
			if err := claudetest.Configure(sb.Home, map[string]any{"hasCompletedOnboarding": false}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r := runWrapped(t, sb, "", nil, nil, "say hello")
			if took := time.Since(start); r.code != 7 || !strings.Contains(lastLine(r.stderr), "first-run screen") ||
				!strings.Contains(lastLine(r.stderr), "hasCompletedOnboarding") || took > 15*time.Second {
				t.Fatalf("want the first-run screen named with its fix within seconds (exit 7; took %v)\n%s", took, r)
			}
			report("Claude Code %s: the first-run screen named at once with its fix (exit 7)", version)
		})
		t.Run("API key", func(t *testing.T) {
			sb := claudetest.New(t, version, "testdata/scenarios/hello.yaml")
			if err := claudetest.Configure(sb.Home, map[string]any{"customApiKeyResponses": map[string]any{"approved": []string{}, "rejected": []string{}}}); err != nil {
				t.Fatal(err)
			}
			r := runWrapped(t, sb, "", nil, nil, "say hello")
			if r.code != 7 || !strings.Contains(lastLine(r.stderr), "API key in its environment") || strings.Contains(r.stderr, "permissions:") {
				t.Fatalf("no rule: want the API key question named as such (exit 7)\n%s", r)
			}
			r = runWrapped(t, sb, "version: 1\ndialogs: {api_key: use}\n", nil, nil, "say hello")
			if r.code != 0 || !r.has("submitted", "dialog", "api_key", "select", "Yes") || !greeted(r) {
				t.Fatalf("api_key: use: want Yes picked and the session on (exit 0)\n%s", r)
			}
			report("Claude Code %s: the API key question named as such, and answered by dialogs.api_key", version)
		})
		t.Run("project MCP server", func(t *testing.T) {
			sb := claudetest.New(t, version, "testdata/scenarios/hello.yaml")
			mcp, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"demo": map[string]any{"command": claudetest.MCPDemo(t)}}})
			writeFiles(t, sb, map[string]string{".mcp.json": string(mcp),
				".claudewrap.yaml": "version: 1\ndialogs: {mcp_servers: [demo]}\n"})
			allow := exec.Command(bin, "rules", "allow")
			allow.Env, allow.Dir = sb.Env(), sb.Dir
			if out, err := allow.CombinedOutput(); err != nil {
				t.Fatalf("rules allow: %v\n%s", err, out)
			}
			r := runWrapped(t, sb, "", nil, nil, "say hello")
			if r.code != 7 || !strings.Contains(lastLine(r.stderr), "new MCP server demo") || r.has("submitted", "dialog", "mcp_server") {
				t.Fatalf("the folder's own file: want the server not approved, the run blocked (exit 7)\n%s", r)
			}
			r = runWrapped(t, sb, "version: 1\ndialogs: {mcp_servers: [demo]}\n", nil, nil, "say hello")
			if r.code != 0 || !r.has("submitted", "dialog", "mcp_server", "select", "Use this MCP server") || !greeted(r) {
				t.Fatalf("the person's rules: want the server approved and the session on (exit 0)\n%s", r)
			}
			report("Claude Code %s: a project's new MCP server: refused to the folder's own file, approved by the person's rules", version)
		})
	})
}

// greeted reports whether Claude sent the prompt to the API.
func greeted(r dialogRun) bool {
	for _, req := range r.sb.API.Requests() {
		if strings.Contains(req.Text, "say hello") {
			return true
		}
	}
	return false
}
