package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/bundle"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
)

// Decider decides the answer to one question. rules.Set is one.
type Decider interface {
	Decide(q answer.Question) rules.Decision
	Fallback(q answer.Question) (rules.Decision, error)
}

// Asker asks the person for an answer (see package ask).
type Asker interface {
	Ask(ctx context.Context, q answer.Question, n, total int) (answer.Decision, error)
}

// Config is one session.
type Config struct {
	// Host describes Claude and the terminal; Args are Claude's own
	// arguments. Run adds --settings with claudewrap's hooks.
	Host ptyhost.Config
	// Exe is the absolute path of the claudewrap binary the hooks run.
	Exe string

	Decider Decider
	// Policy applies to questions no rule answers.
	Policy rules.Policy
	// Asker asks the person under the ask policy.
	Asker Asker
	// AnswerTimeout bounds how long ask and passthrough wait for the person
	// before the fallback answer; 0 waits forever.
	AnswerTimeout time.Duration

	Log           *events.Log
	ExitAfterTurn bool
	DryRun        bool

	// Flow tunes askflow's timeouts; zero values take its defaults.
	Flow askflow.Config

	// Bundles is the folder bug-report bundles go in when a form could not
	// be answered (see package bundle); "" writes none.
	Bundles string

	// Started, if set, is called once Claude runs, with the host and the
	// hook socket's path. WrapKeys, if set, wraps the key sender askflow
	// uses. Both are seams for fault-injection tests.
	Started  func(h *ptyhost.Host, socket string)
	WrapKeys func(askflow.Keys) askflow.Keys
}

// Report is how a session ended; the exit status is made from it.
type Report struct {
	Claude     ptyhost.Status
	Unmatched  bool // a question went unanswered under the fail policy
	Navigation bool // the screen did not confirm a step
	Mismatch   bool // Claude recorded something other than intended
	Ended      bool // claudewrap ended Claude itself (--exit-after-turn)
	// Failures has one line per form that could not be answered, naming
	// its bug-report bundle.
	Failures []string
}

// form is one AskUserQuestion form in flight.
type form struct {
	id        string
	questions []answer.Question
	asked     time.Time
	want      map[string]expect // by question text; nil when not ours
	cancel    context.CancelFunc
	done      chan struct{} // closed when askflow is not running for it
	answered  bool          // PostToolUse arrived
	posted    chan struct{} // closed when PostToolUse arrives
}

// expect is what Claude must record for one question.
type expect struct {
	answers []string // any of these (see answer.Decision.Answers)
	notes   string   // the notes, on a question with previews
	preview bool     // the question has previews: its notes are checked too
}

type session struct {
	cfg  Config
	host *ptyhost.Host
	keys askflow.Keys
	log  *events.Log
	rec  *bundle.Recorder // the screen so far, for bug reports

	mu     sync.Mutex
	forms  map[string]*form
	active *form  // the form askflow is driving, if any
	chat   string // a message to send when the turn ends ("Chat about this")
	// lastInput is when the person last typed, for the passthrough timeout.
	lastInput time.Time
	lastPre   time.Time // when the last PreToolUse arrived
	report    Report
	work      sync.WaitGroup // goroutines deciding or answering forms
	// finished remembers the ids of the last forms done with (bounded), so
	// that a whole day's forms do not pile up in forms.
	finished  map[string]bool
	finishedQ []string
	ctx       context.Context // ends when Claude has exited
}

// Run starts Claude, answers its forms until it exits, and reports.
func Run(ctx context.Context, cfg Config) (Report, error) {
	srv, err := hook.Listen()
	if err != nil {
		return Report{}, err
	}
	defer srv.Close()
	s := &session{cfg: cfg, log: cfg.Log, forms: map[string]*form{}, finished: map[string]bool{}}

	hc := cfg.Host
	hc.Args, err = hook.WithSettings(hc.Args, hook.Settings(cfg.Exe, srv.Path()))
	if err != nil {
		return Report{}, err
	}
	s.rec = bundle.NewRecorder(hc.Cols, hc.Rows, recordLimit)
	hc.Tap = tee{hc.Tap, s.rec}
	userInput := hc.OnInput
	hc.OnInput = func(p []byte) {
		if personTyped(p) {
			s.mu.Lock()
			s.lastInput = time.Now()
			s.mu.Unlock()
			s.takeOver()
		}
		if userInput != nil {
			userInput(p)
		}
	}
	h, err := ptyhost.Start(hc)
	if err != nil {
		return Report{}, err
	}
	s.host = h
	s.rec.SetScreen(h.Screen().Snapshot)
	s.keys = askflow.Keys(h)
	if cfg.WrapKeys != nil {
		s.keys = cfg.WrapKeys(h)
	}
	if cfg.Started != nil {
		cfg.Started(h, srv.Path())
	}

	// Work for forms ends with Claude: a prompt or askflow still running
	// when Claude exits is stopped, and its events come before Run returns.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s.ctx = ctx
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		s.watchForms(ctx)
	}()
	// When the caller's context ends, Claude is asked to go (killed if it
	// does not); forms asked meanwhile get the ended context and stop at
	// once.
	ended := ctx.Done()
	for {
		select {
		case m, ok := <-srv.Messages():
			if !ok {
				continue
			}
			s.handle(ctx, m)
		case <-h.Done():
			stop()
			s.stopAll()
			s.work.Wait()
			st, err := h.Wait()
			s.mu.Lock()
			defer s.mu.Unlock()
			s.report.Claude = st
			return s.report, err
		case <-ended:
			ended = nil
			_ = h.Signal(syscall.SIGTERM)
			kill := time.AfterFunc(killGrace, func() { _ = h.Signal(syscall.SIGKILL) })
			defer kill.Stop()
		}
	}
}

func (s *session) handle(ctx context.Context, m hook.Message) {
	if m.Err != nil {
		s.log.Emit("error", events.Fields{"message": m.Err.Error()})
		return
	}
	p := m.Payload
	switch p.HookEventName {
	case hook.PreToolUse:
		if f := s.register(p); f != nil {
			// Asking the person may take long; hook messages keep flowing.
			s.work.Add(1)
			go func() {
				defer s.work.Done()
				s.question(ctx, f)
			}()
		}
	case hook.PostToolUse:
		// verify may wait for askflow's last step: hook messages keep
		// flowing meanwhile.
		s.work.Add(1)
		go func() {
			defer s.work.Done()
			s.verify(p)
		}()
	case hook.Stop:
		s.stop()
	}
}

// register records a form's PreToolUse; nil for a duplicate.
func (s *session) register(p *hook.Payload) *form {
	qs := p.ToolInput.Questions
	s.log.Emit("question", events.Fields{"tool_use_id": p.ToolUseID, "questions": qs})
	f := &form{id: p.ToolUseID, questions: qs, done: closedChan(), asked: time.Now(), posted: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastPre = f.asked
	if _, dup := s.forms[p.ToolUseID]; dup || s.finished[p.ToolUseID] {
		s.log.Emit("error", events.Fields{"tool_use_id": p.ToolUseID, "message": "a second PreToolUse for this tool_use_id ignored"})
		return nil
	}
	s.forms[p.ToolUseID] = f
	return f
}

// question decides the answers to a form, then has them given.
func (s *session) question(ctx context.Context, f *form) {
	decisions, ok := s.decide(ctx, f)
	if !ok {
		return
	}
	s.start(ctx, f, decisions)
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// start has askflow answer f with the decisions, unless this is a dry run.
func (s *session) start(ctx context.Context, f *form, decisions []rules.Decision) {
	if s.cfg.DryRun {
		s.log.Emit("handed_over", events.Fields{"tool_use_id": f.id, "reason": "dry run: nothing pressed"})
		return
	}
	var flow []answer.Decision
	want := map[string]expect{}
	for i, d := range decisions {
		flow = append(flow, d.Decision)
		q := f.questions[i]
		if d.Action == answer.Select || d.Action == answer.Type {
			want[q.Question] = expect{answers: d.Recordings(q.MultiSelect), notes: d.Notes,
				preview: q.PreviewLayout()}
		}
	}
	fctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	if f.answered {
		s.mu.Unlock()
		cancel()
		return
	}
	f.want, f.cancel, f.done = want, cancel, make(chan struct{})
	s.active = f
	// Claude's turn goes on after "Chat about this" and may end before
	// askflow returns: the message must be pending by then.
	for _, d := range flow {
		if d.Action == answer.Chat && d.Text != "" {
			s.chat = d.Text
			break
		}
	}
	s.mu.Unlock()
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		s.answer(fctx, f, flow)
	}()
}

// decide makes one decision per question, applying the unmatched policy.
// It returns false when claudewrap leaves the form to the person.
func (s *session) decide(ctx context.Context, f *form) ([]rules.Decision, bool) {
	id, qs := f.id, f.questions
	ds := make([]rules.Decision, len(qs))
	var unmatched []int
	for i, q := range qs {
		d := s.cfg.Decider.Decide(q)
		ds[i] = d
		if d.Matched() {
			s.emitDecision(id, i, q, d)
			continue
		}
		unmatched = append(unmatched, i)
		s.log.Emit("unmatched", events.Fields{"tool_use_id": id, "question": q.Question, "index": i + 1,
			"reason": d.Unmatched, "policy": string(s.cfg.Policy)})
	}
	if len(unmatched) == 0 {
		return ds, true
	}
	switch s.cfg.Policy {
	case rules.Ask:
		for _, i := range unmatched {
			d, ok := s.ask(ctx, f, i)
			if !ok {
				return s.cancelAll(ds), true
			}
			ds[i] = d
		}
		return ds, true
	case rules.Fallback:
		for _, i := range unmatched {
			d, ok := s.fallback(id, i, qs[i])
			if !ok {
				return s.cancelAll(ds), true
			}
			ds[i] = d
		}
		return ds, true
	case rules.CancelForm:
		return s.cancelAll(ds), true
	case rules.Fail:
		s.mu.Lock()
		s.report.Unmatched = true
		s.mu.Unlock()
		return s.cancelAll(ds), true
	default: // passthrough: the person answers in Claude's own menu
		s.log.Emit("handed_over", events.Fields{"tool_use_id": id, "reason": "unmatched question"})
		if s.cfg.AnswerTimeout > 0 {
			s.work.Add(1)
			go func() {
				defer s.work.Done()
				s.passthroughTimeout(ctx, f, ds, unmatched)
			}()
		}
		return nil, false
	}
}

func (s *session) emitDecision(id string, i int, q answer.Question, d rules.Decision) {
	fields := events.Fields{"tool_use_id": id, "question": q.Question, "index": i + 1, "rule": d.Rule, "action": d.Action.String()}
	if len(d.Labels) > 0 {
		fields["labels"] = d.Labels
	}
	if d.Text != "" {
		fields["text"] = d.Text
	}
	s.log.Emit("decision", fields)
}

// ask asks the person for question i, with the answer timeout; on timeout
// the fallback answers.
func (s *session) ask(ctx context.Context, f *form, i int) (rules.Decision, bool) {
	q := f.questions[i]
	actx, cancel := ctx, context.CancelFunc(func() {})
	if s.cfg.AnswerTimeout > 0 {
		actx, cancel = context.WithTimeout(ctx, s.cfg.AnswerTimeout)
	}
	defer cancel()
	d, err := s.cfg.Asker.Ask(actx, q, i+1, len(f.questions))
	switch {
	case err == nil:
		rd := rules.Decision{Decision: d, Rule: "ask"}
		s.emitDecision(f.id, i, q, rd)
		return rd, true
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		s.log.Emit("timeout", events.Fields{"tool_use_id": f.id, "question": q.Question, "index": i + 1,
			"after": s.cfg.AnswerTimeout.String()})
		return s.fallback(f.id, i, q)
	default:
		s.log.Emit("error", events.Fields{"tool_use_id": f.id, "message": "ask: " + err.Error()})
		return rules.Decision{}, false
	}
}

func (s *session) fallback(id string, i int, q answer.Question) (rules.Decision, bool) {
	d, err := s.cfg.Decider.Fallback(q)
	if err != nil {
		s.log.Emit("error", events.Fields{"tool_use_id": id, "question": q.Question, "message": err.Error()})
		return rules.Decision{}, false
	}
	s.emitDecision(id, i, q, d)
	return d, true
}

// passthroughTimeout answers a form left to the person once they have not
// typed for AnswerTimeout: the rules' decisions where they matched, the
// fallback where they did not — if the form is still on the screen.
func (s *session) passthroughTimeout(ctx context.Context, f *form, ds []rules.Decision, unmatched []int) {
	for {
		s.mu.Lock()
		deadline := s.lastInput
		answered := f.answered
		s.mu.Unlock()
		if answered {
			return
		}
		if deadline.Before(f.asked) {
			deadline = f.asked
		}
		deadline = deadline.Add(s.cfg.AnswerTimeout)
		if time.Now().Before(deadline) {
			t := time.NewTimer(time.Until(deadline))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			case <-s.host.Done():
				t.Stop()
				return
			}
			continue
		}
		break
	}
	if fm, err := screen.Recognize(s.host.Screen().Snapshot()); err != nil || fm.Review != nil ||
		len(fm.Disagreements(f.questions[0])) > 0 {
		return // the person answered, cancelled or moved on meanwhile
	}
	s.log.Emit("timeout", events.Fields{"tool_use_id": f.id, "after": s.cfg.AnswerTimeout.String()})
	for _, i := range unmatched {
		d, ok := s.fallback(f.id, i, f.questions[i])
		if !ok {
			ds = s.cancelAll(ds)
			break
		}
		ds[i] = d
	}
	s.start(ctx, f, ds)
}

func (s *session) cancelAll(ds []rules.Decision) []rules.Decision {
	out := make([]rules.Decision, len(ds))
	for i := range ds {
		out[i] = rules.Decision{Decision: answer.Decision{Action: answer.Cancel}, Rule: "policy"}
	}
	return out
}

// answer drives the form and reports how it went.
func (s *session) answer(ctx context.Context, f *form, ds []answer.Decision) {
	defer close(f.done)
	defer func() {
		s.mu.Lock()
		if s.active == f {
			s.active = nil
		}
		s.mu.Unlock()
	}()
	cfg := s.cfg.Flow
	cfg.Screen, cfg.Keys, cfg.Decisions = hostScreen{s.host.Screen(), s.host}, s.keys, ds
	cfg.Questions = f.questions
	cfg.OnKey = func(k askflow.KeyEvent) {
		s.log.Emit("key", events.Fields{"tool_use_id": f.id, "question": k.Question, "key": k.Key,
			"focus_before": k.Before, "focus_after": k.After})
	}
	res, err := askflow.Run(ctx, cfg)
	if err == nil {
		switch res.Outcome {
		case askflow.Submitted:
			s.log.Emit("submitted", events.Fields{"tool_use_id": f.id, "keys": res.Keys})
			s.work.Add(1)
			go func() {
				defer s.work.Done()
				s.awaitRecord(ctx, f, ds)
			}()
		case askflow.Cancelled:
			s.forget(f) // no PostToolUse follows
			s.log.Emit("cancelled", events.Fields{"tool_use_id": f.id, "keys": res.Keys})
			// Esc ends Claude's turn without a Stop hook.
			s.turnInterrupted()
		case askflow.Chatted:
			s.forget(f) // no PostToolUse follows
			s.log.Emit("submitted", events.Fields{"tool_use_id": f.id, "keys": res.Keys, "chat": true})
		}
		return
	}
	s.mu.Lock()
	s.chat = "" // no chat happened
	s.mu.Unlock()
	if errors.Is(err, askflow.ErrInterrupted) {
		// The person took over, or Claude went away: nothing more to do.
		return
	}
	fields := events.Fields{"tool_use_id": f.id, "message": err.Error()}
	var ae *askflow.Error
	if errors.As(err, &ae) {
		fields["step"], fields["reason"], fields["keys"] = ae.Step, ae.Reason, ae.Keys
		fields["screen"] = ae.Last.Text()
		if ae.Step != "decision" {
			failure := fmt.Sprintf("form %s: %s", f.id, ae.Reason)
			if ae.Question > 0 {
				failure = fmt.Sprintf("form %s, question %d: %s: %s", f.id, ae.Question, ae.Step, ae.Reason)
			}
			if path, err := s.writeBundle(f, ds, ae); err != nil {
				fields["bundle_error"] = err.Error()
			} else if path != "" {
				fields["bundle"] = path
				failure += "; bug report: " + path
			}
			s.mu.Lock()
			s.report.Navigation = true
			s.report.Failures = append(s.report.Failures, failure)
			s.mu.Unlock()
		}
	}
	s.log.Emit("error", fields)
	s.mu.Lock()
	f.want = nil // whatever happens now is not our answer
	s.mu.Unlock()
	if s.cfg.Host.Headless {
		// Nobody can take the form: cancelling is the one safe key.
		_ = s.host.SendKeys([]byte("\x1b"))
		s.forget(f)
		s.log.Emit("cancelled", events.Fields{"tool_use_id": f.id, "reason": "navigation failed"})
		s.turnInterrupted()
		return
	}
	s.log.Emit("handed_over", events.Fields{"tool_use_id": f.id, "reason": "navigation failed"})
}

// recordGrace is how long Claude may take to record a submitted form.
const recordGrace = 30 * time.Second

// awaitRecord checks that Claude records a form askflow submitted: when no
// PostToolUse comes in time, the screen was misread (the form, or a page
// of it, still waits). That is reported with a bug report; headless, a form
// still recognised is cancelled, and an unrecognised screen that waits for
// ever ends the run, since nobody can answer it.
func (s *session) awaitRecord(ctx context.Context, f *form, ds []answer.Decision) {
	t := time.NewTimer(recordGrace)
	defer t.Stop()
	select {
	case <-f.posted:
		return
	case <-ctx.Done():
		return
	case <-t.C:
	}
	last := s.host.Screen().Snapshot()
	ae := &askflow.Error{Step: "record", Reason: fmt.Sprintf("submitted, but Claude recorded no answer within %v", recordGrace), Last: last}
	fields := events.Fields{"tool_use_id": f.id, "message": ae.Reason, "step": ae.Step, "screen": last.Text()}
	failure := fmt.Sprintf("form %s: %s", f.id, ae.Reason)
	if path, err := s.writeBundle(f, ds, ae); err == nil && path != "" {
		fields["bundle"] = path
		failure += "; bug report: " + path
	}
	s.mu.Lock()
	s.report.Navigation = true
	s.report.Failures = append(s.report.Failures, failure)
	f.want = nil
	s.mu.Unlock()
	s.log.Emit("error", fields)
	if !s.cfg.Host.Headless {
		return
	}
	if _, err := screen.Recognize(last); err == nil {
		_ = s.host.SendKeys([]byte("\x1b"))
		s.log.Emit("cancelled", events.Fields{"tool_use_id": f.id, "reason": "not recorded"})
		s.turnInterrupted()
		return
	}
	s.log.Emit("error", events.Fields{"message": "ending Claude: a headless run cannot wait on a screen nobody can answer"})
	_ = s.host.Signal(syscall.SIGTERM)
}

// recordLimit bounds the in-memory recording kept for bug reports.
const recordLimit = 16 << 20

// writeBundle writes a bug report for a form askflow could not answer.
func (s *session) writeBundle(f *form, ds []answer.Decision, ae *askflow.Error) (string, error) {
	if s.cfg.Bundles == "" {
		return "", nil
	}
	rep := bundle.Report{
		Time: time.Now(), ToolUseID: f.id, Questions: f.questions,
		Step: ae.Step, Reason: ae.Reason, Keys: ae.Keys, Screen: ae.Last.Text(),
		Size: fmt.Sprintf("%dx%d", ae.Last.Cols, ae.Last.Rows),
	}
	for _, d := range ds {
		rep.Decisions = append(rep.Decisions, d.String())
	}
	return bundle.Write(s.cfg.Bundles, rep, s.rec.Cast())
}

// tee sends what the host records to both taps.
type tee struct {
	a ptyhost.Tap // may be nil
	b ptyhost.Tap
}

func (t tee) Output(p []byte) {
	if t.a != nil {
		t.a.Output(p)
	}
	t.b.Output(p)
}

func (t tee) Input(p []byte) {
	if t.a != nil {
		t.a.Input(p)
	}
	t.b.Input(p)
}

func (t tee) Resize(cols, rows int) {
	if t.a != nil {
		t.a.Resize(cols, rows)
	}
	t.b.Resize(cols, rows)
}

// hostScreen is the emulated screen askflow reads, able to have Claude
// redraw it.
type hostScreen struct {
	screen.Emulator
	h *ptyhost.Host
}

func (s hostScreen) Redraw() error { return s.h.Redraw() }

// verify compares what Claude recorded with what was intended.
func (s *session) verify(p *hook.Payload) {
	s.mu.Lock()
	f := s.forms[p.ToolUseID]
	s.mu.Unlock()
	if f != nil {
		defer s.forget(f)
	}
	if f == nil {
		s.log.Emit("error", events.Fields{"tool_use_id": p.ToolUseID, "message": "PostToolUse for an unknown tool_use_id"})
		return
	}
	select {
	case <-f.posted:
	default:
		close(f.posted)
	}
	// askflow may still be confirming the last key when the hook arrives.
	s.mu.Lock()
	done := f.done
	s.mu.Unlock()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	s.mu.Lock()
	want := f.want
	f.answered = true
	s.mu.Unlock()
	got := p.ToolResponse.Answers
	if want == nil {
		s.log.Emit("submitted", events.Fields{"tool_use_id": p.ToolUseID, "by": "person", "answers": got})
		return
	}
	fields := events.Fields{"tool_use_id": p.ToolUseID, "answers": got}
	if notes := notesOf(p.ToolResponse); len(notes) > 0 {
		fields["notes"] = notes
	}
	if why := differs(want, p.ToolResponse); why == "" {
		s.log.Emit("verified", fields)
		return
	} else {
		fields["reason"] = why
	}
	s.mu.Lock()
	s.report.Mismatch = true
	s.mu.Unlock()
	wantAnswers := map[string]string{}
	for q, e := range want {
		wantAnswers[q] = e.answers[0]
	}
	fields["want"], fields["got"] = wantAnswers, got
	delete(fields, "answers")
	s.log.Emit("mismatch", fields)
}

// differs says how what Claude recorded differs from the intent, or "".
func differs(want map[string]expect, got *hook.ToolResponse) string {
	if len(want) != len(got.Answers) {
		return fmt.Sprintf("%d answers recorded, %d intended", len(got.Answers), len(want))
	}
	for q, e := range want {
		a, ok := got.Answers[q]
		if !ok {
			return fmt.Sprintf("no answer recorded for %q", q)
		}
		if !slices.Contains(e.answers, a) {
			return fmt.Sprintf("%q recorded for %q, %q intended", a, q, e.answers[0])
		}
		if n := got.Annotations[q].Notes; e.preview && n != e.notes {
			return fmt.Sprintf("notes %q recorded for %q, %q intended", n, q, e.notes)
		}
	}
	return ""
}

func notesOf(r *hook.ToolResponse) map[string]string {
	out := map[string]string{}
	for q, a := range r.Annotations {
		if a.Notes != "" {
			out[q] = a.Notes
		}
	}
	return out
}

// stop handles the Stop hook: a pending chat message becomes the next
// turn; otherwise, with --exit-after-turn, Claude is ended.
func (s *session) stop() {
	s.mu.Lock()
	msg := s.chat
	s.chat = ""
	s.mu.Unlock()
	if msg != "" {
		s.work.Add(1)
		go func() {
			defer s.work.Done()
			s.message(msg)
		}()
		return
	}
	s.endTurn()
}

// turnInterrupted is called when a form was cancelled: Claude's turn is
// over, and no Stop hook follows. Claude records the cancel in its
// transcript as it redraws its prompt, so with --exit-after-turn it is ended
// only once its prompt has shown and the screen has been still for a moment
// (a few seconds at most): ended sooner, some versions lose that record.
func (s *session) turnInterrupted() {
	if !s.cfg.ExitAfterTurn {
		return
	}
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		em := s.host.Screen()
		ctx, cancel := context.WithTimeout(s.ctx, idleLimit)
		defer cancel()
		if _, err := em.Wait(ctx, func(sn screen.Snapshot) bool { _, ok := screen.Prompt(sn); return ok }); err == nil {
			for ctx.Err() == nil {
				seq := em.Snapshot().Seq
				qctx, qcancel := context.WithTimeout(ctx, idleQuiet)
				_, err := em.Wait(qctx, func(sn screen.Snapshot) bool { return sn.Seq != seq })
				qcancel()
				if err != nil {
					break // still for idleQuiet
				}
			}
		}
		s.endTurn()
	}()
}

// killGrace is how long Claude has to end after SIGTERM when the caller's
// context ended, before it is killed.
const killGrace = 5 * time.Second

// idleLimit bounds the wait for Claude to settle after a cancel; idleQuiet
// is how long its screen must not change.
const (
	idleLimit = 5 * time.Second
	idleQuiet = 500 * time.Millisecond
)

// endTurn ends Claude when the run should end with the turn.
func (s *session) endTurn() {
	if !s.cfg.ExitAfterTurn {
		return
	}
	s.mu.Lock()
	s.report.Ended = true
	s.mu.Unlock()
	_ = s.host.Signal(syscall.SIGTERM)
}

// message sends the chat message as the next turn.
func (s *session) message(text string) {
	cfg := s.cfg.Flow
	cfg.Screen, cfg.Keys = s.host.Screen(), s.keys
	err := askflow.Message(s.ctx, cfg, text)
	if err != nil {
		fields := events.Fields{"message": "chat message: " + err.Error()}
		var ae *askflow.Error
		if errors.As(err, &ae) {
			fields["screen"] = ae.Last.Text()
			s.mu.Lock()
			s.report.Navigation = true
			s.mu.Unlock()
		}
		s.log.Emit("error", fields)
		s.endTurn()
		return
	}
	s.log.Emit("submitted", events.Fields{"chat_message": text})
}

// takeOver hands the form being answered to the person.
func (s *session) takeOver() {
	s.mu.Lock()
	f := s.active
	if f != nil {
		s.active = nil
		f.want = nil
	}
	s.mu.Unlock()
	if f != nil && f.cancel != nil {
		f.cancel()
		s.log.Emit("handed_over", events.Fields{"tool_use_id": f.id, "reason": "the person typed"})
	}
}

func (s *session) stopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.forms {
		if f.cancel != nil {
			f.cancel()
		}
	}
}

// SelfPath returns the absolute path of the running binary, for the hooks.
func SelfPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find claudewrap's own path: %w", err)
	}
	if strings.Contains(exe, " (deleted)") {
		return "", fmt.Errorf("claudewrap's binary %s was removed", exe)
	}
	return exe, nil
}

// hookGrace is how long a form may show before its PreToolUse arrives.
const hookGrace = 10 * time.Second

// watchForms reports a form that shows on the screen without its
// PreToolUse hook: claudewrap's hooks are not running (the person's
// settings may disable hooks), so nothing can be answered. Headless, the
// form is cancelled rather than left waiting for ever.
func (s *session) watchForms(ctx context.Context) {
	em := s.host.Screen()
	onForm := func(sn screen.Snapshot) bool { _, err := screen.Recognize(sn); return err == nil }
	for {
		if _, err := em.Wait(ctx, onForm); err != nil {
			return
		}
		seen := time.Now()
		hooked := func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return !s.lastPre.IsZero() && seen.Sub(s.lastPre) < time.Minute
		}
		deadline := time.NewTimer(hookGrace)
		tick := time.NewTicker(100 * time.Millisecond)
		for !hooked() {
			select {
			case <-ctx.Done():
				deadline.Stop()
				tick.Stop()
				return
			case <-tick.C:
				continue
			case <-deadline.C:
			}
			break
		}
		deadline.Stop()
		tick.Stop()
		if !hooked() {
			s.log.Emit("error", events.Fields{"message": "a question form is on the screen but no PreToolUse hook arrived: " +
				"claudewrap's hooks are not running (do your settings disable hooks?); nothing can be answered"})
			if s.cfg.Host.Headless {
				s.mu.Lock()
				s.report.Navigation = true
				s.mu.Unlock()
				_ = s.host.SendKeys([]byte("\x1b"))
				s.log.Emit("cancelled", events.Fields{"reason": "no hook"})
				s.turnInterrupted()
			} else {
				s.log.Emit("handed_over", events.Fields{"reason": "no hook"})
			}
		}
		// Wait for this form to go before watching for the next.
		if _, err := em.Wait(ctx, func(sn screen.Snapshot) bool { return !onForm(sn) }); err != nil {
			return
		}
	}
}

// keepFinished bounds how many finished forms' ids are remembered.
const keepFinished = 256

// forget drops a finished form, remembering only its id.
func (s *session) forget(f *form) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.forms[f.id]; !ok {
		return
	}
	delete(s.forms, f.id)
	s.finished[f.id] = true
	s.finishedQ = append(s.finishedQ, f.id)
	if len(s.finishedQ) > keepFinished {
		delete(s.finished, s.finishedQ[0])
		s.finishedQ = s.finishedQ[1:]
	}
}
