package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/remote"
)

// Identity is a run as the inbox shows it.
type Identity struct {
	// Machine is the machine's name (its host name): the first part of
	// every form's id, which the server's permissions tie to the runner.
	Machine string
	// User is the user the run is of.
	User string
	// Session names the session on its machine, as `claudewrap answer`
	// does (claudewrap's pid).
	Session       string
	PID           int
	Cwd           string
	ClaudeVersion string
}

// Claim is an answer from elsewhere that took a form of the run. The run
// applies it, checked as any answer from elsewhere is, and says what came
// of it with [Publisher.Done].
type Claim struct {
	Form      FormID
	ToolUseID string
	Round     int
	// Rev is the claim's revision in the claims bucket.
	Rev uint64
	// By is the name the claim was written under: the server let only a
	// user its permissions allow write it (see docs/inbox.md).
	By string
	// From is how the sender names itself; it decides nothing.
	From    string
	Answers []answer.Decision
	Elicit  *remote.ElicitAnswer
}

// Sender names the claim's sender for the run's events and lines: the
// name the server let write it, and how the sender names itself.
func (c Claim) Sender() string {
	if c.From == "" {
		return "inbox user " + c.By
	}
	return c.From + " (inbox user " + c.By + ")"
}

// Status says whether the run's forms are in the inbox and its answers
// reach it.
type Status struct {
	Connected bool
	// Server is the server's name while connected.
	Server string
	// Reason is why not, while not connected.
	Reason string
}

// Local is what came of claiming a form for an answer given on the run's
// own machine (its terminal, its local socket).
type Local struct {
	// Won: the local answer takes the form; apply it.
	Won bool
	// Offline: won because the inbox could not be reached (Reason says
	// why); the form is closed in the inbox once it is back.
	Offline bool
	// By is who took the form first, when not won; their claim comes on
	// [Publisher.Claims].
	By     string
	Reason string
}

// Publisher is the run's side of the inbox: it keeps the forms that wait
// for a person in the inbox, delivers the answers that take them, and
// publishes what came of each. One goroutine owns its state; its methods
// send it requests.
type Publisher struct {
	c  *Conn
	id Identity
	// ttl is how long a form stays in the inbox unless the run refreshes
	// it (every ttl/3): a run that dies leaves nothing behind for long.
	ttl time.Duration

	claims chan Claim
	status chan Status
	events chan any
	jobs   chan job
	quit   chan struct{}
	ended  chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	// ctx bounds the worker's operations; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
}

// job is one write or read, done by the worker in order; it ends with the
// event that reports it to the loop.
type job func(ctx context.Context) any

// FormTTL is how long a form stays in the inbox after its run last
// refreshed it; ClosedTTL how long a closed form's reason stays.
const (
	FormTTL   = 90 * time.Second
	ClosedTTL = 10 * time.Minute
)

// opTimeout bounds one operation on the inbox.
const opTimeout = 5 * time.Second

// NewPublisher starts the run's side of the inbox on c, which it shares
// (and does not close). The run reads [Publisher.Claims] and
// [Publisher.Status] until it calls Close.
func NewPublisher(c *Conn, id Identity) *Publisher {
	return newPublisher(c, id, FormTTL)
}

func newPublisher(c *Conn, id Identity, ttl time.Duration) *Publisher {
	p := &Publisher{c: c, id: id, ttl: ttl,
		claims: make(chan Claim), status: make(chan Status, 1), events: make(chan any),
		jobs: make(chan job), quit: make(chan struct{}), ended: make(chan struct{})}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	l := &runLoop{p: p, forms: map[string]*pform{}, byID: map[FormID]*pform{}, closed: map[FormID]*closedForm{},
		verdicts: map[string]*pendingVerdict{}, seen: map[string]bool{}, backoff: minBackoff}
	p.wg.Add(2)
	go func() { defer p.wg.Done(); p.work() }()
	go func() { defer p.wg.Done(); l.run(c.changes()) }()
	return p
}

// Claims delivers each answer from elsewhere that took one of the run's
// forms, once.
func (p *Publisher) Claims() <-chan Claim { return p.claims }

// Status is sent each change of whether the run's forms are in the inbox;
// it holds the latest.
func (p *Publisher) Status() <-chan Status { return p.status }

// Publish says form f waits for a person now, and returns its id in the
// inbox. A form already published is brought up to date; one being
// answered (a claim took it) waits again, in its next round: the claim's
// answer did not take it after all.
func (p *Publisher) Publish(f remote.Form) FormID {
	reply := make(chan FormID, 1)
	if !p.send(publishReq{f, reply}) {
		return ""
	}
	return <-reply
}

// Withdraw says the form no longer waits (answered, cancelled, moved on),
// and why: an answer that comes for it later is refused with the reason.
func (p *Publisher) Withdraw(toolUseID, reason string) { p.send(withdrawReq{toolUseID, reason}) }

// Done publishes what came of claim c, for its sender. A "refused" outcome
// (the form could not take that answer: nothing was done) opens the
// form's next round, as waiting.
func (p *Publisher) Done(c Claim, o remote.Outcome) { p.send(doneReq{c, o}) }

// ClaimLocal takes form toolUseID for an answer given on the run's
// machine, before the run applies it, in the same race as answers from
// elsewhere: won, or lost to whoever came first (whose claim comes on
// Claims), or won offline when the inbox cannot be reached or has not
// answered by the end of ctx (then an answer from elsewhere is refused,
// never applied). A form not in the inbox is won. One local answer takes
// a round: a second is told the first took it.
func (p *Publisher) ClaimLocal(ctx context.Context, toolUseID, from string) Local {
	reply := make(chan Local, 1)
	if !p.send(localReq{toolUseID, from, reply}) {
		return Local{Won: true, Offline: true, Reason: "the inbox is closed"}
	}
	select {
	case l := <-reply:
		return l
	case <-ctx.Done():
		// The run goes on with its answer: an answer from elsewhere that
		// took the form meanwhile is refused, never applied.
		p.send(localGaveUp{toolUseID})
		return Local{Won: true, Offline: true, Reason: "no word from the inbox: " + ctx.Err().Error()}
	}
}

// Close withdraws every form still published ("the run ended"), within a
// few seconds, and stops.
func (p *Publisher) Close() {
	p.once.Do(func() {
		p.send(closeReq{})
		select {
		case <-p.ended:
		case <-time.After(3 * time.Second):
		}
		close(p.quit)
		p.cancel()
		p.wg.Wait()
	})
}

// send hands the loop a request; false once the publisher is closed.
func (p *Publisher) send(ev any) bool {
	select {
	case p.events <- ev:
		return true
	case <-p.ended:
		return false
	case <-p.quit:
		return false
	}
}

// work does the loop's jobs, one at a time and in order, and reports each.
func (p *Publisher) work() {
	for {
		select {
		case j := <-p.jobs:
			ctx, cancel := context.WithTimeout(p.ctx, opTimeout)
			ev := j(ctx)
			cancel()
			select {
			case p.events <- ev:
			case <-p.quit:
				return
			}
		case <-p.quit:
			return
		}
	}
}

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
		if !v.writing {
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
func (l *runLoop) reopen(f *pform) {
	f.round++
	f.claim = nil
	f.version++
}

func (l *runLoop) handle(ev any) {
	p := l.p
	switch e := ev.(type) {
	case publishReq:
		f := l.forms[e.f.ToolUseID]
		if f == nil {
			f = &pform{id: newFormID(p.id.Machine, p.id.Session), tool: e.f.ToolUseID, round: 1}
			l.forms[f.tool], l.byID[f.id] = f, f
		} else if f.claim != nil {
			l.reopen(f)
		}
		f.form = e.f
		f.offline = false
		f.version++
		e.reply <- f.id

	case withdrawReq:
		f := l.forms[e.tool]
		if f == nil {
			return
		}
		delete(l.forms, e.tool)
		delete(l.byID, f.id)
		doc := l.doc(f)
		doc.State, doc.Reason, doc.By = Closed, e.reason, ""
		l.closed[f.id] = &closedForm{doc: doc}

	case doneReq:
		key := claimKey(e.c.Form, e.c.Round, escape(e.c.By))
		o := e.o
		l.verdicts[key] = &pendingVerdict{key: key, v: verdict{V: wireVersion, State: done, Outcome: &o}}
		if f := l.byID[e.c.Form]; f != nil && f.claim != nil && f.claim.rev == e.c.Rev && o.Result == "refused" {
			l.reopen(f)
		}

	case localReq:
		f := l.forms[e.tool]
		switch {
		case f == nil:
			e.reply <- Local{Won: true, Reason: "the form is not in the inbox"}
		case f.claim != nil:
			e.reply <- Local{By: winner{who: f.claim.who, from: f.claim.from}.describe(p.id.Machine)}
		case f.offline, f.localBusy:
			// One local answer takes a round, as one remote answer does.
			e.reply <- Local{By: winner{who: localName}.describe(p.id.Machine)}
		case !l.up():
			f.offline = true
			f.version++
			e.reply <- Local{Won: true, Offline: true, Reason: l.why()}
		default:
			f.localBusy = true
			id, round, from := f.id, f.round, e.from
			l.enqueue(func(ctx context.Context) any {
				doc := claimDoc{From: from, Nonce: nonce()}
				rev, err := p.c.writeClaim(ctx, id, round, localName, doc)
				switch {
				case err == nil:
					return localClaimed{tool: e.tool, round: round, rev: rev, reply: e.reply}
				case errors.Is(err, errLost):
					w, werr := p.c.firstClaim(ctx, id, round)
					if werr != nil {
						w = winner{who: "someone else"}
					}
					return localClaimed{tool: e.tool, round: round, lost: &w, reply: e.reply}
				}
				// No reply: written or not, the answer goes on here.
				if rev, ok, _ := p.c.ownClaim(ctx, claimKey(id, round, localName), doc); ok {
					return localClaimed{tool: e.tool, round: round, rev: rev, reply: e.reply}
				}
				return localClaimed{tool: e.tool, round: round, err: err, reply: e.reply}
			})
		}

	case localGaveUp:
		if f := l.forms[e.tool]; f != nil && (f.claim == nil || !f.claim.local) {
			f.offline = true
			f.version++
		}

	case localClaimed:
		f := l.forms[e.tool]
		if f == nil {
			e.reply <- Local{Won: true, Reason: "the form was withdrawn meanwhile"}
			return
		}
		f.localBusy = false
		switch {
		case e.err != nil:
			f.offline = true
			f.version++
			e.reply <- Local{Won: true, Offline: true, Reason: e.err.Error()}
			l.failed(e.err)
		case e.lost != nil:
			e.reply <- Local{By: e.lost.describe(p.id.Machine)}
		case f.round == e.round && (f.claim == nil || f.claim.rev == e.rev):
			f.claim = &held{rev: e.rev, key: claimKey(f.id, e.round, localName), who: localName, local: true}
			f.version++
			e.reply <- Local{Won: true}
		default:
			e.reply <- Local{Won: true, Offline: true, Reason: "the form changed while it was claimed"}
		}

	case closeReq:
		l.closing = true
		for tool := range l.forms {
			l.handle(withdrawReq{tool, "the run ended"})
		}

	case bound:
		l.binding = false
		if e.err != nil {
			l.failed(e.err)
			return
		}
		l.ok()
		l.b = e.b

	case watchStarted:
		l.starting = false
		if e.err != nil {
			l.failed(e.err)
			return
		}
		if !l.connected || l.closing {
			e.w.stop()
			return
		}
		l.watch, l.watched = e.w, true
		l.ok()
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.pump(e.w) }()

	case watchEnded:
		if l.watch == e.w {
			l.watch = nil
		}

	case claimSeen:
		if e.w == l.watch {
			l.claimSeen(e.e)
		}

	case formWritten:
		f := l.byID[e.id]
		if f == nil {
			return
		}
		f.writing = false
		if e.err != nil {
			l.failed(e.err)
			return
		}
		l.ok()
		f.written = max(f.written, e.version)

	case closedWritten:
		if c := l.closed[e.id]; c != nil {
			c.writing = false
			if e.err != nil && !l.closing {
				l.failed(e.err)
				return
			}
			c.written = true // or given up, as the run ends
		}

	case acceptDone:
		l.acceptDone(e)

	case verdictWritten:
		e.v.writing = false
		if e.err != nil && !l.closing {
			l.failed(e.err)
			return
		}
		l.ok()
		if l.verdicts[e.key] == e.v {
			delete(l.verdicts, e.key)
		}

	case retryFired:
		l.holdoff = false
	}
}

// claimSeen takes in a claim on one of the run's forms, once: the first
// claim of a form's round takes it; the run's sender is told of any other
// why it will not be applied.
func (l *runLoop) claimSeen(e jetstream.KeyValueEntry) {
	// A revision alone would do, but for a cluster whose store was lost
	// and that counts from 1 again.
	seen := fmt.Sprintf("%s@%d", e.Key(), e.Revision())
	if l.seen[seen] {
		return
	}
	l.seen[seen] = true
	id, round, who, ok := parseClaimKey(e.Key())
	if !ok {
		return
	}
	if e.Operation() != jetstream.KeyValuePut {
		// A claim removed (its sender may delete what it may write) before
		// the run took it: the round it blocked is passed, and it is never
		// applied.
		if f := l.byID[id]; f != nil && round == f.round && who != localName &&
			(f.claim == nil || f.claim.key == e.Key() && !f.claim.accepted) {
			l.reopen(f)
		}
		return
	}
	key := e.Key()
	refused := func(msg string) remote.Outcome { return remote.Outcome{Result: "refused", Message: msg} }
	f := l.byID[id]
	if f == nil {
		if c := l.closed[id]; c != nil {
			l.refuse(key, refused("the form moved on: "+c.doc.Reason), true)
		} else if who != localName {
			l.refuse(key, refused(fmt.Sprintf("no form %s waits in this run", id)), true)
		}
		return
	}
	if who == localName {
		switch {
		case f.claim != nil && f.claim.rev == e.Revision(), f.localBusy, f.offline:
			// The run's own, its reply lost or not yet handled.
		case round == f.round && f.claim == nil:
			// Not this run's (another on the machine writing in its name):
			// it takes nothing, and the round it blocked is passed.
			l.refuse(key, refused("a claim in the run's own name that the run did not make"), true)
			l.reopen(f)
		}
		return
	}
	var doc claimDoc
	if err := decode(e.Value(), &doc); err != nil {
		l.refuse(key, refused("an answer this run cannot read: "+err.Error()), true)
		if round == f.round && f.claim == nil {
			l.reopen(f)
		}
		return
	}
	switch {
	case f.offline:
		l.refuse(key, refused("the form was answered on "+l.p.id.Machine+" while the inbox was unreachable"), true)
	case round < f.round:
		l.refuse(key, refused("the form was asked again since (an earlier answer was refused): look at it again"), true)
	case round > f.round:
		l.refuse(key, refused(fmt.Sprintf("the form has no round %d yet", round)), true)
	case f.claim != nil:
		w := winner{rev: f.claim.rev, who: f.claim.who, from: f.claim.from}
		l.refuse(key, remote.Outcome{Result: "taken", Message: "answered first by " + w.describe(l.p.id.Machine)}, true)
	default:
		f.claim = &held{rev: e.Revision(), key: key, who: who, from: doc.From, doc: doc}
	}
}

// acceptDone hands an accepted claim to the run; one its sender withdrew
// first opens the form's next round.
func (l *runLoop) acceptDone(e acceptDone) {
	var f *pform
	for _, g := range l.forms {
		if g.claim != nil && g.claim.key == e.key && !g.claim.local {
			f = g
		}
	}
	if f == nil {
		// The form was withdrawn or asked again meanwhile: what was
		// accepted is not applied, and its sender is told.
		if e.err == nil && e.state == accepted {
			reason := "the form moved on"
			if id, _, _, ok := parseClaimKey(e.key); ok && l.closed[id] != nil {
				reason += ": " + l.closed[id].doc.Reason
			}
			l.verdicts[e.key] = &pendingVerdict{key: e.key, v: verdict{V: wireVersion, State: done,
				Outcome: &remote.Outcome{Result: "refused", Message: reason}}}
		}
		return
	}
	c := f.claim
	c.accepting = false
	switch {
	case e.err == nil && e.state == accepted && f.offline:
		// The run went on with a local answer meanwhile.
		f.claim = nil
		l.verdicts[e.key] = &pendingVerdict{key: e.key, v: verdict{V: wireVersion, State: done, Outcome: &remote.Outcome{
			Result: "refused", Message: "the form was answered on " + l.p.id.Machine + " while the inbox was slow or unreachable"}}}
	case e.err != nil:
		l.failed(e.err)
	case e.state == accepted:
		l.ok()
		c.accepted = true
		f.version++
		l.deliver = append(l.deliver, Claim{Form: f.id, ToolUseID: f.tool, Round: f.round, Rev: c.rev, By: c.who,
			From: c.doc.From, Answers: c.doc.Answers, Elicit: c.doc.Elicit})
	case e.state == done:
		// Accepted and answered before (a reply lost, a run that did not
		// see it): never applied twice.
		c.accepted = true
	default:
		// Withdrawn by its sender, who gave up waiting: not applied.
		l.reopen(f)
	}
}

// pump sends the watch's entries to the loop until the watch stops.
func (p *Publisher) pump(w *watching) {
	for {
		select {
		case e, ok := <-w.w.Updates():
			if !ok {
				select {
				case p.events <- watchEnded{w}:
				case <-w.quit:
				case <-p.quit:
				}
				return
			}
			if e == nil { // the end of what was there when it began
				continue
			}
			select {
			case p.events <- claimSeen{w, e}:
			case <-w.quit:
				return
			case <-p.quit:
				return
			}
		case <-w.quit:
			return
		case <-p.quit:
			return
		}
	}
}

// why is why the run's forms are not in the inbox now.
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
