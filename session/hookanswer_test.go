package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/rules"
)

// askWaiting has Claude call AskUserQuestion with its PreToolUse hook
// waiting for answers (the hook answer strategy): what the session replies
// goes on replies, and the reply is taken when take says so (false: the
// hook had stopped waiting).
func (c *fakeChild) askWaiting(id string, take bool, replies chan<- []byte, qs ...fakeclaude.Question) {
	input, err := json.Marshal(map[string]any{"questions": fakeclaude.Answers(qs)})
	if err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.forms = append(c.forms, pendingForm{id, qs})
	p := &hook.Payload{HookEventName: hook.PreToolUse, ToolName: hook.ToolName, ToolUseID: id, SessionID: c.session,
		ToolInput: &hook.ToolInput{Questions: fakeclaude.Answers(qs)}, Input: input}
	c.mu.Unlock()
	select {
	case c.msgs <- hook.Message{Payload: p, Reply: func(out []byte) bool { replies <- out; return take }}:
	case <-c.done:
	}
}

// TestHookAnswerNotRecorded: a form answered through the hook that Claude
// never records (its PostToolUse went astray) is reported after the record
// grace, exit 5, and no longer holds the turn's end: the run ends by itself
// at Claude's Stop, Claude not killed for it. Before, the form stayed
// submitted for ever and the Stop with it.
func TestHookAnswerNotRecorded(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless, AnswerVia: AnswerViaHook})
	r.s.recordGrace = 300 * time.Millisecond
	replies := make(chan []byte, 1)
	c.askWaiting("t1", true, replies, database)
	if out := <-replies; !strings.Contains(string(out), `"answers":{"Which database should we use?":"SQLite"}`) {
		t.Fatalf("the hook's reply %s\n%s", out, r)
	}
	c.hook(&hook.Payload{HookEventName: hook.Stop}) // the tool ran; no PostToolUse came
	ev := r.wait("recorded no answer")
	if ev["message"] != "answered through the hook, but Claude recorded no answer within 300ms" {
		t.Errorf("error event %v", ev)
	}
	rep := r.result()
	if !rep.Ended || !rep.Navigation || rep.Mismatch {
		t.Errorf("report %+v, want ended at the turn's end, with a navigation failure\n%s", rep, r)
	}
	if code, _ := rep.Exit(nil); code != ExitNavigation {
		t.Errorf("exit %d, want %d", code, ExitNavigation)
	}
	// One SIGTERM, claudewrap's at the turn's end (--exit-after-turn);
	// none for the form.
	if sigs := c.signals(); len(sigs) > 1 || len(sigs) == 1 && sigs[0] != syscall.SIGTERM {
		t.Errorf("Claude got %v", sigs)
	}
	if strings.Contains(r.log.String(), "ending Claude") || r.has("cancelled") {
		t.Errorf("Claude ended, or a form cancelled, for a form it never drew\n%s", r)
	}
}

// TestHookAnswerLostShows: when Claude draws a form answered through the
// hook (the answer never reached it), a headless run cancels it after the
// record grace rather than waiting for ever.
func TestHookAnswerLostShows(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Fail, Host: hostHeadless, AnswerVia: AnswerViaHook})
	r.s.recordGrace = 300 * time.Millisecond
	replies := make(chan []byte, 1)
	c.askWaiting("t1", true, replies, database)
	<-replies
	c.Ask([]fakeclaude.Question{database})
	ev := r.wait(`"cancelled"`)
	deadline := time.Now().Add(5 * time.Second)
	for c.State() != fakeclaude.Cancelled && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the fake takes the Esc on its own goroutine
	}
	if ev["reason"] != "not recorded" || c.State() != fakeclaude.Cancelled {
		t.Errorf("cancelled %v; Claude's form %v\n%s", ev, c.State(), r)
	}
	if rep := r.end(); !rep.Navigation {
		t.Errorf("report %+v, want a navigation failure\n%s", rep, r)
	}
}

// slowDecider decides after release is closed: the person at the prompt,
// or an exec program, taking long.
type slowDecider struct {
	decider
	release chan struct{}
}

func (d slowDecider) Decide(q answer.Question) rules.Decision {
	<-d.release
	return d.decider.Decide(q)
}

// TestHookAnswerLate: a decision that comes after the hook stopped waiting
// is driven on the screen, which Claude drew when the hook let it go; that
// form is not taken for one whose hook never ran (which a headless run
// cancels, exit 5), though it showed long after its PreToolUse.
func TestHookAnswerLate(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	release := make(chan struct{})
	r := startRun(t, c, Config{Decider: slowDecider{decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}}, release},
		Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless, AnswerVia: AnswerViaHook})
	r.s.hookGrace = 200 * time.Millisecond
	replies := make(chan []byte, 2)
	c.askWaiting("t1", false, replies, database)
	r.wait(`"question"`)
	// The hook waited its hookWait out: Claude draws the form then.
	r.s.loop.do(func() {
		r.s.lastPre = r.s.lastPre.Add(-hookWait)
	})
	c.Ask([]fakeclaude.Question{database})
	// The person takes longer than the session waits for a form's hook.
	held := time.NewTimer(4 * r.s.hookGrace)
	<-held.C
	close(release)
	r.wait(`"verified"`)
	rep := r.result()
	if rep.Navigation || strings.Contains(r.log.String(), "no PreToolUse hook arrived") {
		t.Errorf("the form taken for one whose hook never ran: report %+v\n%s", rep, r)
	}
	if got := c.Submitted(); got[database.Question] != "SQLite" {
		t.Errorf("Claude recorded %v", got)
	}
}

// TestOtherSessionHookLetGo: a waiting hook of another session than this
// run's is let go at once, not left to wait its time out.
func TestOtherSessionHookLetGo(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Fail, Host: hostHeadless, AnswerVia: AnswerViaHook})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup"})
	r.wait(`"session"`)
	c.session = "other"
	replies := make(chan []byte, 1)
	c.askWaiting("forged", true, replies, database)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case out := <-replies:
		if len(out) != 0 {
			t.Errorf("another session's question answered: %s", out)
		}
	case <-ctx.Done():
		t.Fatalf("another session's waiting hook was never let go\n%s", r)
	}
	r.end()
}

// secondHeld decides the first question at once and holds every later one
// until release is closed.
type secondHeld struct {
	decider
	calls   chan struct{}
	release chan struct{}
}

func (d secondHeld) Decide(q answer.Question) rules.Decision {
	select {
	case d.calls <- struct{}{}:
	default:
		<-d.release
	}
	return d.decider.Decide(q)
}

// TestHookAnswerNoTwin: a form answered through the hook is never taken
// for the twin that Claude recorded: Claude records it under its own id.
// A form alike, asked with it and recorded while it is still decided (the
// person answered it), is the person's; the first is verified on its own
// record.
func TestHookAnswerNoTwin(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	d := secondHeld{decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}}, make(chan struct{}, 1), make(chan struct{})}
	r := startRun(t, c, Config{Decider: d, Policy: rules.Fail, Host: hostHeadless, AnswerVia: AnswerViaHook})
	replies := make(chan []byte, 2)
	c.askWaiting("t1", true, replies, database)
	<-replies
	r.wait(`"submitted"`)
	c.askWaiting("t2", false, replies, database)
	r.log.WaitForN(t, `"question"`, 2, 10*time.Second)
	post := func(id, label string) {
		c.hook(&hook.Payload{HookEventName: hook.PostToolUse, ToolName: hook.ToolName, ToolUseID: id,
			ToolInput:    &hook.ToolInput{Questions: fakeclaude.Answers([]fakeclaude.Question{database})},
			ToolResponse: &hook.ToolResponse{Answers: map[string]string{database.Question: label}}})
	}
	post("t2", "MongoDB")
	r.wait(`"by":"person"`)
	post("t1", "SQLite")
	ev := r.wait(`"verified"`)
	if ev["tool_use_id"] != "t1" || ev["driven_as"] != nil || r.has("mismatch") {
		t.Errorf("verified %v\n%s", ev, r)
	}
	close(d.release) // t2's decision comes: recorded already, nothing is pressed
	r.end()
}

// TestFormHookRefused: a form shows whose PreToolUse claudewrap refused
// (an oversized hook message): the run says that refusal, not that hooks
// are off, and cancels the form (headless, exit 5).
func TestFormHookRefused(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startTuned(t, c, Config{Policy: rules.Fail, Host: hostHeadless}, func(s *session) { s.hookGrace = 200 * time.Millisecond })
	c.msgs <- hook.Message{Err: fmt.Errorf("hook message over %d bytes refused", hook.MaxMessage)}
	r.wait(`"error"`)
	c.Ask([]fakeclaude.Question{database})
	r.wait(`"cancelled"`)
	c.Kill()
	rep := r.result()
	why := rep.Why[ExitNavigation]
	if !rep.Navigation || !strings.Contains(why, "claudewrap refused a hook message: hook message over") {
		t.Errorf("report %+v: want exit 5 naming the refused message\n%s", rep, r)
	}
}
