package ptyhost

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/claudewrap/claudewrap/vt"
)

// Redraw has the child draw its whole screen again, by making the terminal
// one column narrower and then giving it back its size: full-screen
// programs redraw on every size change. It waits (a second at most) for the
// child to draw at the narrower size before widening again, so that the
// two changes are not taken for one, and then for the redraw at full size
// to land and go quiet: a key sent while the child is still drawing can
// leave Claude Code's screen garbled (2.1.197). A size change by the person
// meanwhile wins.
func (h *Host) Redraw() error {
	h.redrawMu.Lock()
	defer h.redrawMu.Unlock()
	cols, rows := h.screen.Size()
	if cols < 2 {
		return errors.New("redraw: the terminal is too narrow")
	}
	seq, err := h.resize(cols-1, rows)
	if err != nil {
		return fmt.Errorf("redraw: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = h.screen.Wait(ctx, func(s vt.Snapshot) bool { return s.Seq != seq })
	if c, r := h.screen.Size(); c != cols-1 || r != rows {
		return nil
	}
	if err := h.resizeDrawn(cols, rows); err != nil {
		return fmt.Errorf("redraw: %w", err)
	}
	return nil
}

// SetRows makes the terminal rows tall, its width kept, and waits (a
// second at most) for the child's redraw at that size to land and go
// quiet. Headless, askflow has a page taller than the screen drawn whole
// this way (see askflow.Grower); nobody's terminal holds the size.
func (h *Host) SetRows(rows int) error {
	h.redrawMu.Lock()
	defer h.redrawMu.Unlock()
	cols, _ := h.screen.Size()
	if err := h.resizeDrawn(cols, rows); err != nil {
		return fmt.Errorf("set rows: %w", err)
	}
	return nil
}

// resizeDrawn resizes the terminal and waits for the child's redraw: its
// first output, then quiet (no output for redrawQuiet), a second at most.
func (h *Host) resizeDrawn(cols, rows int) error {
	if c, r := h.screen.Size(); c == cols && r == rows {
		return nil
	}
	seq, err := h.resize(cols, rows)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s, err := h.screen.Wait(ctx, func(s vt.Snapshot) bool { return s.Seq != seq })
	for err == nil {
		qctx, qcancel := context.WithTimeout(ctx, redrawQuiet)
		seq = s.Seq
		s, err = h.screen.Wait(qctx, func(s vt.Snapshot) bool { return s.Seq != seq })
		qcancel()
	}
	return nil
}

// redrawQuiet is how long the screen must stay unchanged after a redraw
// before it is taken as drawn.
const redrawQuiet = 60 * time.Millisecond
