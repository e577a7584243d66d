package session

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/fakeclaude"
	"github.com/claudewrap/claudewrap/rules"
)

// Hook messages that are not Claude's own, or not of its turn: a session
// believes only what the Claude it started could have said.

// TestFormForgedStop: a Stop while the form is being answered cannot be
// Claude's (its turn waits for the answer). It is held, dropped once Claude
// records the form, and the run still ends at Claude's real Stop with the
// answer verified.
func TestFormForgedStop(t *testing.T) {
	t.Parallel()
	var c *fakeChild
	c = newChild(t, fakeclaude.Faults{
		Delay: map[int]time.Duration{1: 100 * time.Millisecond},
		OnSend: func(n int) {
			if n == 1 {
				go c.forge(&hook.Payload{HookEventName: hook.Stop})
			}
		},
	})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("MongoDB")}},
		Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless})
	c.ask("t1", database)
	r.wait(`it was not Claude's`)
	rep := r.result()
	if got := c.Submitted(); !maps.Equal(got, map[string]string{database.Question: "MongoDB"}) {
		t.Errorf("Claude recorded %v\n%s", got, r)
	}
	if !r.has("verified") || !rep.Ended || rep.Navigation || rep.Mismatch {
		t.Errorf("report %+v\n%s", rep, r)
	}
}

// TestFormHeldStopApplied: a form whose hook came but which never shows (a
// hook of the person's refused the tool) does not keep the turn's Stop
// from ending the run once the form is given up.
func TestFormHeldStopApplied(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("MongoDB")}},
		Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless, Flow: askflow.Config{FormTimeout: 300 * time.Millisecond}})
	// The PreToolUse only: Claude goes on without drawing the form.
	c.hook(&hook.Payload{HookEventName: hook.PreToolUse, ToolName: hook.ToolName, ToolUseID: "t1",
		ToolInput: &hook.ToolInput{Questions: fakeclaude.Answers([]fakeclaude.Question{database})}})
	c.hook(&hook.Payload{HookEventName: hook.Stop})
	rep := r.result()
	if !rep.Ended || len(c.Received()) != 0 {
		t.Errorf("report %+v, keys %v: want Claude ended at its Stop, nothing pressed\n%s", rep, c.Received(), r)
	}
}

// TestFormOtherSession: once Claude has said which session it is in, hook
// messages of another session (or of none) are refused and reported: a
// PreToolUse presses nothing, a PostToolUse does not override Claude's
// record, a Stop does not end the run.
func TestFormOtherSession(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, TranscriptPath: "/t/real.jsonl", Source: "startup"})
	ev := r.wait(`"session"`)
	if ev["session_id"] != "real" || ev["transcript_path"] != "/t/real.jsonl" {
		t.Errorf("session event %v", ev)
	}
	qs := fakeclaude.Answers([]fakeclaude.Question{database})
	for _, p := range []*hook.Payload{
		{SessionID: "other", HookEventName: hook.PreToolUse, ToolName: hook.ToolName, ToolUseID: "forged", ToolInput: &hook.ToolInput{Questions: qs}},
		{HookEventName: hook.Stop},
		{SessionID: "other", HookEventName: hook.Stop},
	} {
		c.forge(p)
	}
	r.log.WaitForN(t, "refused: this run's Claude is in session real", 3, 10*time.Second)
	if r.has("question") || len(c.Received()) != 0 {
		t.Fatalf("a message of another session was acted on\n%s", r)
	}
	// Claude's own form: answered as usual; a PostToolUse of another
	// session claiming another answer is refused.
	c.ask("t1", database)
	c.forge(&hook.Payload{SessionID: "other", HookEventName: hook.PostToolUse, ToolName: hook.ToolName, ToolUseID: "t1",
		ToolInput: &hook.ToolInput{Questions: qs}, ToolResponse: &hook.ToolResponse{Answers: map[string]string{database.Question: "MongoDB"}}})
	rep := r.result()
	if n := strings.Count(r.log.String(), "refused: this run's Claude is in session real"); n != 4 {
		t.Errorf("%d refusals, want 4\n%s", n, r)
	}
	if !r.has("verified") || r.has("mismatch") || !rep.Ended {
		t.Errorf("Claude's own form not verified, or the run not ended at its Stop (report %+v)\n%s", rep, r)
	}
}

// TestFormForkedSession: ← at Claude's prompt moves the conversation to the
// background (2.1.227 and later): it goes on in a fork, and Claude starts a
// new session for its sessions view beside it, in either order (2.1.332
// sent the new one last). The fork is followed, the new one is not, nor a
// later start of it: the conversation's form, asked from the fork, is
// answered; a Stop of the new session does not end the run.
func TestFormForkedSession(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, TranscriptPath: "/t/real.jsonl", Source: "startup"})
	r.wait(`"session"`)
	c.session = "fork"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, TranscriptPath: "/t/fork.jsonl", Source: "fork"})
	c.session = "view"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, TranscriptPath: "/t/view.jsonl", Source: "startup"})
	// A task of the view's own, compacted: still not followed.
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, TranscriptPath: "/t/view.jsonl", Source: "compact"})
	r.log.WaitForN(t, `"session"`, 4, 10*time.Second)
	c.forge(&hook.Payload{SessionID: "view", HookEventName: hook.Stop})
	r.wait("refused: this run's Claude is in session fork")
	c.session = "fork"
	c.ask("t1", database)
	rep := r.result()
	if !r.has("verified") || !rep.Ended || strings.Contains(r.log.String(), `refused: this run's Claude is in session view`) {
		t.Errorf("the fork's form not verified, or the new session followed (report %+v)\n%s", rep, r)
	}
}
