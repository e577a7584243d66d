package events

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

func TestEmit(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf)
	l.now = func() time.Time { return time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC) }
	l.Emit("exit", Fields{"code": 3})
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%q: %v", buf.String(), err)
	}
	if got["event"] != "exit" || got["code"] != float64(3) || got["ts"] != "2026-11-21T20:00:00Z" {
		t.Errorf("got %v", got)
	}
	var nilLog *Log
	nilLog.Emit("start", nil) // must not panic
}

// TestEmitEscapes: a field that would take over a terminal the log is
// printed on (a C1 CSI, DEL, a bidi override; encoding/json escapes C0
// itself) is written escaped, and reads back the same.
func TestEmitEscapes(t *testing.T) {
	var buf bytes.Buffer
	const q = "\x1b]52;c;ZXZpbA==\x07 \u009b31m \x7f \u202eevil"
	New(&buf).Emit("question", Fields{"question": q})
	if i := bytes.IndexFunc(buf.Bytes(), func(r rune) bool { return r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f || r == '\u202e' }); i >= 0 {
		t.Errorf("raw at %d: %q", i, buf.String())
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || got["question"] != q {
		t.Errorf("read back %q, %v", got["question"], err)
	}
}
