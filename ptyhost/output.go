package ptyhost

// outRelay is a thread that reads the PTY and writes to the person's
// terminal itself, outside the Go runtime (see cRelay), and hands Go the
// bytes for the emulator.
type outRelay interface {
	// take fills p, waiting for output; it returns 0 and the read's error
	// (nil at EOF) once the PTY is drained and closed, or after stop.
	take(p []byte) (int, error)
	// stop ends take and drops what is read from then on.
	stop()
	close()
}

// readLoop copies the child's output to the person's terminal first, then
// through a queue to the emulator and the Tap, so that the person never
// waits on them: a Tap encodes every byte, which on the person's path would
// cost a quarter of passthrough's throughput. A burst passes at the PTY's
// pace unless the queue's budget fills, which in passthrough only a Tap
// slower than the burst makes happen (the emulator skips, see feeder).
// Where there is a relay thread, it copies to the person and readLoop takes
// what it read.
func (h *Host) readLoop() {
	q := newOutQueue(queueBudget)
	// Headless, the emulator is all there is: it is never held back.
	q.holdBursts = h.term != nil
	emuDone := make(chan struct{})
	go func() {
		defer close(emuDone)
		f := &feeder{h: h}
		q.drain(f.write, func() bool { return f.skipping }, f.resync)
	}()
	defer func() {
		// The queue is drained before outDone, so the tail written just
		// before exit reaches the emulator although the PTY then says EIO.
		q.close()
		<-emuDone
		close(h.outDone)
	}()
	if h.relay != nil {
		h.takeLoop(q)
	} else {
		h.copyLoop(q)
	}
}

// takeLoop queues what the relay thread read. The thread wakes it at a
// pause in the output (or when a piece is full), so the emulator is
// signalled then, as copyLoop does.
func (h *Host) takeLoop(q *outQueue) {
	defer h.relay.close()
	buf := make([]byte, relayCap)
	for {
		n, err := h.relay.take(buf)
		if n == 0 || err != nil {
			return
		}
		q.push(buf[:n])
		if q.wantsSignal() {
			q.signal()
		}
	}
}

// copyLoop reads the PTY and copies to the person's terminal and the queue.
func (h *Host) copyLoop(q *outQueue) {
	buf := make([]byte, 32*1024)
	rc, rcErr := h.ptmx.SyscallConn()
	for {
		// The emulator is woken when the output pauses (nothing more to
		// read now), not for every read: waking it for each 4 KB a PTY
		// read gives costs a fifth of a burst's throughput on two cores.
		// During a burst it is not woken at all (see outQueue).
		if q.wantsSignal() && (rcErr != nil || !readable(rc)) {
			q.signal()
		}
		n, err := h.ptmx.Read(buf)
		if n > 0 {
			p := buf[:n]
			if h.term != nil {
				_, _ = h.term.out.Write(p)
			}
			q.push(p)
		}
		if err != nil {
			// Linux reports EIO once the child side is closed and drained.
			return
		}
	}
}

// feeder writes the queue's bytes to the emulator, then the Tap. In
// passthrough, an emulator skipAt behind the person's screen stops
// emulating, since emulating a long burst costs the person a third of its
// throughput on two cores: the rest of the burst goes to the Tap and to
// Skip, which blanks the screen (nothing on it is judged) but follows the
// private modes the restore depends on, the alternate screen among them.
// Once the burst is over the child redraws its whole screen onto the blank
// one (Redraw: Claude Code redraws from the top-left corner on a size
// change, erasing every row first). Headless nobody waits, so the emulator
// never skips.
type feeder struct {
	h        *Host
	skipping bool // only the drain goroutine touches it
}

func (f *feeder) write(p []byte, behind int) {
	if !f.skipping && f.h.term != nil && behind >= skipAt {
		f.skipping = true
		f.h.skipped.Add(1)
	}
	if f.skipping {
		f.h.screen.Skip(p)
	} else {
		_, _ = f.h.screen.Write(p)
	}
	if f.h.cfg.Tap != nil {
		f.h.cfg.Tap.Output(p)
	}
}

// resync ends skipping: the burst is over, and the child is asked to draw
// again (not from the drain goroutine: Redraw waits for the screen).
func (f *feeder) resync() {
	f.skipping = false
	go func() { _ = f.h.Redraw() }()
}
