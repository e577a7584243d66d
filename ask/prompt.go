package ask

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/safe"
)

// ErrInterrupted is the person pressing Ctrl-C at the prompt: they want
// the run to end, as Ctrl-C ends a program.
var ErrInterrupted = errors.New("interrupted (Ctrl-C at the prompt)")

// ErrNoAnswer is the person pressing Ctrl-D on an empty line: no answer
// from them to this question.
var ErrNoAnswer = errors.New("no answer (Ctrl-D at the prompt)")

// Prompter asks the person on a terminal. One question at a time.
type Prompter struct {
	tty *os.File

	mu    sync.Mutex // one prompt at a time
	input chan []byte
	rest  []byte // read but not yet consumed; guarded by mu
	err   error  // set when the terminal's input ended
	done  chan struct{}
}

// Open opens the controlling terminal (/dev/tty), so that the prompt works
// whatever stdin and stdout are redirected to.
func Open() (*Prompter, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("no terminal to ask on: %w", err)
	}
	return New(tty), nil
}

// New asks on tty, which must be a terminal.
func New(tty *os.File) *Prompter {
	p := &Prompter{tty: tty, input: make(chan []byte, 16), done: make(chan struct{})}
	// One reader for the life of the prompter: a prompt given up on
	// (timeout) must not leave a read behind that steals the next answer.
	go func() {
		defer close(p.done)
		isTerm := term.IsTerminal(int(tty.Fd()))
		for {
			buf := make([]byte, 256)
			n, err := tty.Read(buf)
			if n > 0 {
				p.input <- buf[:n]
			}
			if n == 0 && errors.Is(err, io.EOF) && isTerm {
				// Ctrl-D typed between prompts, while the terminal is
				// not raw: a key, not the end of the terminal.
				p.input <- []byte{keyCtrlD}
				continue
			}
			if err != nil {
				p.err = err
				return
			}
		}
	}()
	return p
}

// Close closes the terminal.
func (p *Prompter) Close() error { return p.tty.Close() }

// Ask shows question n of total and returns the person's decision. It
// returns ctx's error when ctx ends first (e.g. the answer timeout),
// [ErrInterrupted] on Ctrl-C and [ErrNoAnswer] on Ctrl-D.
func (p *Prompter) Ask(ctx context.Context, q answer.Question, n, total int) (answer.Decision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fd := int(p.tty.Fd())
	st, err := term.MakeRaw(fd)
	if err != nil {
		return answer.Decision{}, fmt.Errorf("ask: raw mode: %w", err)
	}
	defer term.Restore(fd, st)

	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{&ctxReader{ctx: ctx, p: p}, p.tty}, "> ")
	if w, h, err := term.GetSize(fd); err == nil && w > 0 && h > 0 {
		t.SetSize(w, h)
	} else {
		t.SetSize(80, 24)
	}
	t.AutoCompleteCallback = func(line string, pos int, key rune) (string, int, bool) {
		if key != '\t' || pos != len(line) {
			return "", 0, false
		}
		done, ok := Complete(q, line)
		if safe.Line(done) != done {
			return "", 0, false // the line editor would write the label as it is
		}
		return done, len(done), ok
	}
	fmt.Fprint(t, Render(q, n, total))
	pending := "" // text the person was asked to confirm as their own answer
	for {
		line, err := t.ReadLine()
		switch {
		case err == nil:
		case ctx.Err() != nil:
			why := "(no answer in time)"
			switch cause := context.Cause(ctx); {
			case errors.Is(cause, context.DeadlineExceeded):
			case errors.Is(cause, context.Canceled):
				why = "(no longer asked: the run is ending)"
			default:
				why = "(no longer asked: " + safe.Line(cause.Error()) + ")"
			}
			// Straight to the terminal: the line editor would draw the
			// prompt and the line again after it.
			fmt.Fprint(p.tty, "\r\n"+why+"\r\n")
			return answer.Decision{}, ctx.Err()
		case errors.Is(err, ErrInterrupted):
			fmt.Fprint(p.tty, "^C\r\n")
			return answer.Decision{}, ErrInterrupted
		case errors.Is(err, io.EOF) && p.err == nil:
			fmt.Fprint(p.tty, "\r\n(no answer: the rules' fallback answers, if they have one; else the form is cancelled)\r\n")
			return answer.Decision{}, ErrNoAnswer
		default:
			return answer.Decision{}, fmt.Errorf("the terminal's input ended: %w", err)
		}
		if pending != "" && (strings.TrimSpace(line) == "" || strings.TrimSpace(line) == pending) {
			return typed(q, pending)
		}
		pending = ""
		d, err := Parse(q, line)
		if err == nil {
			return d, nil
		}
		var ct *ConfirmText
		if errors.As(err, &ct) {
			pending = ct.Text
		}
		fmt.Fprintln(t, safe.Line(err.Error()))
	}
}

// Render is the text shown for a question. What Claude wrote is shown
// escaped, a preview a line at a time.
func Render(q answer.Question, n, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n── claudewrap: question %d of %d ──\n", n, total)
	if q.Header != "" {
		fmt.Fprintf(&b, "[%s] ", safe.Line(q.Header))
	}
	b.WriteString(safe.Line(q.Question) + "\n")
	for i, o := range q.Options {
		fmt.Fprintf(&b, "  %d. %s", i+1, safe.Line(o.Label))
		if o.Description != "" {
			fmt.Fprintf(&b, " — %s", safe.Line(o.Description))
		}
		b.WriteByte('\n')
		if o.Preview != "" && !q.MultiSelect {
			lines := strings.Split(o.Preview, "\n")
			for j, l := range lines {
				if j == previewLines {
					fmt.Fprintf(&b, "       │ … (%d more lines)\n", len(lines)-j)
					break
				}
				fmt.Fprintf(&b, "       │ %s\n", safe.Text(l))
			}
		}
	}
	switch {
	case q.HasPreview() && !q.MultiSelect:
		fmt.Fprintf(&b, "One answer: a number (1-%d) or a label, notes after a number if you like (2 /notes TEXT) · /chat TEXT · /cancel\n", len(q.Options))
	case q.MultiSelect:
		fmt.Fprintf(&b, "Several answers: the numbers to tick, in order (1 3), or labels (A, B) · /chat TEXT · /cancel\n")
	default:
		fmt.Fprintf(&b, "One answer: a number (1-%d) or a label, or /type your own · /chat TEXT · /cancel\n", len(q.Options))
	}
	b.WriteString("Tab completes a label · Ctrl-D: no answer · Ctrl-C: end the run\n")
	return b.String()
}

// keyCtrlC is the byte a terminal in raw mode reads for Ctrl-C.
const (
	keyCtrlC = 3
	keyCtrlD = 4
)

// previewLines bounds how much of a preview the prompt shows.
const previewLines = 12

// ctxReader feeds the line editor from the prompter's reader until ctx ends.
type ctxReader struct {
	ctx context.Context
	p   *Prompter
}

func (r *ctxReader) Read(b []byte) (int, error) {
	if i := bytes.IndexByte(r.p.rest, keyCtrlC); i >= 0 {
		// Ctrl-C: what was typed before it is dropped with the line, and
		// what came after it with the run.
		r.p.rest = nil
		return 0, ErrInterrupted
	}
	if len(r.p.rest) == 0 {
		select {
		case r.p.rest = <-r.p.input:
			if bytes.IndexByte(r.p.rest, keyCtrlC) >= 0 {
				r.p.rest = nil
				return 0, ErrInterrupted
			}
		case <-r.p.done:
			if r.p.err != nil {
				return 0, r.p.err
			}
			return 0, io.EOF
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		}
	}
	n := copy(b, r.p.rest)
	r.p.rest = r.p.rest[n:]
	return n, nil
}
