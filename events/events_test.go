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
