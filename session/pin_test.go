package session

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
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

// TestFormHeldStopAfterExit: a Stop held for a form still open when Claude
// exits is not applied by a move that comes after (the person's key, an
// answer from elsewhere withdrawn): Run waits for its work then, and none
// may start.
func TestFormHeldStopAfterExit(t *testing.T) {
	s := newSession(Config{Host: hostHeadless})
	f := scriptForm(s, "t1", queued, func() {})
	s.stopDeferred, s.stopDeferredPath, s.workDone = true, "transcript.jsonl", true
	if !s.move(f, handedOver, queued) {
		t.Fatal("the form did not move")
	}
	if !s.stopDeferred {
		t.Error("the held Stop was applied after Claude exited")
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
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup"})
	ev := r.wait(`"session"`)
	if ev["session_id"] != "real" || ev["transcript_path"] != c.transcript {
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
// sent the new one last). The fork is followed once its first message
// comes and its transcript confirms it; the new one is not, nor a later
// start of it: the conversation's form, asked from the fork, is answered;
// a Stop of the new session does not end the run.
func TestFormForkedSession(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup"})
	r.wait(`"session"`)
	// Claude writes the fork's transcript beside the conversation's.
	fork := besideTranscript(t, c, "fork")
	c.mu.Lock()
	c.session, c.transcript = "fork", fork
	c.mu.Unlock()
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "fork"})
	c.session = "view"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, TranscriptPath: "/t/view.jsonl", Source: "startup"})
	// A task of the view's own, compacted: still not followed.
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, TranscriptPath: "/t/view.jsonl", Source: "compact"})
	r.log.WaitForN(t, `"session"`, 4, 10*time.Second)
	c.forge(&hook.Payload{SessionID: "view", HookEventName: hook.Stop})
	r.wait("refused: this run's Claude is in session real")
	c.session = "fork"
	c.ask("t1", database)
	rep := r.result()
	if !r.has("verified") || !rep.Ended || strings.Contains(r.log.String(), `refused: this run's Claude is in session view`) ||
		!strings.Contains(r.log.String(), `"confirmed":true,"event":"session","session_id":"fork"`) {
		t.Errorf("the fork's form not verified, or the new session followed (report %+v)\n%s", rep, r)
	}
}

// besideTranscript writes the start of session id's transcript beside c's,
// as Claude Code does for a new session of the same folder, and returns
// its path.
func besideTranscript(t *testing.T, c *fakeChild, id string) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(c.transcript), id+".jsonl")
	if err := os.WriteFile(p, []byte(`{"type":"user","uuid":"u1","sessionId":"`+id+`","message":{"role":"user","content":"hello"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFormForgedSessionStart: a SessionStart naming a new session, sent by
// a process of Claude's with no transcript of Claude's behind it, does not
// move the pin: Claude's own form, of the session it is in, is still
// answered and the run ends at its Stop; a message of the forged session
// is refused. A /clear that Claude's transcript confirms is followed.
func TestFormForgedSessionStart(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite"), deploy.Question: sel("A VPS")}},
		Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup"})
	r.wait(`"session"`)
	forged := filepath.Join(filepath.Dir(c.transcript), "evil.jsonl")
	c.forge(&hook.Payload{SessionID: "evil", TranscriptPath: forged, HookEventName: hook.SessionStart, Source: "clear"})
	c.forge(&hook.Payload{SessionID: "evil", TranscriptPath: c.transcript, HookEventName: hook.SessionStart, Source: "compact"})
	c.forge(&hook.Payload{SessionID: "evil", TranscriptPath: forged, HookEventName: hook.Stop})
	r.wait(`does not show it in evil`)
	// The pinned session's transcript cannot be moved either.
	c.forge(&hook.Payload{SessionID: "real", TranscriptPath: forged, HookEventName: hook.SessionStart, Source: "compact"})
	r.wait(`not followed`)
	c.mu.Lock()
	c.noStop = true // the person clears the conversation before the turn ends
	c.mu.Unlock()
	c.ask("t1", database)
	r.wait(`"verified"`)

	// Claude's own /clear: its new transcript names the new session.
	c.mu.Lock()
	c.noStop = false
	c.session, c.transcript = "next", besideTranscript(t, c, "next")
	c.mu.Unlock()
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "clear"})
	c.ask("t2", deploy)
	rep := r.result()
	if strings.Contains(r.log.String(), `refused: this run's Claude is in session next`) {
		t.Errorf("a session followed before was shut out\n%s", r)
	}
	if !strings.Contains(r.log.String(), `"confirmed":true,"event":"session","session_id":"next"`) ||
		strings.Count(r.log.String(), `"event":"verified"`) != 2 || !rep.Ended {
		t.Errorf("want both forms verified, the cleared session followed once confirmed, the run ended at its Stop (report %+v)\n%s", rep, r)
	}
}

// TestFormStopWhileWorking: a Stop sent while Claude's transcript shows it
// still working (a tool of its running: the command that sent it) does not
// end the turn: reported and ignored. Claude's own Stop ends the run.
func TestFormStopWhileWorking(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup"})
	r.wait(`"session"`)
	c.mu.Lock()
	c.record(&hook.Payload{HookEventName: hook.PreToolUse, ToolName: "Bash", ToolUseID: "toolu_bash"})
	c.mu.Unlock()
	c.forge(&hook.Payload{SessionID: "real", TranscriptPath: c.transcript, HookEventName: hook.Stop})
	r.wait(`shows it still working: its last message assistant tool_use calling a tool`)
	if r.has("turn_end") {
		t.Fatalf("a Stop while Claude works ended the turn\n%s", r)
	}
	c.hook(&hook.Payload{HookEventName: hook.PostToolUse, ToolName: "Bash", ToolUseID: "toolu_bash"})
	c.hook(&hook.Payload{HookEventName: hook.Stop})
	rep := r.result()
	if !rep.Ended || strings.Count(r.log.String(), `"event":"turn_end"`) != 1 {
		t.Errorf("report %+v\n%s", rep, r)
	}
}

// TestSecondStop: a Stop for a turn whose Stop already came is ignored,
// once no later turn's end has shown in the transcript.
func TestSecondStop(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Policy: rules.Fail, Host: hostHeadless})
	c.hook(&hook.Payload{HookEventName: hook.Stop})
	r.wait(`"turn_end"`)
	c.forge(&hook.Payload{TranscriptPath: c.transcript, HookEventName: hook.Stop})
	r.wait(`a second Stop for a turn already over`)
	if n := strings.Count(r.log.String(), `"event":"turn_end"`); n != 1 {
		t.Errorf("%d turn ends\n%s", n, r)
	}
}

// promptAfterForm is a headless run that ends with its turn, whose
// Claude has answered a form and waits at its prompt; no Stop came yet.
func promptAfterForm(t *testing.T) (*fakeChild, *run) {
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Fail, ExitAfterTurn: true, Host: hostHeadless})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup"})
	r.wait(`"session"`)
	c.mu.Lock()
	c.noStop = true
	c.mu.Unlock()
	c.ask("t1", database)
	r.wait(`"verified"`)
	return c, r
}

// TestStopTranscriptLags: Claude's Stop comes, but its transcript has not
// caught up with the turn's end (still its question's tool_use): Claude's
// screen shows it waiting at its prompt, so the Stop is taken, and its
// turn_end says so; a lagging transcript is no error.
func TestStopTranscriptLags(t *testing.T) {
	t.Parallel()
	c, r := promptAfterForm(t)
	c.mu.Lock()
	c.lagging = true
	c.mu.Unlock()
	c.hook(&hook.Payload{HookEventName: hook.Stop})
	rep := r.result()
	if !rep.Ended || !r.has("turn_end") || !strings.Contains(r.log.String(), `"confirmed_by":"screen"`) ||
		!strings.Contains(r.log.String(), "its screen shows it waiting at its prompt: the Stop is taken") || r.has("error") {
		t.Errorf("report %+v\n%s", rep, r)
	}
}

// TestStopFailureTranscriptLags: Claude's StopFailure comes (not logged
// in), but its transcript has not caught up with the error: Claude's
// screen shows it waiting at its prompt, so the turn's end is said with
// the words its hook carried, and a headless run ends with them.
func TestStopFailureTranscriptLags(t *testing.T) {
	t.Parallel()
	c, r := promptAfterForm(t)
	c.hook(&hook.Payload{HookEventName: hook.StopFailure, Error: "authentication_failed",
		LastAssistantMessage: "Not logged in · Please run /login"})
	rep := r.result()
	if !strings.Contains(rep.TurnFailed, "Not logged in · Please run /login (authentication_failed)") ||
		!strings.Contains(r.log.String(), `"confirmed_by":"screen"`) || r.has("error") {
		t.Errorf("report %+v\n%s", rep, r)
	}
}

// TestStopFailureAfterTurn: a StopFailure that comes once Claude's turn
// ended well and was applied (a process of Claude's can send one) is not
// taken from Claude's screen, which shows it waiting at its prompt.
func TestStopFailureAfterTurn(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Fail, Host: hostHeadless})
	c.session = "real"
	c.hook(&hook.Payload{HookEventName: hook.SessionStart, Source: "startup"})
	r.wait(`"session"`)
	c.ask("t1", database) // answered, then Claude's Stop
	r.wait(`"turn_end"`)
	c.forge(&hook.Payload{TranscriptPath: c.transcript, SessionID: c.session, HookEventName: hook.StopFailure,
		Error: "authentication_failed", LastAssistantMessage: "Not logged in · Please run /login"})
	r.wait(`a StopFailure (authentication_failed) that Claude's transcript does not confirm`)
	if n := strings.Count(r.log.String(), `"event":"turn_end"`); n != 1 {
		t.Errorf("%d turn ends\n%s", n, r)
	}
}
