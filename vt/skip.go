package vt

import (
	"bytes"
	"maps"
	"time"
)

// Skip is for a feeder that fell behind: p reached the terminal without
// being drawn here. The screen is forgotten as after a full reset (RIS), a
// sequence cut short included, but the DEC private modes are kept, changed
// by those p sets and resets: the alternate screen above all, so that the
// child's redraw lands on the screen the terminal shows and the terminal is
// restored from the right one. Looking through p for "CSI ? … h" and
// "CSI ? … l" alone costs a fraction of feeding it.
func (e *vtEmulator) Skip(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.forget()
	e.skipModes(p)
	e.dirty = false
	e.snapOK = false
	e.seq++
	e.skips++
	e.lastOutput = time.Now()
	e.notifyLocked()
}

// forget is reset with the private modes put back. A mode sequence cut
// where the feeder began skipping is read on from the skipped bytes.
func (f *filter) forget() {
	if (f.state == escape || f.state == csiSeq) && len(f.skipCarry) == 0 && len(f.seq) < maxModeSeq &&
		(bytes.HasPrefix(csiPrivate, f.seq) || bytes.HasPrefix(f.seq, csiPrivate)) {
		f.skipCarry = append(f.skipCarry, f.seq...)
	}
	f.state, f.seq, f.str, f.nCarry, f.syncEnded = ground, f.seq[:0], f.str[:0], 0, false
	alt, modes := f.alt, maps.Clone(f.modes)
	f.reset()
	for n, set := range modes {
		switch n {
		case 47, 1047, 1049, 2026:
		default:
			f.privateMode(n, set)
		}
	}
	if alt {
		f.privateMode(1047, true)
	}
}

// maxModeSeq bounds a private mode sequence: a longer one is no mode switch
// a program sends, and is dropped.
const maxModeSeq = 32

var csiPrivate = []byte("\x1b[?")

// skipModes applies the private modes that p sets and resets, p being
// otherwise dropped. A sequence cut at the end of p waits in skipCarry for
// the next Skip, or for Write, which reads it before its own bytes.
func (f *filter) skipModes(p []byte) {
	if c := len(f.skipCarry); c > 0 {
		var buf [2 * maxModeSeq]byte
		joined := append(append(buf[:0], f.skipCarry...), p[:min(len(p), maxModeSeq)]...)
		f.skipCarry = f.skipCarry[:0]
		switch {
		case len(joined) < len(csiPrivate) && bytes.HasPrefix(csiPrivate, joined):
			f.skipCarry = append(f.skipCarry, joined...)
			return
		case bytes.HasPrefix(joined, csiPrivate):
			n, done := f.modeSeq(joined)
			if !done {
				if len(joined) < maxModeSeq {
					f.skipCarry = append(f.skipCarry, joined...)
					return
				}
				n = c // too long: dropped
			}
			p = p[n-c:]
		}
	}
	for {
		i := bytes.Index(p, csiPrivate)
		if i < 0 {
			// ESC or ESC [ at the very end may begin one.
			if k := len(p); k > 0 && p[k-1] == 0x1b {
				f.skipCarry = append(f.skipCarry, 0x1b)
			} else if k > 1 && p[k-2] == 0x1b && p[k-1] == '[' {
				f.skipCarry = append(f.skipCarry, 0x1b, '[')
			}
			return
		}
		n, done := f.modeSeq(p[i:])
		if !done {
			if len(p)-i < maxModeSeq {
				f.skipCarry = append(f.skipCarry, p[i:]...)
			}
			return
		}
		p = p[i+n:]
	}
}

// modeSeq reads the sequence at the start of b, which begins "ESC [ ?", and
// applies it if it sets or resets private modes (the synchronized update
// aside: nothing of the frame is kept). It returns the sequence's length, or
// done false when b ends before the sequence does.
func (f *filter) modeSeq(b []byte) (n int, done bool) {
	var params [maxModeSeq / 2]int // each but the last with its ';'
	np, cur, inter := 0, 0, false
	for j := len(csiPrivate); j < len(b); j++ {
		switch c := b[j]; {
		case j >= maxModeSeq:
			return j, true
		case c >= '0' && c <= '9':
			cur = min(cur*10+int(c-'0'), 1<<20)
		case c == ';' || c == ':':
			if np < len(params) {
				params[np] = cur
				np++
			}
			cur = 0
		case c >= 0x20 && c <= 0x2f:
			inter = true
		case c >= 0x40 && c <= 0x7e:
			if (c == 'h' || c == 'l') && !inter {
				if np < len(params) {
					params[np] = cur
					np++
				}
				for _, m := range params[:np] {
					if m != 2026 {
						f.privateMode(m, c == 'h')
					}
				}
			}
			return j + 1, true
		default:
			return j, true // not a sequence after all
		}
	}
	return 0, false
}
