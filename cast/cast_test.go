package cast

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, 100, 30, "2.1.227")
	if err != nil {
		t.Fatal(err)
	}
	tick := w.start
	w.now = func() time.Time { tick = tick.Add(250 * time.Millisecond); return tick }
	// "数" is e6 95 b0: split it across two writes.
	w.Output([]byte("a\x1b[31m\xe6\x95"))
	w.Output([]byte("\xb0b"))
	w.Input([]byte("\r"))
	w.Resize(80, 24)
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	h, evs, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if h.Width != 100 || h.Height != 30 || h.Version != 2 || h.ClaudeVersion() != "2.1.227" || h.Env["TERM"] != "xterm-256color" {
		t.Fatalf("header %+v", h)
	}
	want := []Event{
		{0.25, "o", "a\x1b[31m"},
		{0.5, "o", "数b"},
		{0.75, "i", "\r"},
		{1.0, "r", "80x24"},
	}
	if len(evs) != len(want) {
		t.Fatalf("events %+v, want %+v", evs, want)
	}
	for i := range want {
		if evs[i] != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, evs[i], want[i])
		}
	}
	c, r, err := ParseSize(evs[3].Data)
	if err != nil || c != 80 || r != 24 {
		t.Errorf("ParseSize = %d, %d, %v", c, r, err)
	}
}

// A writer not told the version leaves it out, and a reader of a recording
// from elsewhere (asciinema's own) gets "".
func TestNoClaudeVersion(t *testing.T) {
	var buf bytes.Buffer
	if _, err := NewWriter(&buf, 80, 24, ""); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(ClaudeVersionEnv)) {
		t.Errorf("header %s names a version", buf.Bytes())
	}
	for _, in := range []string{buf.String(), `{"version": 2, "width": 80, "height": 24, "env": {"SHELL": "/bin/bash"}}` + "\n"} {
		h, _, err := Read(bytes.NewBufferString(in))
		if err != nil || h.ClaudeVersion() != "" {
			t.Errorf("Read(%q): ClaudeVersion() = %q, %v", in, h.ClaudeVersion(), err)
		}
	}
}

func TestReadErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"not json\n",
		`{"version": 1, "width": 80, "height": 24}` + "\n",
		`{"version": 2, "width": 80, "height": 24}` + "\n[1.0, \"o\"]\n",
		// A screen no terminal has: refused before an emulator that size
		// is made, in the header and in a resize.
		`{"version": 2, "width": 6000, "height": 6000}` + "\n",
		`{"version": 2, "width": 50000, "height": 50000}` + "\n",
		`{"version": 2, "width": 0, "height": 24}` + "\n",
		`{"version": 2, "width": 80, "height": 24}` + "\n[1.0, \"r\", \"6000x6000\"]\n",
		// Many large resizes in a few kilobytes.
		`{"version": 2, "width": 80, "height": 24}` + "\n" + strings.Repeat("[1.0, \"r\", \"1000x1000\"]\n", 60),
	} {
		if _, _, err := Read(bytes.NewBufferString(in)); err == nil {
			t.Errorf("Read(%q) succeeded", in)
		}
	}
}

func TestCompleteUTF8(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0}, {"abc", 3}, {"a\xe6\x95", 1}, {"a\xe6\x95\xb0", 4}, {"\xf0\x9f\x9a", 0}, {"\xf0\x9f\x9a\x80", 4},
	} {
		if got := completeUTF8([]byte(tc.in)); got != tc.want {
			t.Errorf("completeUTF8(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// recorder is a Terminal that notes what it is fed.
type recorder struct{ fed []string }

func (r *recorder) Write(p []byte) (int, error) { r.fed = append(r.fed, string(p)); return len(p), nil }
func (r *recorder) Resize(cols, rows int)       { r.fed = append(r.fed, fmt.Sprintf("%dx%d", cols, rows)) }

// TestReaderPlay: a Reader plays what Read and Play play, up to the time
// asked, and reads nothing past the first event after it (here a broken
// line).
func TestReaderPlay(t *testing.T) {
	const in = `{"version": 2, "width": 80, "height": 24}` + "\n" +
		`[0.5, "o", "a"]` + "\n\n" + `[1.0, "i", "\r"]` + "\n" + `[1.5, "r", "100x30"]` + "\n" + `[2.0, "o", "b"]` + "\n"
	for _, at := range []float64{-1, 0, 1.5, 9} {
		_, evs, err := Read(bytes.NewBufferString(in))
		if err != nil {
			t.Fatal(err)
		}
		var want, got recorder
		Play(evs, at, &want)
		rd, err := NewReader(bytes.NewBufferString(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := rd.Play(at, &got); err != nil || fmt.Sprint(got.fed) != fmt.Sprint(want.fed) {
			t.Errorf("at %v: fed %q (%v), want %q", at, got.fed, err, want.fed)
		}
	}
	rd, _ := NewReader(bytes.NewBufferString(in + "broken\n"))
	var got recorder
	if err := rd.Play(1.9, &got); err != nil || len(got.fed) != 2 {
		t.Errorf("at 1.9: fed %q, %v", got.fed, err)
	}
	rd, _ = NewReader(bytes.NewBufferString(in + "broken\n"))
	if err := rd.Play(-1, &got); err == nil || err.Error() != "line 7: want [time, kind, data]" {
		t.Errorf("to the end: %v, want the broken line's number", err)
	}
}
