package session

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/vt"
)

// state is where a form is in its life. Each form moves only as [life]
// says (see [session.move]):
//
//	deciding ──▶ queued ◀─▶ driving ──▶ submitted ──▶ recorded
//	   │   ▲        │          │  │          │
//	   │   │        ▼          ▼  └──────────┴──────▶ done
//	   └───┼──▶ handedOver ◀───┘
//	       └────────┘ (an answer from elsewhere, the answer timeout)
//
// Any form becomes recorded when its PostToolUse arrives, and done when it
// is cancelled, chatted about, abandoned or left behind by an interrupted
// turn.
type state int

const (
	deciding   state = iota // its PreToolUse arrived; the answers are being decided
	queued                  // decided; waiting for the screen while another form is driven
	driving                 // askflow is answering it
	submitted               // askflow submitted it; Claude's record is awaited
	handedOver              // the person answers it in Claude's own menu
	recorded                // Claude recorded it (PostToolUse)
	done                    // cancelled, chatted, abandoned: nothing is recorded
)

var stateNames = [...]string{"deciding", "queued", "driving", "submitted", "handed over", "recorded", "done"}

func (s state) String() string { return stateNames[s] }

// edge is one move a form may make, and what it happens on (with, in
// brackets, the function that makes it).
type edge struct {
	from, to state
	on       string
}

// life is a form's state table: every move a form may make, what it
// happens on and which function makes it. Whatever the move, going to
// handedOver, recorded or done stops its drive at once, going to
// handedOver or done drops what Claude was to record, and going to
// handedOver or done may release a held Stop (see moveOnLoop).
var life = []edge{
	{deciding, queued, "its answers are decided, to be given on the screen (queue)"},
	{deciding, submitted, "its answers went back through its PreToolUse hook (answerByHook)"},
	{deciding, handedOver, "a question no rule answers, under passthrough or wait (decide); a dry run; the person typed, or pressed Esc just before it was asked (queue)"},
	{deciding, done, "the turn was interrupted (dropQueued); Claude recorded the person's cancel (checkRecord)"},
	{deciding, recorded, "its PostToolUse (checkRecord)"},

	{queued, driving, "its turn: the screen shows it and no other form is driven or awaits its record (awaitTurn)"},
	{queued, handedOver, "the person typed (takeOver); an answer from elsewhere waited its turn too long (remoteHandler.Answer)"},
	{queued, done, "the turn was interrupted (dropQueued); Claude recorded the person's cancel (checkRecord)"},
	{queued, recorded, "its PostToolUse (checkRecord)"},

	{driving, queued, "another form asked with it shows instead, before anything but a move was pressed (drive)"},
	{driving, submitted, "askflow submitted it (endDrive)"},
	{driving, handedOver, "the rules answered the questions before the first they leave open (endDrive); the person typed (takeOver); Claude's conversation went to the background, or the screen did not confirm a step with a person at it (driveFailed)"},
	{driving, done, "askflow cancelled it or chatted about it (endDrive); the screen did not confirm a step, headless (driveFailed); Claude recorded the person's cancel (checkRecord)"},
	{driving, recorded, "its PostToolUse (checkRecord)"},

	{submitted, recorded, "its PostToolUse (checkRecord)"},
	{submitted, done, "Claude recorded nothing in time (recordDue); Claude recorded the person's cancel (checkRecord)"},

	{handedOver, queued, "an answer from elsewhere, or the answer timeout's (queue)"},
	{handedOver, done, "the person's Esc in Claude's menu (escaped and escAsked watch, cancelledByEsc moves); Claude recorded the person's cancel (checkRecord)"},
	{handedOver, recorded, "its PostToolUse (checkRecord)"},
}

// allowed reports whether life lets a form go from one state to another.
func allowed(from, to state) bool {
	return slices.ContainsFunc(life, func(e edge) bool { return e.from == from && e.to == to })
}

// form is one AskUserQuestion form in flight. The fields up to asked are
// set as it is registered and never change after (but its id, see ID);
// those after it are the conductor's: read and changed on its loop only
// (see conductor.do).
type form struct {
	seq       int                    // the order its PreToolUse arrived in
	id        atomic.Pointer[string] // its tool_use_id; see ID
	questions []answer.Question
	// reply answers its waiting PreToolUse hook (the hook answer strategy;
	// nil otherwise); input is the tool_input the answer is built on.
	reply func([]byte) bool
	input []byte
	asked time.Time

	state   state
	want    map[string]expect  // what Claude must record, from queued on
	cancel  context.CancelFunc // stops askflow while driving; never nil
	driven  chan struct{}      // closed when askflow is done with the form, or never drives it; a new one per drive (see start)
	posted  chan struct{}      // closed when its PostToolUse arrives
	viaHook bool               // answered through its PreToolUse hook: never drawn
	escAt   time.Time          // handed over as asked just after the person's Esc (see start)
	// handed is the conductor's order number when it was last handed over;
	// only the conductor reads or writes it.
	handed uint64
	// asking: the person is asked on claudewrap's prompt; an answer from
	// elsewhere (claudewrap answer) goes to remote instead, and the first
	// of the two wins (see remote.go).
	asking bool
	remote chan remoteAnswer
	// ruled holds the rules' decisions of a form some of whose questions
	// no rule answers: they stand, and a person's answer gives the rest.
	ruled []rules.Decision
}

// ID is the form's tool_use_id. It may change once, when Claude records
// a twin of the form driven (see session.twinOnLoop).
func (f *form) ID() string { return *f.id.Load() }

// expect is what Claude must record for one question.
type expect struct {
	answers  []string // any of these (see answer.Decision.Recordings; may be none)
	intended string   // the answer as meant, for messages
	notes    string   // the notes, on a question with previews
	preview  bool     // the question has previews: its notes are checked too
	loose    bool     // a label picked on the screen: compared as answer.Loose leaves it
}

// move makes f go from one of the states in from to next, and reports
// whether it did (f was elsewhere: someone else moved it first).
func (s *session) move(f *form, next state, from ...state) (moved bool) {
	s.loop.do(func() { moved = s.moveOnLoop(f, next, from...) })
	return moved
}

func (s *session) moveOnLoop(f *form, next state, from ...state) bool {
	ok := false
	for _, st := range from {
		ok = ok || f.state == st
	}
	if !ok {
		return false
	}
	if !allowed(f.state, next) {
		// A bug of claudewrap's own: said, and the form stays put.
		s.say("error", events.Fields{"tool_use_id": f.ID(),
			"message": "internal: a form cannot go from " + f.state.String() + " to " + next.String()})
		return false
	}
	if s.onMove != nil {
		s.onMove(f.ID(), f.state, next)
	}
	f.state = next
	s.changedOnLoop()
	if next == handedOver || next == recorded || next == done {
		f.cancel() // askflow, if driving, stops at once
	}
	if next == handedOver || next == done {
		f.want = nil // whatever happens now is not our answer
	}
	if next == handedOver {
		s.loop.handed(f)
	}
	s.releaseStopOnLoop(next)
	s.pendingChangedOnLoop()
	return true
}

// stateOf is f's state now.
func (s *session) stateOf(f *form) (st state) {
	s.loop.do(func() { st = f.state })
	return st
}

// newForm is the form a question's PreToolUse asks, with the reply its
// hook waits for (nil: none). What it is given here never changes.
func newForm(p *hook.Payload, reply func([]byte) bool) *form {
	f := &form{questions: p.ToolInput.Questions, reply: reply, input: p.Input, asked: time.Now(),
		driven: make(chan struct{}), posted: make(chan struct{}), cancel: func() {},
		remote: make(chan remoteAnswer, 1)}
	f.id.Store(&p.ToolUseID)
	return f
}

// formAsked: a form's PreToolUse came (see asked).
type formAsked struct{ f *form }

// asked registers form f as its PreToolUse came and has a worker decide
// it (question); a second PreToolUse of the same tool_use_id is said, its
// hook let go, and nothing else.
func (s *session) asked(e formAsked) {
	f := e.f
	if !s.registerOnLoop(f) {
		s.say("error", events.Fields{"tool_use_id": f.ID(), "message": "a second PreToolUse for this tool_use_id ignored"})
		if f.reply != nil {
			f.reply(nil)
		}
		return
	}
	// Asking the person may take long: hook messages keep flowing.
	s.goWorkOnLoop(func() { s.question(f) })
}

// registerOnLoop says form f asked and records it; false for a duplicate.
func (s *session) registerOnLoop(f *form) bool {
	s.say("question", events.Fields{"tool_use_id": f.ID(), "questions": f.questions})
	s.lastPre = f.asked
	s.seq++
	f.seq = s.seq
	if _, dup := s.forms[f.ID()]; dup || s.finished[f.ID()] {
		return false
	}
	s.forms[f.ID()] = f
	s.changedOnLoop()
	return true
}

// changedOnLoop wakes whatever waits on s.changed: a form was asked,
// moved, forgotten or posted, or the turn ended.
func (s *session) changedOnLoop() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// keepFinished bounds how many finished forms' ids are remembered.
const keepFinished = 256

// forgetOnLoop drops a finished form, remembering only its id.
func (s *session) forgetOnLoop(f *form) {
	if _, ok := s.forms[f.ID()]; !ok {
		return
	}
	delete(s.forms, f.ID())
	s.changedOnLoop()
	s.finished[f.ID()] = true
	s.finishedQ = append(s.finishedQ, f.ID())
	if len(s.finishedQ) > keepFinished {
		delete(s.finished, s.finishedQ[0])
		s.finishedQ = s.finishedQ[1:]
	}
}

// turnWait bounds how long the first of several forms asked together
// waits for the screen to show one of them before it is driven anyway
// (askflow then waits for it, and reports what it saw).
const turnWait = 10 * time.Second

// aloneWait bounds how long a form asked alone waits for the screen to show
// it before it is driven anyway (see turnOnLoop).
const aloneWait = time.Second

// turnOnLoop reports whether f may be driven now, snap being the screen.
// Claude shows one form at a time, mostly in the order it asked them, but
// Claude Code 2.1.197 and 2.1.266 show two different forms asked at once
// last first. So no form goes while another is driven or awaits its
// record, or while one asked before it is still decided or answered by the
// person; of several forms waiting their turn (queued, or still being
// decided), the one the screen shows goes, and of two alike the first
// asked (see twinOnLoop). Until the screen shows any of them, the first
// asked waits, at most turnWait.
func (s *session) turnOnLoop(f *form, snap vt.Snapshot) bool {
	var waiting []*form
	first := true
	for _, g := range s.forms {
		switch {
		case g == f || g.state == recorded || g.state == done || g.state == submitted && isClosed(g.posted):
			// (A submitted form whose PostToolUse came is closed: only
			// its record is being read, see verify.)
			continue
		case g.state == driving || g.state == submitted && !g.viaHook:
			// (A form answered through the hook is never drawn.)
			return false
		case g.seq < f.seq && g.state != queued:
			return false
		case g.state == queued || g.state == deciding:
			// A form still being decided is queued a moment later: its
			// hook came with f's.
			waiting = append(waiting, g)
			first = first && g.seq > f.seq
		}
	}
	if len(waiting) == 0 {
		// Alone so far: the hook of a form asked with it may still be on
		// its way (they come milliseconds apart), and Claude may show that
		// one first. So f goes once the screen shows it, or aloneWait after
		// it was asked.
		return time.Since(f.asked) >= aloneWait || askflow.Showing(snap, f.questions)
	}
	if askflow.Showing(snap, f.questions) {
		return !slices.ContainsFunc(waiting, func(g *form) bool {
			return g.seq < f.seq && askflow.Showing(snap, g.questions)
		})
	}
	if !first || slices.ContainsFunc(waiting, func(g *form) bool { return askflow.Showing(snap, g.questions) }) {
		return false
	}
	return time.Since(f.asked) >= turnWait
}

// showsOther reports whether snap shows, instead of f, another form
// waiting its turn (for askflow.Config.Elsewhere). A form with f's
// questions cannot be told from f, so the screen must not show f's.
func (s *session) showsOther(f *form, snap vt.Snapshot) bool {
	if askflow.Showing(snap, f.questions) {
		return false
	}
	var others [][]answer.Question
	s.loop.do(func() {
		for _, g := range s.forms {
			if g != f && (g.state == queued || g.state == deciding) {
				others = append(others, g.questions)
			}
		}
	})
	return slices.ContainsFunc(others, func(qs []answer.Question) bool { return askflow.Showing(snap, qs) })
}

// lastAskedOther is when the latest form in flight other than f was asked
// (zero: none), for askflow (see askflow.Config.LastAsked).
func (s *session) lastAskedOther(f *form) (last time.Time) {
	s.loop.do(func() {
		for _, g := range s.forms {
			if g != f && g.asked.After(last) {
				last = g.asked
			}
		}
	})
	return last
}

// formsIn lists the forms in one of the states.
func (s *session) formsIn(states ...state) (out []*form) {
	s.loop.do(func() { out = s.formsInOnLoop(states...) })
	return out
}

func (s *session) formsInOnLoop(states ...state) []*form {
	var out []*form
	for _, f := range s.forms {
		for _, st := range states {
			if f.state == st {
				out = append(out, f)
				break
			}
		}
	}
	return out
}
