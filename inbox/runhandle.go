package inbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/claudewrap/claudewrap/remote"
)

// The run loop's handling of each request and report, and of the claims
// it sees.

func (l *runLoop) handle(ev any) {
	p := l.p
	switch e := ev.(type) {
	case publishReq:
		f := l.forms[e.f.ToolUseID]
		if f == nil {
			f = &pform{id: newFormID(p.id.Machine, p.id.Session), tool: e.f.ToolUseID, round: 1}
			l.forms[f.tool], l.byID[f.id] = f, f
		} else if f.claim != nil {
			l.reopen(f, "")
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
			l.reopen(f, key)
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
			l.reopen(f, "")
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
			l.reopen(f, key)
		}
		return
	}
	var doc claimDoc
	if err := decode(e.Value(), &doc); err != nil {
		l.refuse(key, refused("an answer this run cannot read: "+err.Error()), true)
		if round == f.round && f.claim == nil {
			l.reopen(f, key)
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
		l.reopen(f, "")
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
