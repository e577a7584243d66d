package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/remote"
)

// Reach is a run's way to the inbox, as the session takes it
// (session.Config.Reach, whose method set it has): it publishes the
// forms that wait for a person, withdraws those that no longer wait with
// the reason, applies each answer that took one of them through the
// session's own handler, checked as a local answer is, and has the run's
// local answers take part in the same race. One goroutine owns its state;
// workers read what waits and apply answers, and report to it.
type Reach struct {
	c   *Conn
	id  Identity
	log *events.Log

	h      remote.Handler
	p      *Publisher
	kick   chan struct{}
	events chan any
	// stopping asks the loop to end once the answers being applied have
	// their outcome; quit then lets every worker go.
	stopping chan struct{}
	ended    chan struct{}
	quit     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once
	ctx      context.Context
	cancel   context.CancelFunc

	// said is what the run's events last said of each form (answered at
	// Claude's screen, cancelled): a leaf, written by the log's watcher
	// and read by the loop, never held while either emits.
	mu   sync.Mutex
	said map[string]string
}

// NewReach makes the run's way to the inbox over c, its forms published
// as id names the run; it says on log what happens (the connection lost
// and back, each form published and withdrawn). It does nothing until the
// session attaches it.
func NewReach(c *Conn, id Identity, log *events.Log) *Reach {
	r := &Reach{c: c, id: id, log: log, kick: make(chan struct{}, 1), events: make(chan any),
		stopping: make(chan struct{}), ended: make(chan struct{}), quit: make(chan struct{}), said: map[string]string{}}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

// Attach starts the reach on h, the session as its local socket serves it.
// It returns the handler the local socket is to serve instead (a local
// answer claims its form in the inbox first), the function the session
// calls when what waits for a person may have changed (it never blocks:
// changes coming together are read once), and the one that stops it.
func (r *Reach) Attach(h remote.Handler) (local remote.Handler, changed func(), stop func()) {
	r.h = h
	r.p = NewPublisher(r.c, r.id)
	if r.log != nil {
		r.log.Watch(r.watch)
	}
	r.wg.Add(1)
	go func() { defer r.wg.Done(); r.run() }()
	return localHandler{r: r, h: h}, r.changed, r.stop
}

func (r *Reach) changed() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// stopWait bounds how long stopping waits for the answers being applied
// to end (their context is cancelled at once).
const stopWait = 5 * time.Second

// stop ends the reach: the answers being applied end and their outcomes
// are published, then every form still in the inbox is withdrawn ("the
// run ended").
func (r *Reach) stop() {
	r.once.Do(func() {
		close(r.stopping)
		select {
		case <-r.ended:
		case <-time.After(stopWait):
		}
		close(r.quit)
		r.cancel()
		r.wg.Wait()
		r.p.Close()
	})
}

// send hands the loop a report; false once it has stopped.
func (r *Reach) send(ev any) bool {
	select {
	case r.events <- ev:
		return true
	case <-r.ended:
		return false
	case <-r.quit:
		return false
	}
}

// Reports to the loop.
type (
	// pendingRead is what waits for a person, as the session said.
	pendingRead struct{ forms []remote.Form }
	// claimApplied is what came of an answer from elsewhere.
	claimApplied struct {
		c Claim
		o remote.Outcome
	}
	// localBegun and localEnded bracket an answer given on the run's
	// machine (its local socket).
	localBegun struct{ tool string }
	localEnded struct {
		tool, from string
		o          remote.Outcome
		l          Local
	}
)

// rform is a form the reach published.
type rform struct {
	id   FormID
	form remote.Form // as the session last listed it
	sig  string      // form, as published
	// reopen: an answer to it ended without taking it; it is published
	// again (its next round) if it still waits.
	reopen bool
	// answered says who answered it, once an answer through the reach was
	// recorded.
	answered string
}

// reachState is the loop's: the forms published, and the answers being
// applied, by tool_use_id.
type reachState struct {
	forms map[string]*rform
	busy  map[string]int
	// up: the inbox was reached since the run started; lost: then lost.
	up, lost bool
}

func (r *Reach) run() {
	defer close(r.ended)
	st := &reachState{forms: map[string]*rform{}, busy: map[string]int{}}
	reading, again, stopping := false, true, r.stopping
	for {
		if stopping == nil && !reading && len(st.busy) == 0 {
			return
		}
		if again && !reading && stopping != nil {
			reading, again = true, false
			r.wg.Add(1)
			go func() { defer r.wg.Done(); r.send(pendingRead{r.h.Pending()}) }()
		}
		select {
		case <-r.kick:
			again = true
		case ev := <-r.events:
			if _, ok := ev.(pendingRead); ok {
				reading = false
			}
			if r.handle(st, ev) {
				again = true
			}
		case c := <-r.p.Claims():
			r.claim(st, c)
		case s := <-r.p.Status():
			r.status(st, s)
		case <-stopping:
			// What is being applied ends now; its outcome is still said.
			stopping = nil
			r.cancel()
		case <-r.quit:
			return // stopWait passed
		}
	}
}

// handle takes in a report; it says whether what waits is to be read
// again.
func (r *Reach) handle(st *reachState, ev any) bool {
	switch e := ev.(type) {
	case pendingRead:
		r.reconcile(st, e.forms)
	case claimApplied:
		r.p.Done(e.c, e.o)
		st.done(e.c.ToolUseID)
		if f := st.forms[e.c.ToolUseID]; f != nil {
			if e.o.OK() {
				f.answered = "answered by " + claimSender(e.c)
			}
			// An answer that did not take the form leaves it waiting, in its
			// next round (Done opened it for one refused).
			f.reopen = !e.o.OK() && e.o.Result != "refused"
		}
		return true
	case localBegun:
		st.busy[e.tool]++
	case localEnded:
		st.done(e.tool)
		f := st.forms[e.tool]
		if f == nil {
			return true
		}
		if e.l.Offline {
			r.emit("inbox_form", events.Fields{"tool_use_id": e.tool, "form_id": string(f.id), "state": "answered_here",
				"reason": e.l.Reason})
		}
		if e.o.OK() {
			f.answered = "answered on " + r.id.Machine + " (" + e.from + ")"
		}
		f.reopen = e.l.Won && !e.o.OK()
		return true
	}
	return false
}

func (st *reachState) done(tool string) {
	if st.busy[tool]--; st.busy[tool] <= 0 {
		delete(st.busy, tool)
	}
}

// reconcile brings the inbox in line with what waits: a form new is
// published, one changed (or whose answer did not take it) published
// again, one gone withdrawn with the reason. A form being answered
// through the reach is left as it is until its answer ends.
func (r *Reach) reconcile(st *reachState, forms []remote.Form) {
	now := map[string]bool{}
	for _, f := range forms {
		now[f.ToolUseID] = true
		sig := signature(f)
		rf := st.forms[f.ToolUseID]
		switch {
		case st.busy[f.ToolUseID] > 0:
			if rf != nil {
				rf.form = f
			}
		case rf == nil:
			id := r.p.Publish(f)
			if id == "" {
				return // closed
			}
			st.forms[f.ToolUseID] = &rform{id: id, form: f, sig: sig}
			r.emit("inbox_form", events.Fields{"tool_use_id": f.ToolUseID, "form_id": string(id), "state": "published"})
		case rf.sig != sig || rf.reopen:
			r.p.Publish(f)
			rf.form, rf.sig, rf.reopen = f, sig, false
		}
	}
	for tool, rf := range st.forms {
		if now[tool] || st.busy[tool] > 0 {
			continue
		}
		reason := rf.answered
		if reason == "" {
			reason = r.saidOf(tool)
		}
		r.p.Withdraw(tool, reason)
		delete(st.forms, tool)
		r.forget(tool)
		r.emit("inbox_form", events.Fields{"tool_use_id": tool, "form_id": string(rf.id), "state": "withdrawn", "reason": reason})
	}
}

// signature is f as it is published, to tell a change.
func signature(f remote.Form) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// claim starts applying an answer from elsewhere that took a form.
func (r *Reach) claim(st *reachState, c Claim) {
	rf := st.forms[c.ToolUseID]
	if rf == nil || st.busy[c.ToolUseID] > 0 {
		r.p.Done(c, remote.Outcome{Result: "taken", Message: "the form no longer waits for a person, or is being answered on " + r.id.Machine})
		return
	}
	st.busy[c.ToolUseID]++
	f := rf.form
	r.wg.Add(1)
	go func() { defer r.wg.Done(); r.send(claimApplied{c, r.apply(c, f)}) }()
}

// apply applies claim c to form f, as the form was last listed, through
// the session's handler exactly as the local socket applies an answer,
// checked the same way first; the decisions name the inbox user the
// server let write the claim.
func (r *Reach) apply(c Claim, f remote.Form) remote.Outcome {
	refused := func(msg string) remote.Outcome { return remote.Outcome{Result: "refused", Message: msg} }
	ctx, cancel := context.WithTimeout(r.ctx, remote.AnswerWait)
	defer cancel()
	from := claimSender(c)
	switch {
	case c.Elicit != nil && f.Elicitation == nil:
		return refused("form " + c.ToolUseID + " asks questions: answer them, not an MCP server's form")
	case c.Elicit == nil && f.Elicitation != nil:
		return refused("form " + c.ToolUseID + " is MCP server " + f.Elicitation.Server + "'s: answer it with accept, decline or cancel")
	case c.Elicit != nil:
		eh, ok := r.h.(remote.ElicitHandler)
		if !ok {
			return refused("this session answers no MCP server's form")
		}
		return eh.AnswerElicitation(ctx, c.ToolUseID, from, *c.Elicit)
	}
	ds, err := remote.Merge(f.Questions, f.Decided, c.Answers)
	if err == nil {
		err = remote.Check(f.Questions, ds)
	}
	if err != nil {
		return refused(err.Error())
	}
	return r.h.Answer(ctx, c.ToolUseID, from, c.Answers)
}

// maxSender bounds how the sender names itself, in bytes.
const maxSender = 100

// claimSender names c's sender for the run's decisions and lines: how it
// names itself, which proves nothing, and the inbox user the server let
// write it, each escaped for a terminal.
func claimSender(c Claim) string {
	from := strings.TrimSpace(safe.Line(c.From))
	if len(from) > maxSender {
		i := maxSender
		for i > 0 && !utf8.RuneStart(from[i]) {
			i--
		}
		from = from[:i] + "…"
	}
	by := "inbox user " + safe.Line(c.By)
	if from == "" {
		return by
	}
	return from + " (" + by + ")"
}

// status says a change of the connection to the person: reached, lost
// (the forms are answered here only meanwhile), and back (published
// again).
func (r *Reach) status(st *reachState, s Status) {
	switch {
	case s.Connected && !st.up:
		st.up, st.lost = true, false
		r.emit("inbox", events.Fields{"state": "connected", "server": s.Server, "machine": r.id.Machine})
	case s.Connected && st.lost:
		st.lost = false
		r.emit("inbox", events.Fields{"state": "back", "server": s.Server, "machine": r.id.Machine})
	case !s.Connected && !st.lost:
		st.lost = true
		r.emit("inbox", events.Fields{"state": "unreachable", "reason": s.Reason, "machine": r.id.Machine})
	}
}

func (r *Reach) emit(name string, f events.Fields) {
	if r.log != nil {
		r.log.Emit(name, f)
	}
}

// watch notes what the run's events say ended a form, for its
// withdrawal's reason. It runs inside the log's lock: it only notes.
func (r *Reach) watch(name string, f events.Fields) {
	tool, _ := f["tool_use_id"].(string)
	if tool == "" {
		return
	}
	str := func(k string) string { s, _ := f[k].(string); return s }
	why := ""
	switch {
	case name == "submitted" && str("by") == "person":
		why = "answered at Claude's screen"
	case name == "cancelled":
		why = "cancelled"
		if str("reason") != "" {
			why += ": " + str("reason")
		}
	case name == "timeout":
		why = "no answer came in time: the fallback answered"
	default:
		return
	}
	r.mu.Lock()
	r.said[tool] = why
	r.mu.Unlock()
}

// saidOf is why form tool no longer waits, as the run's events said.
func (r *Reach) saidOf(tool string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if why := r.said[tool]; why != "" {
		return why
	}
	return "it no longer waits for a person (answered at Claude's screen, cancelled, or Claude moved on)"
}

func (r *Reach) forget(tool string) {
	r.mu.Lock()
	delete(r.said, tool)
	r.mu.Unlock()
}

// localClaimWait bounds how long a local answer waits for the inbox to
// take its claim before it goes on without it.
const localClaimWait = 3 * time.Second

// localHandler is the session as the local socket serves it with the
// inbox: an answer claims its form in the inbox before it is applied.
type localHandler struct {
	r *Reach
	h remote.Handler
}

var (
	_ remote.Handler       = localHandler{}
	_ remote.ElicitHandler = localHandler{}
)

func (l localHandler) Pending() []remote.Form { return l.h.Pending() }
func (l localHandler) ClaudeSession() string  { return l.h.ClaudeSession() }

func (l localHandler) Answer(ctx context.Context, tool, from string, ds []answer.Decision) remote.Outcome {
	return l.r.local(ctx, tool, from, func(ctx context.Context) remote.Outcome { return l.h.Answer(ctx, tool, from, ds) })
}

func (l localHandler) AnswerElicitation(ctx context.Context, id, from string, a remote.ElicitAnswer) remote.Outcome {
	eh, ok := l.h.(remote.ElicitHandler)
	if !ok {
		return remote.Outcome{Result: "refused", Message: "this session answers no MCP server's form"}
	}
	return l.r.local(ctx, id, from, func(ctx context.Context) remote.Outcome { return eh.AnswerElicitation(ctx, id, from, a) })
}

// local applies an answer given on the run's machine once it has claimed
// its form in the inbox: lost, it is "taken", naming who took the form;
// with the inbox unreachable (or slow), it goes on, and the run says so.
func (r *Reach) local(ctx context.Context, tool, from string, apply func(context.Context) remote.Outcome) remote.Outcome {
	if !r.send(localBegun{tool}) {
		return apply(ctx) // the run is ending: no inbox to race
	}
	cctx, cancel := context.WithTimeout(ctx, localClaimWait)
	l := r.p.ClaimLocal(cctx, tool, from)
	cancel()
	if !l.Won {
		r.send(localEnded{tool: tool, l: l})
		return remote.Outcome{Result: "taken", Message: fmt.Sprintf("answered first by %s, through the inbox", l.By)}
	}
	o := apply(ctx)
	r.send(localEnded{tool: tool, from: from, o: o, l: l})
	return o
}
