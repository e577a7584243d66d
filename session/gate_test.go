package session

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/rules"
)

func permits(t *testing.T, yaml string) *rules.Set {
	t.Helper()
	f, err := rules.Parse("rules.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return &rules.Set{Files: []*rules.File{f}}
}

// preTool sends a tool's PreToolUse and returns what the session replied
// (nil for no output), failing when it did not reply.
func preTool(t *testing.T, c *fakeChild, session, tool, input string) []byte {
	t.Helper()
	got := make(chan []byte, 1)
	m := hook.Message{Payload: &hook.Payload{SessionID: session, HookEventName: hook.PreToolUse, ToolName: tool,
		ToolUseID: "toolu_" + tool, Input: json.RawMessage(input), PermissionMode: "auto"},
		Reply: func(b []byte) bool { got <- b; return true }}
	select {
	case c.msgs <- m:
	case <-time.After(10 * time.Second):
		t.Fatal("the session took no message")
	}
	select {
	case b := <-got:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no reply")
		return nil
	}
}

// TestDenyAtPreToolUse: a tool's PreToolUse is decided by the deny rules,
// the first matching permission rule deciding: a deny is returned to
// Claude with its message and reported with its rule and file; an allow,
// or no rule, leaves the call to Claude. A PreToolUse of another session
// is denied all the same, but neither counted nor reported as this
// session's. Claude's
// permission mode is said once when it asks nothing that allow rules
// could answer.
func TestDenyAtPreToolUse(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	set := permits(t, `version: 1
permissions:
  - {name: tests, when: {tool: Bash, command: "^go test"}, decide: allow}
  - {name: no-bash, when: {tool: Bash}, decide: {deny: "no shell here"}}
`)
	r := startRun(t, c, Config{Permits: set, Gate: set.Denies(), AnswersDialogs: set.AnswersDialogs(), Host: hostHeadless})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup", PermissionMode: "auto"})
	r.wait(`"permission_mode":"auto"`)

	out := preTool(t, c, "real", "Bash", `{"command":"rm -rf /"}`)
	if !strings.Contains(string(out), `"permissionDecision":"deny"`) || !strings.Contains(string(out), `"permissionDecisionReason":"no shell here"`) {
		t.Errorf("denied: replied %s", out)
	}
	ev := r.wait(`"rule":"no-bash"`)
	if ev["event"] != "decision" || ev["hook"] != "PreToolUse" || ev["file"] != "rules.yaml:4" || ev["tool_use_id"] != "toolu_Bash" {
		t.Errorf("decision %v", ev)
	}
	if out := preTool(t, c, "real", "Bash", `{"command":"go test ./..."}`); out != nil {
		t.Errorf("allowed: replied %s", out)
	}
	if out := preTool(t, c, "real", "Read", `{"file_path":"/etc/passwd"}`); out != nil {
		t.Errorf("no rule: replied %s", out)
	}
	if out := preTool(t, c, "other", "Bash", `{"command":"curl x | sh"}`); !strings.Contains(string(out), `"permissionDecision":"deny"`) {
		t.Errorf("another session's: replied %s", out)
	}
	// Handled in turn: once this one is answered, the other session's is
	// done with.
	preTool(t, c, "real", "Read", `{"file_path":"README.md"}`)
	if strings.Contains(r.log.String(), "refused") {
		t.Errorf("another session's call reported refused\n%s", r)
	}
	if n := strings.Count(r.log.String(), `"event":"decision"`); n != 1 {
		t.Errorf("%d decisions, want the session's one\n%s", n, r)
	}
	if n := strings.Count(r.log.String(), `"event":"permission_mode"`); n != 1 {
		t.Errorf("the mode said %d times\n%s", n, r)
	}
	checks := 0
	r.s.loop.do(func() { checks = len(r.s.perms) })
	if checks != 1 {
		t.Errorf("%d denies to check in the transcript, want 1", checks)
	}
}

// preToolIn is preTool for a call made in Claude's folder cwd.
func preToolIn(t *testing.T, c *fakeChild, cwd, tool, input string) []byte {
	t.Helper()
	got := make(chan []byte, 1)
	m := hook.Message{Payload: &hook.Payload{SessionID: "real", HookEventName: hook.PreToolUse, ToolName: tool, Cwd: cwd,
		ToolUseID: "toolu_" + tool, Input: json.RawMessage(input), PermissionMode: "bypassPermissions"},
		Reply: func(b []byte) bool { got <- b; return true }}
	select {
	case c.msgs <- m:
	case <-time.After(10 * time.Second):
		t.Fatal("the session took no message")
	}
	select {
	case b := <-got:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no reply")
		return nil
	}
}

// TestGateReadsTheCall: the PreToolUse gate judges a command part by part
// and a relative path from Claude's folder, as its hook payload gives it:
// a deny holds for the one part it meets, which the decision names, an
// allow that does not hold for every part leaves the deny after it to
// decide, and a part whose commands the deny cannot see is refused.
func TestGateReadsTheCall(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	set := permits(t, `version: 1
permissions:
  - {name: tests, when: {tool: Bash, command: "^go test "}, decide: allow}
  - {name: no-rm, when: {tool: Bash, command: "^rm "}, decide: {deny: "no deleting"}}
  - {name: no-secrets, when: {tool: Write, path: "/work/secrets/**"}, decide: {deny: "not there"}}
`)
	r := startRun(t, c, Config{Permits: set, Gate: set.Denies(), AnswersDialogs: set.AnswersDialogs(), Host: hostHeadless})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup"})

	if out := preToolIn(t, c, "/work", "Bash", `{"command":"go test ./... && rm -rf /"}`); !strings.Contains(string(out), `"permissionDecisionReason":"no deleting"`) {
		t.Errorf("go test && rm: replied %s", out)
	}
	if ev := r.wait(`"rule":"no-rm"`); ev["met"] != "rm -rf /" {
		t.Errorf("decision %v: want the part it met", ev)
	}
	if out := preToolIn(t, c, "/work", "Bash", `{"command":"go test ./... | grep ok"}`); out != nil {
		t.Errorf("go test | grep: replied %s", out)
	}
	// What the deny cannot see into is refused while it is in force.
	if out := preToolIn(t, c, "/work", "Bash", `{"command":"T=rm; $T -rf /"}`); !strings.Contains(string(out), `"permissionDecisionReason":"claudewrap cannot tell what this command runs (`) {
		t.Errorf("T=rm; $T -rf /: replied %s", out)
	}
	if ev := r.wait(`"rule":"unjudged"`); ev["met"] != "$T -rf /" {
		t.Errorf("decision %v: want the opaque part", ev)
	}
	if out := preToolIn(t, c, "/work/docs", "Write", `{"file_path":"../secrets/k"}`); !strings.Contains(string(out), `"permissionDecisionReason":"not there"`) {
		t.Errorf("../secrets/k from /work/docs: replied %s", out)
	}
	if out := preToolIn(t, c, "/elsewhere", "Write", `{"file_path":"../secrets/k"}`); out != nil {
		t.Errorf("../secrets/k from /elsewhere: replied %s", out)
	}
}

// TestUngatedCall: under the gate, a tool call Claude's transcript shows
// that never reached claudewrap (its hook killed, or wrapped by a settings
// env block) and ran stops the run; one whose PreToolUse came does not.
func TestUngatedCall(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{}, Policy: rules.Fail, Host: hostHeadless, Gate: true,
		Permits: permits(t, "version: 1\npermissions:\n  - {name: no-touch, when: {tool: Bash, command: \"^touch \"}, decide: {deny: no}}\n")})
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup"})
	r.wait(`"session"`)
	appendLine := func(v any) {
		b, _ := json.Marshal(v)
		f, err := os.OpenFile(c.transcript, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(append(b, '\n'))
		f.Close()
	}
	call := func(id, cmd string) {
		appendLine(map[string]any{"type": "assistant", "uuid": "u-" + id, "message": map[string]any{"role": "assistant", "stop_reason": "tool_use",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}}}})
		appendLine(map[string]any{"type": "user", "uuid": "r-" + id, "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "done"}}}})
	}
	// Gated: its PreToolUse came.
	c.hook(&hook.Payload{HookEventName: hook.PreToolUse, ToolName: "Bash", ToolUseID: "t-ok", Input: json.RawMessage(`{"command":"ls"}`)})
	call("t-ok", "ls")
	// Not gated: nothing came.
	call("t-sly", "touch MADE")
	ev := r.wait(`"blocked"`)
	if !strings.Contains(fmt.Sprint(ev["reason"]), "a Bash call ran that claudewrap's gate never saw") {
		t.Fatalf("blocked %v\n%s", ev, r)
	}
	if strings.Contains(r.log.String(), `"tool_use_id":"t-ok","message":"a Bash call ran`) {
		t.Errorf("the gated call was taken for one that was not\n%s", r)
	}
}
