package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/claudewrap/claudewrap/remote"
)

// The run's side of the inbox as one loop: its state, and how it brings
// the inbox in line with it.

// Requests to the loop.
type (
	publishReq struct {
		f     remote.Form
		reply chan FormID
	}
	withdrawReq struct{ tool, reason string }
	doneReq     struct {
		c Claim
		o remote.Outcome
	}
	localReq struct {
		tool, from string
		reply      chan Local
	}
	localGaveUp struct{ tool string }
	closeReq    struct{}
)

// Reports from the worker, the watch and the timers.
type (
	bound struct {
		b   *buckets
		err error
	}
	watchStarted struct {
		w   *watching
		err error
	}
	watchEnded struct{ w *watching }
	claimSeen  struct {
		w *watching
		e jetstream.KeyValueEntry
	}
	formWritten struct {
		id      FormID
		version int
		err     error
	}
	closedWritten struct {
		id  FormID
		err error
	}
	localClaimed struct {
		tool  string
		round int
		rev   uint64
		lost  *winner
		err   error
		reply chan Local
	}
	acceptDone struct {
		key   string
		rev   uint64
		state string // accepted, or the state found instead (withdrawn, done)
		err   error
	}
	verdictWritten struct {
		key string
		v   *pendingVerdict
		err error
	}
	retryFired struct{}
)

// runLoop is the publisher's state, owned by its one goroutine.
type runLoop struct {
	p *Publisher
	// connected: nats.go's connection is up; reconnects counts its
	// reconnections, so that one missed between two looks is seen.
	connected  bool
	reconnects uint64
	b          *buckets
	binding    bool
	watch      *watching
	starting   bool
	watched    bool

	forms    map[string]*pform // by tool_use_id
	byID     map[FormID]*pform
	closed   map[FormID]*closedForm
	verdicts map[string]*pendingVerdict // by claim key
	seen     map[string]bool            // claims handled, by key and revision
	queue    []job
	deliver  []Claim

	// holdoff: an operation failed; nothing is retried before the retry
	// timer fires, every backoff (doubling up to maxBackoff). failing
	// holds until an operation succeeds again, and says why.
	holdoff bool
	backoff time.Duration
	failing string
	closing bool
	status  Status
	said    bool
}

// up reports whether the run's forms are in the inbox and its claims
// reach it: connected, its claims watched once (a watch made again after
// a reconnection finds every claim made meanwhile), and the inbox taking
// writes.
func (l *runLoop) up() bool { return l.connected && l.watched && l.failing == "" }

// ok notes an operation succeeded: the inbox takes writes again.
func (l *runLoop) ok() {
	l.failing = ""
	l.backoff = minBackoff
}

const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// pform is a published form.
type pform struct {
	id    FormID
	tool  string
	form  remote.Form
	round int
	claim *held // what took the current round, once seen
	// localBusy: a local claim's write is in flight.
	localBusy bool
	// offline: answered locally while the inbox was unreachable.
	offline bool
	// version counts changes to the form's value; written is the last one
	// the inbox has, writing whether a write is in flight.
	version, written int
	writing          bool
}

// held is the claim that took a form's round.
type held struct {
	rev       uint64
	key       string
	who, from string
	local     bool
	doc       claimDoc
	// accepting: the run's acceptance is being written; accepted: it is,
	// and the claim was handed to the run.
	accepting, accepted bool
}

type closedForm struct {
	doc              Form
	written, writing bool
}

// pendingVerdict is an outcome to write: create, only if the answerer has
// not withdrawn the claim (for a claim never accepted).
type pendingVerdict struct {
	key     string
	v       verdict
	create  bool
	writing bool
	// reopened is the form this verdict's refusal reopened, at version:
	// the verdict is written once the inbox has that version, so that its
	// sender, told, finds the next round open.
	reopened *pform
	version  int
}

// watching is a watch of the run's claims, pumped into the loop.
type watching struct {
	w      jetstream.KeyWatcher
	quit   chan struct{}
	cancel context.CancelFunc
}

func (w *watching) stop() {
	close(w.quit)
	_ = w.w.Stop()
	w.cancel()
}

func (l *runLoop) run(changes <-chan struct{}) {
	p := l.p
	defer close(p.ended)
	defer func() {
		if l.watch != nil {
			l.watch.stop()
		}
	}()
	refresh := time.NewTicker(p.ttl / 3)
	defer refresh.Stop()
	l.look()
	for {
		l.reconcile()
		l.say()
		var jobs chan job
		var next job
		if len(l.queue) > 0 {
			jobs, next = p.jobs, l.queue[0]
		}
		var claims chan Claim
		var c Claim
		if len(l.deliver) > 0 {
			claims, c = p.claims, l.deliver[0]
		}
		if l.closing && (!l.connected || len(l.queue) == 0 && !l.busy()) {
			return
		}
		select {
		case jobs <- next:
			l.queue = l.queue[1:]
		case claims <- c:
			l.deliver = l.deliver[1:]
		case <-changes:
			l.look()
		case <-refresh.C:
			for _, f := range l.forms {
				f.version++ // its time to live starts again
			}
		case ev := <-p.events:
			l.handle(ev)
		case <-p.quit:
			return
		}
	}
}

// busy reports whether a closed form or an outcome is still to be
// written, or a write is in flight.
func (l *runLoop) busy() bool {
	for _, f := range l.forms {
		if f.writing {
			return true
		}
	}
	for _, c := range l.closed {
		if c.writing || !c.written {
			return true
		}
	}
	return len(l.verdicts) > 0
}

// look takes in the connection's state: down, up, or up again after a
// reconnection nats.go made between two looks.
func (l *runLoop) look() {
	c := l.p.c
	now := c.Connected()
	rc := c.nc.Stats().Reconnects
	switch {
	case !now:
		if l.connected {
			l.down()
		}
		l.connected = false
	case !l.connected || rc != l.reconnects:
		l.down()
		l.connected = true
		// Everything current is written again, the buckets bound again
		// (and made if missing): the inbox may have lost it all (a cluster
		// restarted from nothing) or let the forms expire meanwhile.
		l.b = nil
		for _, f := range l.forms {
			f.version++
		}
		for _, c := range l.closed {
			c.written = false
		}
		l.holdoff = false
		l.backoff = minBackoff
	}
	l.reconnects = rc
}

// down stops the watch; it is started again once connected.
func (l *runLoop) down() {
	if l.watch != nil {
		l.watch.stop()
		l.watch = nil
	}
}

func (l *runLoop) enqueue(j job) { l.queue = append(l.queue, j) }

// failed holds every retry off until the retry timer fires.
func (l *runLoop) failed(err error) {
	l.failing = "the inbox failed an operation: " + err.Error()
	if l.holdoff || l.closing {
		return
	}
	l.holdoff = true
	d := l.backoff
	l.backoff = min(2*l.backoff, maxBackoff)
	time.AfterFunc(d, func() { l.p.send(retryFired{}) })
}

// reconcile starts whatever the inbox lacks of the loop's state: the
// buckets, the watch, each form's latest value, each closed form, each
// claim's acceptance, each outcome.
func (l *runLoop) reconcile() {
	if !l.connected || l.holdoff {
		return
	}
	p := l.p
	if l.b == nil {
		if !l.binding {
			l.binding = true
			l.enqueue(func(ctx context.Context) any {
				b, err := p.c.buckets(ctx)
				return bound{b, err}
			})
		}
		return
	}
	if l.watch == nil && !l.starting && !l.closing {
		l.starting = true
		b, prefix := l.b, escape(p.id.Machine)+"."+escape(p.id.Session)+".>"
		l.enqueue(func(ctx context.Context) any {
			// nats.go ends a watch when the context it was made with ends:
			// the watch's own lasts until it is stopped; only its making is
			// bounded.
			wctx, cancel := context.WithCancel(p.ctx)
			bound := time.AfterFunc(opTimeout, cancel)
			kw, err := b.claims.Watch(wctx, prefix)
			if !bound.Stop() && err == nil {
				_ = kw.Stop()
				err = fmt.Errorf("watching the run's claims: %w", wctx.Err())
			}
			if err != nil {
				cancel()
				return watchStarted{err: err}
			}
			return watchStarted{w: &watching{w: kw, quit: make(chan struct{}), cancel: cancel}}
		})
	}
	for _, f := range l.forms {
		if f.written < f.version && !f.writing {
			l.writeForm(f)
		}
		if c := f.claim; c != nil && !c.local && !c.accepting && !c.accepted {
			l.accept(f, c)
		}
	}
	for id, c := range l.closed {
		if !c.written && !c.writing {
			c.writing = true
			doc, b := c.doc, l.b
			l.enqueue(func(ctx context.Context) any {
				return closedWritten{id, putForm(ctx, p.c, b, doc, ClosedTTL)}
			})
		}
	}
	for _, v := range l.verdicts {
		if !v.writing && (v.reopened == nil || v.reopened.written >= v.version || l.forms[v.reopened.tool] != v.reopened) {
			l.writeVerdict(v)
		}
	}
}

// writeForm writes f's value as it is now.
func (l *runLoop) writeForm(f *pform) {
	p := l.p
	f.writing = true
	doc := l.doc(f)
	version, b, ttl := f.version, l.b, p.ttl
	l.enqueue(func(ctx context.Context) any {
		return formWritten{doc.ID, version, putForm(ctx, p.c, b, doc, ttl)}
	})
}

// doc is f's value in the inbox.
func (l *runLoop) doc(f *pform) Form {
	id := l.p.id
	d := Form{V: wireVersion, ID: f.id, Form: f.form, Machine: id.Machine, User: id.User, ClaudeVersion: id.ClaudeVersion,
		Round: f.round, State: Open, Updated: time.Now().UTC()}
	d.Session, d.PID, d.Cwd, d.ToolUseID = id.Session, id.PID, id.Cwd, f.tool
	switch {
	case f.claim != nil:
		d.State, d.By = Answering, f.claim.who
	case f.offline:
		d.State, d.By = Answering, localName
	}
	return d
}

// putForm writes a form's value, to live ttl.
func putForm(ctx context.Context, c *Conn, b *buckets, doc Form, ttl time.Duration) error {
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = c.js.Publish(ctx, "$KV."+FormsBucket+"."+string(doc.ID), data, jetstream.WithMsgTTL(ttl))
	return c.reason(err)
}

// accept writes the run's acceptance of claim c, unless its sender has
// withdrawn it, before the run is handed it.
func (l *runLoop) accept(f *pform, c *held) {
	c.accepting = true
	b, key := l.b, c.key
	l.enqueue(func(ctx context.Context) any {
		data, _ := json.Marshal(verdict{V: wireVersion, State: accepted})
		rev, err := b.outcomes.Create(ctx, key, data)
		if err == nil {
			return acceptDone{key: key, rev: rev, state: accepted}
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return acceptDone{key: key, err: err}
		}
		// Written already: by this run, its reply lost, or withdrawn.
		e, gerr := b.outcomes.Get(ctx, key)
		if gerr != nil {
			return acceptDone{key: key, err: gerr}
		}
		var v verdict
		if derr := decode(e.Value(), &v); derr != nil {
			return acceptDone{key: key, state: withdrawn}
		}
		return acceptDone{key: key, rev: e.Revision(), state: v.State}
	})
}

func (l *runLoop) writeVerdict(v *pendingVerdict) {
	v.writing = true
	b := l.b
	l.enqueue(func(ctx context.Context) any {
		data, _ := json.Marshal(v.v)
		var err error
		if v.create {
			_, err = b.outcomes.Create(ctx, v.key, data)
			if errors.Is(err, jetstream.ErrKeyExists) {
				err = nil // withdrawn by its sender, who has gone
			}
		} else {
			_, err = b.outcomes.Put(ctx, v.key, data)
		}
		return verdictWritten{v.key, v, err}
	})
}

// refuse tells the sender of the claim under key why the run will not
// apply it.
func (l *runLoop) refuse(key string, o remote.Outcome, create bool) {
	l.verdicts[key] = &pendingVerdict{key: key, v: verdict{V: wireVersion, State: done, Outcome: &o}, create: create}
}

// reopen opens f's next round: the claim that took it did not answer it.
// The verdict under key, if any, waits for the inbox to have that round.
func (l *runLoop) reopen(f *pform, key string) {
	f.round++
	f.claim = nil
	f.version++
	if v := l.verdicts[key]; v != nil {
		v.reopened, v.version = f, f.version
	}
}

func (l *runLoop) why() string {
	switch {
	case !l.connected:
		return "the inbox is unreachable: " + l.p.c.why()
	case l.failing != "":
		return l.failing
	}
	return "the inbox is not ready yet"
}

// say sends the status when it changed: up or not, or why not. Nothing is
// said before the first connection is ready, unless something failed.
func (l *runLoop) say() {
	s := Status{Connected: l.up()}
	if s.Connected {
		s.Server = l.p.c.Server()
	} else {
		s.Reason = l.why()
	}
	if l.said && s.Connected == l.status.Connected && s.Reason == l.status.Reason {
		return
	}
	if !l.said && !s.Connected && l.connected && l.failing == "" {
		return
	}
	l.status, l.said = s, true
	select {
	case <-l.p.status:
	default:
	}
	l.p.status <- s
}
