//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/session"
)

// allowDeploy lets the MCP test server's tool run; the cases add their
// elicitation rules.
const allowDeploy = `version: 1
permissions:
  - {name: deploy, when: {tool: "^mcp__demo__deploy$"}, decide: allow}
`

// TestElicitation: Claude calls the project's MCP server's deploy tool,
// whose server asks for input. A rule's accept reaches the server with its
// values typed as the server's schema says, answered on the screen (the
// default: Claude draws the form and claudewrap fills it in, verified
// from Claude's ElicitationResult) and through the hook (--answer-via
// hook), for an enum and a boolean and for every kind of field (also on a
// 60x24 screen, where the form shows a few fields at a time); decline
// reaches it as decline; with no rule, a headless run ends by itself,
// blocked (exit 7), and the server is answered nothing. On every pinned
// version.
func TestElicitation(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		const staging = `elicitations:
  - name: staging
    when: {server: demo, message: "(?i)environment"}
    answer: {accept: {Environment: staging, confirm: true}}
`
		const ship = `elicitations:
  - name: ship
    when: {server: demo}
    answer: {accept: {env: production, confirm: false, note: ship it, count: 3, regions: [asia, eu]}}
`
		stagingGot := map[string]any{"action": "accept", "content": map[string]any{"env": "staging", "confirm": true}}
		shipGot := map[string]any{"action": "accept", "content": map[string]any{"env": "production", "confirm": false,
			"note": "ship it", "count": 3.0, "regions": []any{"eu", "asia"}}}
		for _, tc := range []struct {
			name   string
			rules  string
			schema string   // the server's; "" its default (an enum and a boolean)
			flags  []string // claudewrap's
			action string
			via    string
			want   map[string]any // what the server received; nil: nothing
			code   int
		}{
			{name: "accept", rules: allowDeploy + staging, action: "accept", via: "screen", want: stagingGot},
			{name: "accept by hook", rules: allowDeploy + staging, flags: []string{"--answer-via", "hook"}, action: "accept", via: "hook", want: stagingGot},
			{name: "every kind", rules: allowDeploy + ship, schema: fakeclaude.FullMCPSchema, action: "accept", via: "screen", want: shipGot},
			{name: "every kind at 60x24", rules: allowDeploy + ship, schema: fakeclaude.FullMCPSchema, flags: []string{"--size", "60x24"}, action: "accept", via: "screen", want: shipGot},
			{name: "every kind by hook", rules: allowDeploy + ship, schema: fakeclaude.FullMCPSchema, flags: []string{"--answer-via", "hook"}, action: "accept", via: "hook", want: shipGot},
			{name: "decline", rules: allowDeploy + `elicitations:
  - {name: no, when: {server: demo}, answer: decline}
`, action: "decline", via: "screen", want: map[string]any{"action": "decline"}},
			{name: "no rule", rules: allowDeploy, code: 7},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sb := claudetest.New(t, version, "testdata/scenarios/elicit.yaml")
				got := filepath.Join(t.TempDir(), "mcp.jsonl")
				var server []string
				if tc.schema != "" {
					server = []string{"-schema", tc.schema}
				}
				r := runWrapped(t, sb, tc.rules, nil, tc.flags, "deploy it",
					"--mcp-config", claudetest.MCPConfig(t, got, server...), "--permission-mode", "default")
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
				if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &first) != nil || !sameAnswer(first, tc.want) {
					t.Fatalf("the server got %s, want %v\n%s", b, tc.want, r)
				}
				res := toolResult(r, "toolu_01deploy")
				if res == nil || res.IsError || !strings.Contains(res.Content, `"action":"`+tc.action+`"`) {
					t.Errorf("Claude's tool_result %+v does not hold the server's answer\n%s", res, r)
				}
				if !r.has("decision", "elicitation", "demo", "action", tc.action, "via", tc.via) || !r.has("submitted", "elicitation", "demo") {
					t.Errorf("the decision and its answer are not reported\n%s", r)
				}
				if tc.via == "screen" && !r.has("verified", "elicitation", "demo", "by", "claudewrap") {
					t.Errorf("claudewrap's answer on the screen is not verified from Claude's ElicitationResult\n%s", r)
				}
				how := map[string]string{"screen": "on the screen", "hook": "through the hook"}[tc.via]
				report("Claude Code %s: MCP server's input form (%s): a rule's %s given %s in %v; the server got %s",
					version, tc.name, tc.action, how, r.elapsed.Round(100e6), lines[0])
			})
		}
	})
}

// sameAnswer compares what the server received with what it should have,
// a multi-select's options in any order.
func sameAnswer(got, want map[string]any) bool {
	norm := func(m map[string]any) map[string]any {
		b, _ := json.Marshal(m)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		if c, ok := out["content"].(map[string]any); ok {
			for k, v := range c {
				if l, ok := v.([]any); ok {
					sort.Slice(l, func(i, j int) bool { return fmt.Sprint(l[i]) < fmt.Sprint(l[j]) })
					c[k] = l
				}
			}
		}
		return out
	}
	return reflect.DeepEqual(norm(got), norm(want))
}

// TestElicitationByPerson: on the person's terminal an MCP server's form
// no rule answers is theirs: claudewrap hands it over and presses nothing,
// the person declines it in Claude's own form, the server gets the
// decline, and claudewrap reports the person's answer from Claude's
// ElicitationResult hook.
func TestElicitationByPerson(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer ptmx.Close()
		defer tty.Close()
		pty.Setsize(tty, &pty.Winsize{Cols: 100, Rows: 40})
		go io.Copy(io.Discard, ptmx)
		got := filepath.Join(t.TempDir(), "mcp.jsonl")
		set, err := rules.Load(writeRulesFile(t, allowDeploy))
		if err != nil {
			t.Fatal(err)
		}
		r := runSession(t, version, "testdata/scenarios/elicit.yaml", "deploy it", "  - {when: {header: x}, answer: {cancel: true}}\n", nil,
			func(r *faultRun) {
				go func() {
					waitText(t, r.host.Screen(), 60*time.Second, "requests your input", "Decline")
					// Down past the two fields to the buttons, right to
					// Decline, Enter: each key once the last has landed.
					for _, k := range []string{"\x1b[B", "\x1b[B", "\x1b[C", "\r"} {
						waitQuiet(r.host.Screen(), 200*time.Millisecond, 3*time.Second)
						ptmx.Write([]byte(k))
					}
				}()
			},
			func(c *session.Config) {
				c.Host.Headless = false
				c.Host.Stdin, c.Host.Stdout = tty, tty
				c.Host.Args = append(c.Host.Args, "--mcp-config", claudetest.MCPConfig(t, got), "--permission-mode", "default")
				c.Policy = rules.Passthrough
				c.Permits, c.Elicits = set, set
			})
		b, _ := os.ReadFile(got)
		if strings.TrimSpace(string(b)) != `{"action":"decline"}` {
			t.Fatalf("the server got %q, want the person's decline\n%s", b, r)
		}
		handed, answered := r.find(t, "handed_over"), r.find(t, "submitted")
		if len(handed) != 1 || len(answered) != 1 || answered[0]["by"] != "person" || answered[0]["action"] != "decline" ||
			answered[0]["elicitation"] != "demo" {
			t.Fatalf("want the form handed over and the person's decline reported\n%s", r)
		}
		report("Claude Code %s: an MCP server's input form on the person's terminal: theirs, declined, reported from ElicitationResult", version)
	})
}

// TestElicitationWait: under --on-unmatched wait an MCP server's form no
// rule answers waits for an answer from anywhere: stderr names the
// command, claudewrap pending lists its server, message and fields, a
// value its schema refuses is refused by claudewrap answer (exit 2) with
// nothing pressed, and claudewrap answer --accept is given on the screen,
// verified (exit 0), and received by the server. Nobody answering, the
// headless run ends by itself within --idle-timeout, blocked (exit 7).
func TestElicitationWait(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		t.Run("answered", func(t *testing.T) {
			w, got := startElicitWait(t, version)
			f := waitPendingElicit(t, w.sb, w.session)
			if f.Elicitation.Server != "demo" || len(f.Elicitation.Fields) != 2 || f.Elicitation.Fields[0].Name != "env" ||
				!f.Elicitation.Fields[0].Required || len(f.Elicitation.Fields[0].Options) != 2 {
				t.Fatalf("pending lists %+v", f)
			}
			if _, errOut, code := claudewrapCmd(t, w.sb, "answer", w.session, "--accept", "{env: dev}"); code != 2 ||
				!strings.Contains(errOut, `field env: "dev" is not one of its options`) {
				t.Fatalf("answer --accept '{env: dev}': exit %d %q, want exit 2", code, errOut)
			}
			out, errOut, code := claudewrapCmd(t, w.sb, "answer", w.session, "--form", f.ToolUseID, "--accept", "{Environment: staging, confirm: true}")
			if code != 0 || !strings.HasPrefix(out, "verified; Claude reports the MCP form answered") {
				t.Fatalf("answer --accept: exit %d\n%s%s\n%s", code, out, errOut, w.stderr.String())
			}
			b := w.stagingAccepted(t, got)
			if !strings.Contains(w.stderr.String(), "claudewrap answer "+w.session+" --form elicitation-1") {
				t.Errorf("stderr does not name the command that answers it:\n%s", w.stderr.String())
			}
			report("Claude Code %s: an MCP server's form no rule answers, under --on-unmatched wait: listed by pending, a value its schema refuses refused (exit 2), claudewrap answer --accept verified; the server got %s",
				version, b)
		})
		t.Run("nobody answers", func(t *testing.T) {
			w, got := startElicitWait(t, version, "--idle-timeout", "15s")
			waitPendingElicit(t, w.sb, w.session)
			err := w.end(t)
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 7 || !strings.Contains(w.stderr.String(), "no answer came from anywhere within 15s (--idle-timeout)") {
				t.Fatalf("the run: %v, want exit 7 within its bound\n%s", err, w.stderr.String())
			}
			if b, _ := os.ReadFile(got); len(b) != 0 {
				t.Errorf("the server got %s", b)
			}
			report("Claude Code %s: an MCP server's form nobody answers under --on-unmatched wait: blocked (exit 7) after --idle-timeout 15s", version)
		})
	})
}

// startElicitWait starts a headless run under --on-unmatched wait whose
// Claude calls the MCP test server's deploy tool; got is the file of what
// the server received.
func startElicitWait(t *testing.T, version string, flags ...string) (w *waitingRun, got string) {
	t.Helper()
	got = filepath.Join(t.TempDir(), "mcp.jsonl")
	w = startWaitingOn(t, version, "testdata/scenarios/elicit.yaml", allowDeploy, flags,
		"deploy it", "--mcp-config", claudetest.MCPConfig(t, got), "--permission-mode", "default")
	return w, got
}

// stagingAccepted waits for the run to end with exit 0 and checks that
// the MCP server (its record in got) received the accept of staging,
// confirmed; it returns what the server received.
func (w *waitingRun) stagingAccepted(t *testing.T, got string) string {
	t.Helper()
	if err := w.end(t); err != nil {
		t.Fatalf("the run: %v\n%s", err, w.stderr.String())
	}
	b, _ := os.ReadFile(got)
	var first map[string]any
	want := map[string]any{"action": "accept", "content": map[string]any{"env": "staging", "confirm": true}}
	if json.Unmarshal(b, &first) != nil || !sameAnswer(first, want) {
		t.Fatalf("the server got %s, want %v\n%s", b, want, w.stderr.String())
	}
	return strings.TrimSpace(string(b))
}

// end waits for the run's end (at most 90 s).
func (w *waitingRun) end(t *testing.T) error {
	t.Helper()
	select {
	case err := <-w.done:
		return err
	case <-time.After(90 * time.Second):
		t.Fatalf("the run did not end\n%s", w.stderr.String())
		return nil
	}
}

// waitPendingElicit waits until claudewrap pending --json lists an MCP
// server's form of the session.
func waitPendingElicit(t *testing.T, sb *claudetest.Sandbox, session string) remote.Form {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, errOut, code := claudewrapCmd(t, sb, "pending", "--json")
		var forms []remote.Form
		if code != 0 || json.Unmarshal([]byte(out), &forms) != nil {
			t.Fatalf("pending --json: exit %d %q %s", code, out, errOut)
		}
		for _, f := range forms {
			if f.Session == session && f.Elicitation != nil {
				return f
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s never listed an MCP form; pending says %s", session, out)
		}
		time.Sleep(200 * time.Millisecond) // polling another process under a deadline
	}
}

// promptScript is the person at claudewrap's prompt: the answer to each
// question by its header.
type promptScript map[string]answer.Decision

func (p promptScript) Ask(ctx context.Context, q answer.Question, n, total int) (answer.Decision, error) {
	if d, ok := p[q.Header]; ok {
		return d, nil
	}
	<-ctx.Done()
	return answer.Decision{}, ctx.Err()
}

// TestElicitationAsk: under --on-unmatched ask an MCP server's form no
// rule answers is asked on claudewrap's prompt, action then fields; the
// answer is given on the screen, verified from Claude's ElicitationResult,
// and the server receives it.
func TestElicitationAsk(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		got := filepath.Join(t.TempDir(), "mcp.jsonl")
		set, err := rules.Load(writeRulesFile(t, allowDeploy))
		if err != nil {
			t.Fatal(err)
		}
		pick := func(l string) answer.Decision { return answer.Decision{Action: answer.Select, Labels: []string{l}} }
		r := runSession(t, version, "testdata/scenarios/elicit.yaml", "deploy it", "  - {when: {header: x}, answer: {cancel: true}}\n", nil, nil,
			func(c *session.Config) {
				c.Host.Args = append(c.Host.Args, "--mcp-config", claudetest.MCPConfig(t, got), "--permission-mode", "default")
				c.Policy = rules.Ask
				c.Asker = promptScript{"MCP server demo": pick("Accept"), "Environment": pick("staging"), "Really deploy?": pick("yes")}
				c.Permits, c.Elicits = set, set
			})
		b, _ := os.ReadFile(got)
		var first map[string]any
		want := map[string]any{"action": "accept", "content": map[string]any{"env": "staging", "confirm": true}}
		if json.Unmarshal(b, &first) != nil || !sameAnswer(first, want) {
			t.Fatalf("the server got %s, want %v\n%s", b, want, r)
		}
		var mine []map[string]any
		for _, v := range r.find(t, "verified") {
			if v["elicitation"] == "demo" {
				mine = append(mine, v)
			}
		}
		if len(mine) != 1 || mine[0]["rule"] != "ask" || mine[0]["by"] != "claudewrap" {
			t.Fatalf("want the prompt's answer verified\n%s", r)
		}
		report("Claude Code %s: an MCP server's form no rule answers, under --on-unmatched ask: asked on claudewrap's prompt, given on the screen, verified; the server got %s",
			version, strings.TrimSpace(string(b)))
	})
}
