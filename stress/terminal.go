package stress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
)

// terminal is the pseudo-terminal a session on a terminal runs on: the
// person's side, with nobody at it. It keeps everything claudewrap shows in
// a file, and resizes itself as the session's cases ask.
type terminal struct {
	ptmx, tty *os.File
	out       *os.File
	drained   chan struct{}

	mu        sync.Mutex
	log       []string // what was done to the terminal, for reading
	handedTo  string   // why claudewrap handed a form to the person, if it did
	timers    []*time.Timer
	closed    bool
	shownTail []byte // the end of what was shown, for claudewrap's last line
	// open holds the forms between their question and their end
	// (submitted, cancelled, handed over) as the events were read; landed
	// counts the resizes made while a form was open.
	open   map[string]bool
	landed map[string]int
}

// openTerminal opens a terminal of cols x rows whose output goes to path.
func openTerminal(cols, rows int, path string) (*terminal, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		ptmx.Close()
		tty.Close()
		return nil, err
	}
	out, err := os.Create(path)
	if err != nil {
		ptmx.Close()
		tty.Close()
		return nil, err
	}
	t := &terminal{ptmx: ptmx, tty: tty, out: out, drained: make(chan struct{}), open: map[string]bool{}, landed: map[string]int{}}
	go t.drain()
	return t, nil
}

// drain reads everything shown until the last holder of the person's side
// has gone (EIO), as a terminal would, so that claudewrap never blocks.
func (t *terminal) drain() {
	defer close(t.drained)
	buf := make([]byte, 32*1024)
	for {
		n, err := t.ptmx.Read(buf)
		if n > 0 {
			t.out.Write(buf[:n])
			t.mu.Lock()
			t.shownTail = append(t.shownTail, buf[:n]...)
			if len(t.shownTail) > 8192 {
				t.shownTail = t.shownTail[len(t.shownTail)-4096:]
			}
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// started closes the harness's copy of the person's side once claudewrap
// holds its own, so that the drain ends when claudewrap and Claude have.
func (t *terminal) started() { t.tty.Close() }

// resize makes the terminal cols x rows; the kernel tells claudewrap.
func (t *terminal) resize(r Resize, id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	err := pty.Setsize(t.ptmx, &pty.Winsize{Cols: uint16(r.Cols), Rows: uint16(r.Rows)})
	line := fmt.Sprintf("%s: %s +%v: %dx%d", time.Now().Format("15:04:05.000"), id, r.After, r.Cols, r.Rows)
	switch {
	case err != nil:
		line += ": " + err.Error()
	case t.open[id]:
		t.landed[id]++
	default:
		line += " (after the form)"
	}
	t.log = append(t.log, line)
}

// watch follows claudewrap's events until done: as each case's question
// comes it schedules the case's resizes, and when a form is handed to the
// person, who never comes, it calls handedOver once. It polls the events
// file (claudewrap appends a line per event) every 20 ms.
func (t *terminal) watch(events string, cases map[string][]Resize, handedOver func(), done <-chan struct{}) {
	var off int64
	var partial []byte
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		f, err := os.Open(events)
		if err != nil {
			continue // not written yet
		}
		f.Seek(off, io.SeekStart)
		b, _ := io.ReadAll(f)
		f.Close()
		off += int64(len(b))
		partial = t.feed(append(partial, b...), cases, handedOver)
	}
}

// feed acts on the whole event lines in b and returns the rest, a line
// still being written.
func (t *terminal) feed(b []byte, cases map[string][]Resize, handedOver func()) []byte {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return b
		}
		line := b[:i]
		b = b[i+1:]
		var e struct {
			Event     string `json:"event"`
			ToolUseID string `json:"tool_use_id"`
			Reason    string `json:"reason"`
		}
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		switch e.Event {
		case "question":
			t.mu.Lock()
			t.open[e.ToolUseID] = true
			for _, r := range cases[e.ToolUseID] {
				if !t.closed {
					t.timers = append(t.timers, time.AfterFunc(r.After, func() { t.resize(r, e.ToolUseID) }))
				}
			}
			t.mu.Unlock()
		case "submitted", "cancelled":
			t.mu.Lock()
			delete(t.open, e.ToolUseID)
			t.mu.Unlock()
		case "handed_over":
			t.mu.Lock()
			delete(t.open, e.ToolUseID)
			first := t.handedTo == ""
			if first {
				t.handedTo = fmt.Sprintf("%s handed to the person (%s)", e.ToolUseID, e.Reason)
			}
			t.mu.Unlock()
			if first {
				handedOver()
			}
		}
	}
}

// lastWords is claudewrap's own last line on the terminal ("claudewrap:
// …", the reason for a non-zero exit), if it wrote one.
var lastWords = regexp.MustCompile(`claudewrap: [^\r\n\x1b]*`)

// close stops what is still scheduled, waits for the drain (claudewrap has
// exited) and writes what was done to the terminal beside its output. It
// returns the reason a form was handed over, claudewrap's last line, and
// how many resizes landed while each form was open: after its question
// event, before its end's, as read every 20 ms.
func (t *terminal) close(logPath string) (handedTo, last string, landed map[string]int) {
	t.mu.Lock()
	t.closed = true
	for _, tm := range t.timers {
		tm.Stop()
	}
	t.mu.Unlock()
	select {
	case <-t.drained:
	case <-time.After(10 * time.Second): // a child of Claude holding the terminal open
		t.ptmx.Close()
		<-t.drained
	}
	t.ptmx.Close()
	t.out.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	os.WriteFile(logPath, []byte(strings.Join(t.log, "\n")+"\n"), 0o644)
	if m := lastWords.FindAll(t.shownTail, -1); len(m) > 0 {
		last = string(m[len(m)-1])
	}
	return t.handedTo, last, t.landed
}
