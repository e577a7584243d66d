package session

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/transcript"
	"github.com/claudewrap/claudewrap/screen"
)

// transcriptLines writes a Claude Code transcript: each call is a tool_use
// (assistant) and, when result is not nil, its tool_result (user).
type call struct {
	id, name, input string
	result          *transcript.Result
}

func writeTranscript(t *testing.T, calls ...call) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, c := range calls {
		_ = enc.Encode(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{
			map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(c.input)}}}})
		if c.result != nil {
			_ = enc.Encode(map[string]any{"type": "user", "message": map[string]any{"content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": c.id, "is_error": c.result.IsError,
					"content": []any{map[string]any{"type": "text", "text": c.result.Content}}}}}})
		}
	}
	b.WriteString(`{"type":"user","message":{"content":[{"type":"tool_res`) // a line being written
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func permSession(t *testing.T, path string, checks ...permCheck) (*session, *bytes.Buffer) {
	var log bytes.Buffer
	s := newSession(Config{Log: events.New(&log)})
	s.loop.start() // serve's: the report is its
	t.Cleanup(s.loop.stop)
	s.follow("", path)
	for _, c := range checks {
		s.expect(c)
	}
	return s, &log
}

const ls = `{"command":"ls /etc","description":"List /etc"}`

// TestPermissionsVerified: each permission answer is found by tool and
// input (the first call not yet claimed) and judged from its tool_result.
func TestPermissionsVerified(t *testing.T) {
	path := writeTranscript(t,
		call{"t1", "Bash", ls, &transcript.Result{Content: "passwd\nhosts"}},
		call{"t2", "Bash", ls, &transcript.Result{Content: "no network in this job", IsError: true}},
		call{"t3", "Bash", `{"command":"false"}`, &transcript.Result{Content: "Exit code 1", IsError: true}},
		call{"t4", "ExitPlanMode", `{"plan":"1. x"}`, &transcript.Result{Content: "User has approved your plan. You can now start coding."}},
		call{"t5", "WebFetch", `{"url":"https://example.com"}`, &transcript.Result{IsError: true,
			Content: "The user doesn't want to proceed with this tool use. The tool use was rejected."}},
	)
	s, log := permSession(t, path,
		permCheck{tool: "Bash", input: json.RawMessage(ls), want: ran, kind: screen.PermissionDialog},
		permCheck{tool: "Bash", input: json.RawMessage(ls), want: refused, text: "no network in this job"},
		// A tool that ran and failed is not a refusal; the request may
		// carry a field fewer than the transcript.
		permCheck{tool: "Bash", input: json.RawMessage(`{}`), want: ran},
		permCheck{tool: "ExitPlanMode", input: json.RawMessage(`{"plan":"1. x","planFilePath":"/p.md"}`), want: approved},
		permCheck{tool: "WebFetch", input: json.RawMessage(`{"url":"https://example.com"}`), want: refused},
	)
	s.loop.do(func() { s.perms[2].input = json.RawMessage(`{"command":"false"}`) })
	s.checkPermissions(context.Background(), true)
	if n := strings.Count(log.String(), `"event":"verified"`); n != 5 || s.loop.readReport().Mismatch {
		t.Fatalf("want 5 verified, no mismatch\n%s", log)
	}
	for _, id := range []string{"t1", "t2", "t3", "t4", "t5"} {
		if !strings.Contains(log.String(), `"tool_use_id":"`+id+`"`) {
			t.Errorf("%s not matched\n%s", id, log)
		}
	}
}

// TestPermissionsMismatch: Claude recorded something other than the
// answer: a refusal where the rule allowed, a run where it denied, another
// message than the rule's. Each is a mismatch (exit 6).
func TestPermissionsMismatch(t *testing.T) {
	refusal := &transcript.Result{IsError: true, Content: "The user doesn't want to proceed with this tool use."}
	for _, tc := range []struct {
		name string
		c    permCheck
		res  *transcript.Result
	}{
		{"allowed but refused", permCheck{want: ran}, refusal},
		{"denied but ran", permCheck{want: refused, text: "no"}, &transcript.Result{Content: "passwd"}},
		{"another message", permCheck{want: refused, text: "no network in this job"}, refusal},
		{"plan not approved", permCheck{want: approved}, refusal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.tool, tc.c.input = "Bash", json.RawMessage(ls)
			s, log := permSession(t, writeTranscript(t, call{"t1", "Bash", ls, tc.res}), tc.c)
			s.checkPermissions(context.Background(), true)
			if !s.loop.readReport().Mismatch || !strings.Contains(log.String(), `"event":"mismatch"`) {
				t.Fatalf("want a mismatch\n%s", log)
			}
		})
	}
}

// TestPermissionsMissing: a record not (yet) written stays pending at the
// end of a turn and is reported not verified when Claude has exited; a
// call of another tool or input is not taken for it.
func TestPermissionsMissing(t *testing.T) {
	path := writeTranscript(t,
		call{"t1", "Bash", `{"command":"rm -rf /"}`, &transcript.Result{Content: ""}},
		call{"t2", "Bash", ls, nil},
	)
	s, log := permSession(t, path, permCheck{tool: "Bash", input: json.RawMessage(ls), want: ran})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no wait: Claude is gone
	if s.matchPermissions(path) != 1 {
		t.Fatalf("want the check pending\n%s", log)
	}
	s.checkPermissions(ctx, true)
	if s.loop.readReport().Mismatch || !strings.Contains(log.String(), "not verified") || strings.Contains(log.String(), `"verified"`) {
		t.Fatalf("want not verified, no mismatch\n%s", log)
	}
}
