package cast

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Header is the first line of a recording.
type Header struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// ClaudeVersionEnv is the header's env key for the Claude Code version the
// recording was made with ([Header.ClaudeVersion]). It is only ever written
// into recordings: claudewrap never reads it from its own environment.
const ClaudeVersionEnv = "CLAUDEWRAP_CLAUDE_VERSION"

// ClaudeVersion is the Claude Code version the recording was made with (the
// install's, or the banner's where a recording starts from a drawing of the
// screen), or "" when it does not say. A replay hands it to the emulator
// (screen.Options.Version) so that a page is measured as it was live: not
// every recording shows a banner the emulator can read.
func (h Header) ClaudeVersion() string { return h.Env[ClaudeVersionEnv] }

// Event is one line after the header.
type Event struct {
	Time float64 // seconds since the start
	Kind string  // "o" output, "i" input, "r" resize ("COLSxROWS")
	Data string
}

// Writer appends events to a recording. It is safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	w     *bufio.Writer
	start time.Time
	now   func() time.Time
	tail  map[string][]byte // incomplete UTF-8 per event kind
	err   error
}

// NewWriter writes the header and returns a writer whose event times count
// from now. version is the recorded Claude Code's ("" when unknown), kept
// in the header's env ([Header.ClaudeVersion]).
func NewWriter(w io.Writer, cols, rows int, version string) (*Writer, error) {
	cw := &Writer{w: bufio.NewWriter(w), start: time.Now(), now: time.Now, tail: map[string][]byte{}}
	h := Header{Version: 2, Width: cols, Height: rows, Timestamp: cw.start.Unix(),
		Env: map[string]string{"TERM": "xterm-256color"}}
	if version != "" {
		h.Env[ClaudeVersionEnv] = version
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	cw.w.Write(append(b, '\n'))
	return cw, cw.w.Flush()
}

// Output records bytes the child wrote.
func (w *Writer) Output(p []byte) { w.event("o", p) }

// Input records keys sent to the child.
func (w *Writer) Input(p []byte) { w.event("i", p) }

// Resize records a change of terminal size.
func (w *Writer) Resize(cols, rows int) { w.event("r", []byte(fmt.Sprintf("%dx%d", cols, rows))) }

// EventAt records an event of kind ("o", "i", "r") that happened at that
// time since the recording's start: for a recording made after the fact.
func (w *Writer) EventAt(at time.Duration, kind string, p []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.eventLocked(at, kind, p)
}

// event writes one line, holding back an incomplete trailing UTF-8
// character so it is not turned into U+FFFD by JSON encoding.
func (w *Writer) event(kind string, p []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.eventLocked(w.now().Sub(w.start), kind, p)
}

func (w *Writer) eventLocked(at time.Duration, kind string, p []byte) {
	if w.err != nil {
		return
	}
	data := append(w.tail[kind], p...)
	cut := completeUTF8(data)
	w.tail[kind] = append([]byte(nil), data[cut:]...)
	if cut == 0 {
		return
	}
	t := at.Seconds()
	s, err := json.Marshal(string(data[:cut]))
	if err != nil {
		w.err = err
		return
	}
	fmt.Fprintf(w.w, "[%.6f, %q, %s]\n", t, kind, s)
	w.err = w.w.Flush()
}

// Err reports the first write error.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// completeUTF8 returns the length of the prefix of p that does not end in
// the middle of a UTF-8 character.
func completeUTF8(p []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		c := p[len(p)-i]
		if c < utf8.RuneSelf {
			return len(p)
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(p[len(p)-i:]) {
				return len(p)
			}
			return len(p) - i
		}
	}
	return len(p)
}

// Read parses a whole recording.
func Read(r io.Reader) (Header, []Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	var h Header
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return h, nil, err
		}
		return h, nil, errors.New("empty recording")
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return h, nil, fmt.Errorf("line 1: header: %w", err)
	}
	if h.Version != 2 {
		return h, nil, fmt.Errorf("line 1: asciicast version %d, want 2", h.Version)
	}
	var evs []Event
	for line := 2; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var raw []json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil || len(raw) != 3 {
			return h, nil, fmt.Errorf("line %d: want [time, kind, data]", line)
		}
		var ev Event
		if err := json.Unmarshal(raw[0], &ev.Time); err != nil {
			return h, nil, fmt.Errorf("line %d: time: %w", line, err)
		}
		if err := json.Unmarshal(raw[1], &ev.Kind); err != nil {
			return h, nil, fmt.Errorf("line %d: kind: %w", line, err)
		}
		if err := json.Unmarshal(raw[2], &ev.Data); err != nil {
			return h, nil, fmt.Errorf("line %d: data: %w", line, err)
		}
		evs = append(evs, ev)
	}
	return h, evs, sc.Err()
}

// ParseSize parses the data of an "r" event.
func ParseSize(s string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(s, "x")
	if ok {
		if cols, err = strconv.Atoi(c); err == nil {
			if rows, err = strconv.Atoi(r); err == nil && cols > 0 && rows > 0 {
				return cols, rows, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("bad size %q", s)
}

// Terminal is what [Play] feeds: an emulator, typically.
type Terminal interface {
	io.Writer
	Resize(cols, rows int)
}

// Play feeds the output and resize events up to at seconds (all of them
// when at < 0) to t, in order.
func Play(evs []Event, at float64, t Terminal) error {
	for _, ev := range evs {
		if at >= 0 && ev.Time > at {
			break
		}
		switch ev.Kind {
		case "o":
			if _, err := io.WriteString(t, ev.Data); err != nil {
				return err
			}
		case "r":
			c, r, err := ParseSize(ev.Data)
			if err != nil {
				return err
			}
			t.Resize(c, r)
		}
	}
	return nil
}
