package transcript

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
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

// TestLastMessage: the turn is over when the last message of the main
// conversation is the assistant's and calls no tool; not while a tool
// runs, nor while Claude waits for its model after a tool_result. Lines of
// other types, a subagent's messages and a line still being written do
// not count.
func TestLastMessage(t *testing.T) {
	const (
		prompt  = `{"type":"user","uuid":"u1","message":{"role":"user","content":"go now"}}` + "\n"
		text    = `{"type":"assistant","uuid":"a1","message":{"role":"assistant","stop_reason":"tool_use","content":[{"type":"text","text":"Running."}]}}` + "\n"
		use     = `{"type":"assistant","uuid":"a2","message":{"role":"assistant","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}` + "\n"
		result  = `{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}` + "\n"
		done    = `{"type":"assistant","uuid":"a3","message":{"role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"Done."}]}}` + "\n"
		other   = `{"type":"last-prompt","lastPrompt":"go now"}` + "\n" + `{"type":"attachment","uuid":"x","message":{"role":"user"}}` + "\n"
		subDone = `{"type":"assistant","uuid":"s1","isSidechain":true,"message":{"role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"sub"}]}}` + "\n"
	)
	for _, tc := range []struct {
		name, content string
		over          bool
		uuid          string
	}{
		{"empty", "", false, ""},
		{"prompt", prompt, false, "u1"},
		{"tool running", prompt + text + use + other, false, "a2"},
		{"waiting for the model", prompt + text + use + result, false, "u2"},
		{"subagent done", prompt + text + use + subDone, false, "a2"},
		{"over", prompt + text + use + result + done + other, true, "a3"},
		{"over, next line being written", prompt + done + `{"type":"user","uuid":"u9","mess`, true, "a3"},
		{"end being written", prompt + result + done[:40], false, "u2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			m, _ := LastMessage(p)
			if m.TurnOver() != tc.over || m.UUID != tc.uuid {
				t.Errorf("last %+v: over %t, want %t (%s)", m, m.TurnOver(), tc.over, tc.uuid)
			}
		})
	}
	if _, ok := LastMessage(filepath.Join(t.TempDir(), "none.jsonl")); ok {
		t.Error("a transcript that is not there has a message")
	}
}

func TestNames(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(`{"type":"mode","sessionId":"abc"}`+"\n"), 0o600)
	if !Names(p, "abc") || Names(p, "ab") || Names(p, "other") || Names(filepath.Join(t.TempDir(), "x"), "abc") {
		t.Error("Names")
	}
}

// TestFIFONotWaitedOn: a transcript path that names a FIFO (a hook
// message's, which a process of Claude's can forge) reads as no
// transcript at once; opening it would wait for a writer for ever.
func TestFIFONotWaitedOn(t *testing.T) {
	fifo := testkit.FIFO(t, filepath.Join(t.TempDir(), "t.jsonl"))
	for _, tc := range []struct {
		name string
		read func() bool // whether anything was read
	}{
		{"Read", func() bool { uses, _ := Read(fifo); return uses != nil }},
		{"Tail", func() bool { _, ok := (&Tail{Path: fifo, ID: "t1"}).Result(); return ok }},
		{"LastMessage", func() bool { _, ok := LastMessage(fifo); return ok }},
		{"Names", func() bool { return Names(fifo, "s") }},
	} {
		if testkit.Within(t, 5*time.Second, tc.name, tc.read) {
			t.Errorf("%s read something from a FIFO", tc.name)
		}
	}
}

// TestAwait: a wait sees what is written once it has begun, whether the
// file is there when it begins or made after, and gives up at its bound.
func TestAwait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	// read writes line the first time it is called: the wait has begun.
	read := func(line string, write func(string)) func() bool {
		began := false
		return func() bool {
			if !began {
				began = true
				go write(line)
			}
			b, _ := os.ReadFile(path)
			return bytes.Contains(b, []byte(line))
		}
	}
	create := func(line string) { os.WriteFile(path, []byte(line+"\n"), 0o600) }
	appendLine := func(line string) {
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(line + "\n")
		f.Close()
	}
	if !Await(context.Background(), path, 5*time.Second, read("one", create)) {
		t.Fatal("the file made during the wait was not seen")
	}
	if !Await(context.Background(), path, 5*time.Second, read("two", appendLine)) {
		t.Fatal("a line written during the wait was not seen")
	}
	never := func() bool { b, _ := os.ReadFile(path); return bytes.Contains(b, []byte("three")) }
	if Await(context.Background(), path, 200*time.Millisecond, never) {
		t.Fatal("a line never written was seen")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Await(ctx, path, 5*time.Second, never) {
		t.Fatal("an ended wait reported a line never written")
	}
}
