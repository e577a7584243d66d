package session

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/claudewrap/claudewrap/remote"
)

// conductor is the session's event loop: one goroutine that alone owns the
// session's state (see docs/architecture.md, "Inside session"). Other
// goroutines reach it two ways: an event, handled in handle (the keys of a
// lease and the person's keys, the run's report, the answers from
// elsewhere that wait for their form's outcome, Claude's hook messages as
// the hook reader passes them on, a form's road from decided to checked),
// or do, which runs a function on the loop (the rest of the forms' moves,
// the turn, the dialogs, the MCP forms). What runs on the loop (a do's function, handle,
// handOver, keyboard.send) must not wait on the loop (do, press, typed,
// readReport, block, sync); send, which never waits on it, may.
type conductor struct {
	s       *session
	in      chan event    // what send hands to the pump
	next    chan event    // the pump's queue, in the order sent
	started chan struct{} // closed by start
	once    sync.Once     // start's
	quit    chan struct{} // closed by stop: the loop and the pump end
	done    chan struct{} // closed once the loop has ended

	// Owned by the loop goroutine.
	report  Report
	waiters map[string][]*waiter
	// order numbers the waits and the hand-overs as the loop meets them,
	// so that a hand-over is told only to the waits begun before it.
	order uint64
}

// event is one input to the conductor.
type event interface{ isEvent() }

// waitBegun: an answer from elsewhere waits for the outcome of form id.
type waitBegun struct {
	id string
	w  *waiter
}

// waitEnded: the answer no longer waits (its sender has its outcome).
type waitEnded struct {
	id string
	w  *waiter
}

// outcomeSaid: the session said what came of form id (see say);
// handover says it is a hand-over, told only to the waits begun before
// the form's last hand-over.
type outcomeSaid struct {
	id       string
	o        remote.Outcome
	handover bool
}

// keyPress: a leased keyboard's keys, written to Claude only if its lease
// still holds; sent says how that went.
type keyPress struct {
	k    keyboard
	keys []byte
	sent chan error
}

// keyTyped: the person typed (esc: Esc alone); handled gets the time their
// key was noted, once what claudewrap was answering is theirs.
type keyTyped struct {
	esc     bool
	handled chan time.Time
}

// reportChange: a change to the run's report (see session.flag).
type reportChange func(r *Report)

// reportRead: reply gets a copy of the report as it is.
type reportRead struct{ reply chan Report }

// blockRun: the run is blocked for reason, unless it already was; first
// says whether this was the first.
type blockRun struct {
	reason string
	first  chan bool
}

// barrier is handled once every event sent before it has been: its
// channel is then closed (see sync).
type barrier struct{ reached chan struct{} }

// step is a read or a change of the session's state run on the loop, as
// one step (see do).
type step struct {
	fn   func()
	done chan struct{}
}

func (waitBegun) isEvent()      {}
func (waitEnded) isEvent()      {}
func (outcomeSaid) isEvent()    {}
func (barrier) isEvent()        {}
func (step) isEvent()           {}
func (keyPress) isEvent()       {}
func (keyTyped) isEvent()       {}
func (reportChange) isEvent()   {}
func (reportRead) isEvent()     {}
func (blockRun) isEvent()       {}
func (driveEnded) isEvent()     {}
func (recordDue) isEvent()      {}
func (escCancelled) isEvent()   {}
func (recordRead) isEvent()     {}
func (decided) isEvent()        {}
func (formAsked) isEvent()      {}
func (formPosted) isEvent()     {}
func (stopCame) isEvent()       {}
func (dialogCounted) isEvent()  {}
func (choiceMade) isEvent()     {}
func (permExpected) isEvent()   {}
func (hookRefused) isEvent()    {}
func (preCame) isEvent()        {}
func (elicitHooked) isEvent()   {}
func (elicitRecorded) isEvent() {}

func newConductor(s *session) *conductor {
	return &conductor{s: s, in: make(chan event), next: make(chan event), started: make(chan struct{}),
		quit: make(chan struct{}), done: make(chan struct{}), waiters: map[string][]*waiter{}}
}

// start runs the loop and its pump until stop; a second call does nothing.
func (c *conductor) start() {
	c.once.Do(func() {
		close(c.started)
		go c.pump()
		go c.loop()
	})
}

// stop ends the loop once it has handled what was sent before; events sent
// after are dropped. Its owner calls it (serve); a second call does
// nothing.
func (c *conductor) stop() {
	c.sync()
	select {
	case <-c.quit:
		return
	default:
	}
	close(c.quit)
	select {
	case <-c.started:
		<-c.done
	default:
	}
}

// send hands e to the loop, and reports whether the pump took it: a
// conductor not started yet, or stopped, drops what it is sent. It never
// waits for the loop itself, only for the pump, so it may be called from
// anywhere, the loop included.
func (c *conductor) send(e event) bool {
	select {
	case <-c.started:
	default:
		return false
	}
	select {
	case c.in <- e:
		return true
	case <-c.quit:
		return false
	}
}

// sync returns once the loop has handled every event sent before it (at
// once when the loop is not running).
func (c *conductor) sync() {
	b := barrier{make(chan struct{})}
	if !c.send(b) {
		return
	}
	select {
	case <-b.reached:
	case <-c.done:
	}
}

// do runs fn on the loop, between two events, and returns once it has
// run: the one way to read or change the state the session keeps outside
// the loop's own (the forms, the turn, the dialogs).
// fn must not wait on the loop (do, press, typed, readReport, block,
// sync) nor on anything that waits on it. Before the loop starts and once
// it has ended nothing else runs the session's work, and fn runs at once.
func (c *conductor) do(fn func()) {
	e := step{fn, make(chan struct{}, 1)}
	if _, ok := request(c, e, e.done); !ok {
		select {
		case <-e.done: // it ran as the loop ended
		default:
			fn()
		}
	}
}

// handed numbers f's hand-over, which it has just made, in the order of
// the waits (see tell). It runs on the loop (see session.moveOnLoop).
func (c *conductor) handed(f *form) {
	c.order++
	f.handed = c.order
}

// errEnded: a key sent to a conductor that is not running.
var errEnded = errors.New("not sent: the session is not running")

// press has the loop write p, claudewrap's keys (a leased keyboard's only
// if its lease still holds), and returns when it did or did not.
func (c *conductor) press(k keyboard, p []byte) error {
	e := keyPress{k, p, make(chan error, 1)}
	err, ok := request(c, e, e.sent)
	if !ok {
		return errEnded
	}
	return err
}

// typed has the loop hand over to the person what claudewrap is
// answering, and returns when their key was noted; false when the loop is
// not running.
func (c *conductor) typed(esc bool) (time.Time, bool) {
	e := keyTyped{esc, make(chan time.Time, 1)}
	return request(c, e, e.handled)
}

// readReport is the run's report as the loop has it now, after every change
// sent before; once the loop has ended, the report it left.
func (c *conductor) readReport() Report {
	e := reportRead{make(chan Report, 1)}
	if r, ok := request(c, e, e.reply); ok {
		return r
	}
	select {
	case <-c.started:
		<-c.done // the loop has ended: what it left is no one else's
		return c.report.clone()
	default:
		return Report{} // never started: nothing was reported
	}
}

// block has the loop note the run blocked for reason, and reports whether
// it was the first reason (false when the loop is not running).
func (c *conductor) block(reason string) bool {
	e := blockRun{reason, make(chan bool, 1)}
	first, _ := request(c, e, e.first)
	return first
}

// request sends e, an event that answers on reply, and waits for the answer;
// false when the loop is not running or ends before it answers.
func request[T any](c *conductor, e event, reply chan T) (T, bool) {
	var none T
	if !c.send(e) {
		return none, false
	}
	select {
	case v := <-reply:
		return v, true
	case <-c.done:
		return none, false
	}
}

// pump queues what is sent, without bound, and hands it to the loop in
// order: a sender never waits on the loop's work.
func (c *conductor) pump() {
	var queue []event
	for {
		var out chan event
		var head event
		if len(queue) > 0 {
			out, head = c.next, queue[0]
		}
		select {
		case e := <-c.in:
			queue = append(queue, e)
		case out <- head:
			queue[0] = nil
			queue = queue[1:]
		case <-c.quit:
			return
		}
	}
}

func (c *conductor) loop() {
	defer close(c.done)
	for {
		select {
		case e := <-c.next:
			c.handle(e)
		case <-c.quit:
			return
		}
	}
}

// handle is the one place the conductor's state changes.
func (c *conductor) handle(e event) {
	switch e := e.(type) {
	case waitBegun:
		c.order++
		e.w.order = c.order
		c.waiters[e.id] = append(c.waiters[e.id], e.w)
	case waitEnded:
		c.waiters[e.id] = slices.DeleteFunc(c.waiters[e.id], func(w *waiter) bool { return w == e.w })
		if len(c.waiters[e.id]) == 0 {
			delete(c.waiters, e.id)
		}
	case outcomeSaid:
		c.tell(e)
	case keyPress:
		// The lease's check and the write are one step: a key of the
		// person's is handled before it or after it (see lease).
		if e.k.ctx == nil {
			e.sent <- e.k.send(e.keys) // not leased: not the lease's to stop
			break
		}
		if err := e.k.ctx.Err(); err != nil {
			e.sent <- fmt.Errorf("not sent: %w", err)
			break
		}
		e.sent <- e.k.send(e.keys)
	case keyTyped:
		e.handled <- c.s.handOver(e.esc)
	case reportChange:
		e(&c.report)
	case reportRead:
		e.reply <- c.report.clone()
	case blockRun:
		first := c.report.Blocked == ""
		if first {
			c.report.Blocked = e.reason
		}
		e.first <- first
	case driveEnded:
		c.s.endDrive(e)
	case recordDue:
		c.s.recordDue(e)
	case escCancelled:
		c.s.cancelledByEsc(e)
	case recordRead:
		c.s.checkRecord(e)
	case decided:
		c.s.queue(e)
	case formAsked:
		c.s.asked(e)
	case formPosted:
		c.s.posted(e)
	case stopCame:
		c.s.stopped(e)
	case dialogCounted:
		c.s.dialogs++
	case choiceMade:
		c.s.choice = e.c
	case permExpected:
		c.s.perms = append(c.s.perms, e.c)
	case hookRefused:
		c.s.refusal = e.why
	case preCame:
		c.s.preArrived(e)
	case elicitHooked:
		c.s.elicitHook = e.at
	case elicitRecorded:
		c.s.elicitResult = e.at
	case barrier:
		close(e.reached)
	case step:
		e.fn()
		e.done <- struct{}{}
	}
}

// clone is r with slices and maps of its own, for a reader apart from the
// loop.
func (r Report) clone() Report {
	r.Failures = slices.Clone(r.Failures)
	r.Why = maps.Clone(r.Why)
	return r
}
