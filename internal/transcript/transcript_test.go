package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

// A transcript as Claude writes it: a tool_use, its cancel, another
// tool_use answered, a line of another type naming the same id, and a
// line still being written.
const lines = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"AskUserQuestion","input":{}},{"type":"tool_use","id":"t2","name":"AskUserQuestion","input":{}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"The user doesn't want to proceed with this tool use."}]}}
{"type":"api-request-blob","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"not a record"}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"Your questions have been answered"}]}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3","con`

func write(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRead(t *testing.T) {
	uses, results := Read(write(t))
	if len(uses) != 2 || uses[0].ID != "t1" || uses[1].ID != "t2" {
		t.Errorf("uses %+v", uses)
	}
	if len(results) != 2 || !Cancelled(results["t1"]) || results["t2"] != (Result{Content: "Your questions have been answered"}) {
		t.Errorf("results %+v", results)
	}
}

// TestResultOf: one tool use's record, as Read finds it; none for a tool
// use with no record, or only a line being written.
func TestResultOf(t *testing.T) {
	p := write(t)
	for _, tc := range []struct {
		id        string
		ok, ended bool
	}{{"t1", true, true}, {"t2", true, false}, {"t3", false, false}, {"t4", false, false}} {
		r, ok := ResultOf(p, tc.id)
		if ok != tc.ok || Cancelled(r) != tc.ended {
			t.Errorf("%s: %+v, %t; want found %t, cancelled %t", tc.id, r, ok, tc.ok, tc.ended)
		}
	}
	if r, _ := ResultOf(p, "t2"); r.Content != "Your questions have been answered" {
		t.Errorf("t2: %+v", r)
	}
	if _, ok := ResultOf(filepath.Join(t.TempDir(), "none.jsonl"), "t1"); ok {
		t.Errorf("a record in a missing transcript")
	}
}
