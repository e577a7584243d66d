package events

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/claudewrap/claudewrap/internal/safe"
)

// Fields are the event-specific fields, in snake_case.
type Fields map[string]any

// Log writes events. A nil *Log discards them. It is safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	w     io.Writer // nil: JSON lines go nowhere, watchers still see events
	now   func() time.Time
	err   error
	watch []func(name string, f Fields)
}

// New returns a log writing JSON lines to w (none when w is nil).
func New(w io.Writer) *Log { return &Log{w: w, now: time.Now} }

// Watch has fn see every event emitted from now on, in order, after it is
// written (the human lines a person reads are made this way). fn must not
// emit.
func (l *Log) Watch(fn func(name string, f Fields)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.watch = append(l.watch, fn)
}

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
	if l.w != nil {
		b, err := json.Marshal(obj)
		if err != nil {
			b, _ = json.Marshal(map[string]any{"ts": obj["ts"], "event": "error", "message": "encode " + name + ": " + err.Error()})
		}
		if _, err := l.w.Write(append(safe.JSON(b), '\n')); err != nil && l.err == nil {
			l.err = err
		}
	}
	for _, fn := range l.watch {
		fn(name, f)
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
