package inbox

import (
	"context"
	"sync"
	"time"

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
