package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
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

// TestTail: a Tail reads on after the last whole line: it finds a record
// appended since, the line being written read again once whole, and reads
// a replaced file from its start.
func TestTail(t *testing.T) {
	p := write(t)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	whole := b[:bytes.LastIndexByte(b, '\n')+1]
	tail := &Tail{Path: p, ID: "t9"}
	if _, ok := tail.Result(); ok {
		t.Fatal("t9 found before it was written")
	}
	rec := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"late"}]}}`
	appendTo := func(s string) {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(append(slices.Clone(whole), s...)); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(rec[:20])
	if _, ok := tail.Result(); ok {
		t.Errorf("t9 found half written")
	}
	appendTo(rec + "\n")
	if r, ok := tail.Result(); !ok || r.Content != "late" {
		t.Errorf("t9 appended: %+v, %v", r, ok)
	}
	// Replaced by another file (a rename over it): read from its start.
	other := filepath.Join(t.TempDir(), "other.jsonl")
	if err := os.WriteFile(other, []byte(rec+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, p); err != nil {
		t.Fatal(err)
	}
	if r, ok := tail.Result(); !ok || r.Content != "late" {
		t.Errorf("t9 in the replaced file: %+v, %v", r, ok)
	}
}
