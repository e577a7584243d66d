package events

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Fields are the event-specific fields, in snake_case.
type Fields map[string]any

// Log writes events. A nil *Log discards them. It is safe for concurrent use.
type Log struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
	err error
}

// New returns a log writing to w.
func New(w io.Writer) *Log { return &Log{w: w, now: time.Now} }

// Emit writes one event named name.
func (l *Log) Emit(name string, f Fields) {
	if l == nil {
		return
	}
	obj := make(map[string]any, len(f)+2)
	for k, v := range f {
		obj[k] = v
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	obj["ts"] = l.now().UTC().Format(time.RFC3339Nano)
	obj["event"] = name
	b, err := json.Marshal(obj)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"ts": obj["ts"], "event": "error", "message": "encode " + name + ": " + err.Error()})
	}
	if _, err := l.w.Write(append(b, '\n')); err != nil && l.err == nil {
		l.err = err
	}
}

// Err reports the first write error.
func (l *Log) Err() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
