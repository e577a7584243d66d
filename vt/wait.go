package vt

import (
	"context"
	"fmt"
	"time"
)

// WaitError is returned by [Emulator.Wait] when its context ends first. Last
// is the last settled snapshot Wait saw, or the screen at the end if none
// settled.
type WaitError struct {
	Last Snapshot
	Err  error
}

// Error includes the last screen, so that a failed wait shows what was there.
func (e *WaitError) Error() string {
	return fmt.Sprintf("wait for screen: %v; last screen:\n%s", e.Err, e.Last)
}

// Unwrap returns the context's error.
func (e *WaitError) Unwrap() error { return e.Err }

// Wait evaluates ok on each new settled snapshot until it holds or ctx ends.
func (e *vtEmulator) Wait(ctx context.Context, ok func(Snapshot) bool) (Snapshot, error) {
	var (
		last      Snapshot
		evaluated bool
		timer     *time.Timer
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		e.mu.Lock()
		settled, wake := e.settledLocked(time.Now())
		changed := e.changedLocked()
		var s Snapshot
		fresh := settled && (!evaluated || e.seq != last.Seq)
		if fresh {
			s = e.snapshotLocked()
		}
		e.mu.Unlock()

		if fresh {
			last, evaluated = s, true
			if ok(s) {
				return s, nil
			}
		}
		var fire <-chan time.Time
		if !wake.IsZero() {
			d := time.Until(wake)
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			fire = timer.C
		}
		select {
		case <-changed:
		case <-fire:
		case <-ctx.Done():
			if !evaluated {
				last = e.Snapshot()
			}
			return last, &WaitError{Last: last, Err: ctx.Err()}
		}
	}
}

// settledLocked reports whether the screen is settled at now: not inside a
// synchronized update, and either one just ended or output has paused for the
// quiet period. If not, wake is when that may change without more output.
func (e *vtEmulator) settledLocked(now time.Time) (settled bool, wake time.Time) {
	if e.inSync {
		if end := e.syncStart.Add(syncLimit); now.Before(end) {
			return false, end
		}
	} else if e.syncEnded {
		return true, time.Time{}
	}
	if end := e.lastOutput.Add(e.quiet); now.Before(end) {
		return false, end
	}
	return true, time.Time{}
}
