package ptyhost

import (
	"slices"
	"sync"
	"time"
)

// seqWait bounds how long the end of a chunk the person's terminal sent,
// cut inside an escape sequence, waits for its rest (a var for tests).
var seqWait = 50 * time.Millisecond

// seqMax is the longest unfinished sequence held back; one longer is
// nothing a terminal reports, and goes on as it is.
const seqMax = 512

// joiner passes on the person's input in chunks that do not end inside an
// escape sequence a terminal reports with (CSI, OSC, DCS, APC). A read can
// cut such a report in two (over ssh, say): the start is held until the
// rest comes, or seqWait passes since it was first held, so that OnInput
// sees the report whole (a report, not a key typed) and no key of the
// wrapper's is written between its halves, where Claude would read both
// wrong. A lone Esc is not held: it is the person's Esc key, and passes at
// once.
type joiner struct {
	pass func(p []byte) // OnInput, then forwarding; called with mu held
	wait time.Duration

	mu      sync.Mutex
	pending []byte
	heldAt  time.Time // when pending was first held
	gen     int       // counts holds, so that a timer outlived by its hold does nothing
}

// add takes a chunk as read.
func (j *joiner) add(p []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	heldAt := time.Now()
	if j.pending != nil {
		p = append(j.pending, p...)
		j.pending, heldAt = nil, j.heldAt
	}
	j.gen++
	// A sequence still unfinished keeps its first deadline: typing that
	// goes on (a key held down after Alt+]) cannot keep it held.
	left := j.wait - time.Since(heldAt)
	if cut := unfinished(p); cut < len(p) && left > 0 {
		j.pending, j.heldAt = slices.Clone(p[cut:]), heldAt
		gen := j.gen
		time.AfterFunc(left, func() { j.flush(gen) })
		p = p[:cut]
	}
	if len(p) > 0 {
		j.pass(p)
	}
}

// flush passes on what hold gen kept back, if it is still held: its rest
// never came, and it goes as it is (a key such as Alt+[, or a report cut
// for good, which then counts as typed).
func (j *joiner) flush(gen int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if gen != j.gen || j.pending == nil {
		return
	}
	p := j.pending
	j.pending = nil
	j.pass(p)
}

// unfinished returns where an escape sequence that p ends inside starts,
// or len(p): an Esc followed by '[' and only parameter and intermediate
// bytes (no final byte yet), or by ']', 'P' or '_' with no terminator (BEL
// or ST) and no other control yet, at most seqMax bytes long. An Esc alone
// at the end is the Esc key, unless it may be the first half of an ST.
func unfinished(p []byte) int {
	for i := 0; i < len(p); {
		if p[i] != 0x1b || i+1 == len(p) {
			i++
			continue
		}
		end := -1 // where the sequence at i ends; -1: not yet
		switch p[i+1] {
		case '[':
			for j := i + 2; j < len(p) && end < 0; j++ {
				switch c := p[j]; {
				case c < 0x20:
					end = j // a control (an Esc too) breaks it, and is read again
				case c > 0x3f:
					end = j + 1 // its final byte
				}
			}
		case ']', 'P', '_':
			for j := i + 2; j < len(p) && end < 0; j++ {
				switch {
				case p[j] == 0x07:
					end = j + 1
				case p[j] == 0x1b && j+1 < len(p) && p[j+1] == '\\':
					end = j + 2
				case p[j] == 0x1b && j+1 < len(p):
					end = j // an Esc that is no ST breaks it
				case p[j] < 0x20 && p[j] != 0x1b, p[j] == 0x7f:
					end = j // so does a control (Enter, Ctrl-C): no report holds one
				}
			}
		case 0x1b:
			end = i + 1 // Esc, then whatever the second Esc starts
		default:
			end = i + 2 // a key with Alt, or SS3's first half: not a report
		}
		if end < 0 {
			if len(p)-i > seqMax {
				return len(p)
			}
			return i
		}
		i = end
	}
	return len(p)
}
