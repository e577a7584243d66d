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

// MaxLine bounds one line of a recording: an event holds one read of
// Claude's output, far shorter.
const MaxLine = 64 << 20

// Reader reads a recording one event at a time, so that a long one is
// played without being held whole.
type Reader struct {
	Header Header
	sc     *bufio.Scanner
	line   int
	cells  int64 // the screen cells the resizes read so far make
}

// MaxResizeCells bounds the cells all of a recording's resizes together
// make an emulator lay out again: a few kilobytes of resize events must not
// take minutes of CPU and hundreds of megabytes.
const MaxResizeCells = 50_000_000

// NewReader reads and checks the recording's header.
func NewReader(r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxLine)
	rd := &Reader{sc: sc, line: 1}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return rd, rd.scanErr(err)
		}
		return rd, errors.New("empty recording")
	}
	if err := json.Unmarshal(sc.Bytes(), &rd.Header); err != nil {
		return rd, fmt.Errorf("line 1: header: %w", err)
	}
	if rd.Header.Version != 2 {
		return rd, fmt.Errorf("line 1: asciicast version %d, want 2", rd.Header.Version)
	}
	if err := checkSize(rd.Header.Width, rd.Header.Height); err != nil {
		return rd, fmt.Errorf("line 1: header: %w", err)
	}
	return rd, nil
}

// Next returns the next event, or io.EOF after the last.
func (r *Reader) Next() (Event, error) {
	var ev Event
	for r.sc.Scan() {
		r.line++
		if strings.TrimSpace(r.sc.Text()) == "" {
			continue
		}
		var raw []json.RawMessage
		if err := json.Unmarshal(r.sc.Bytes(), &raw); err != nil || len(raw) != 3 {
			return ev, fmt.Errorf("line %d: want [time, kind, data]", r.line)
		}
		if err := json.Unmarshal(raw[0], &ev.Time); err != nil {
			return ev, fmt.Errorf("line %d: time: %w", r.line, err)
		}
		if err := json.Unmarshal(raw[1], &ev.Kind); err != nil {
			return ev, fmt.Errorf("line %d: kind: %w", r.line, err)
		}
		if err := json.Unmarshal(raw[2], &ev.Data); err != nil {
			return ev, fmt.Errorf("line %d: data: %w", r.line, err)
		}
		if ev.Kind == "r" {
			c, rows, err := ParseSize(ev.Data)
			if err != nil {
				return ev, fmt.Errorf("line %d: %w", r.line, err)
			}
			if r.cells += int64(c) * int64(rows); r.cells > MaxResizeCells {
				return ev, fmt.Errorf("line %d: its resizes make more than %d screen cells in all: refused", r.line, MaxResizeCells)
			}
		}
		return ev, nil
	}
	if err := r.sc.Err(); err != nil {
		return ev, r.scanErr(err)
	}
	return ev, io.EOF
}

func (r *Reader) scanErr(err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("line %d: longer than %d bytes", r.line+1, MaxLine)
	}
	return err
}

// Play feeds the output and resize events up to at seconds (all of them
// when at < 0) to t, in order, reading no further than it needs.
func (r *Reader) Play(at float64, t Terminal) error {
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if at >= 0 && ev.Time > at {
			return nil
		}
		if err := play(ev, t); err != nil {
			return err
		}
	}
}

// Read parses a whole recording.
func Read(r io.Reader) (Header, []Event, error) {
	rd, err := NewReader(r)
	if err != nil {
		return rd.Header, nil, err
	}
	var evs []Event
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return rd.Header, evs, nil
		}
		if err != nil {
			return rd.Header, nil, err
		}
		evs = append(evs, ev)
	}
}

// MaxSize bounds a recording's screen, in columns and in rows, as
// claudewrap run's --size is bounded: an emulator that size is made for
// it, so a few bytes of header must not ask for gigabytes.
const MaxSize = 1000

// checkSize refuses a screen size out of 1..MaxSize.
func checkSize(cols, rows int) error {
	if cols < 1 || rows < 1 || cols > MaxSize || rows > MaxSize {
		return fmt.Errorf("screen size %dx%d: want 1x1 to %dx%d", cols, rows, MaxSize, MaxSize)
	}
	return nil
}

// ParseSize parses the data of an "r" event.
func ParseSize(s string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(s, "x")
	if ok {
		if cols, err = strconv.Atoi(c); err == nil {
			if rows, err = strconv.Atoi(r); err == nil {
				if err := checkSize(cols, rows); err != nil {
					return 0, 0, err
				}
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
		if err := play(ev, t); err != nil {
			return err
		}
	}
	return nil
}

// play feeds one event to t: output is written, a resize made, input
// (keys the wrapper sent) passed over.
func play(ev Event, t Terminal) error {
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
	return nil
}
