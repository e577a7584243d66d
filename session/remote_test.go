package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/vt"
)

// hostTerminal is a run on the person's terminal (passthrough).
var hostTerminal = ptyhost.Config{Cols: 100, Rows: 40}

// personRun is a run on the person's terminal that hands every form to
// them: what an answer from elsewhere answers.
func personRun(t *testing.T) (*fakeChild, *run) {
	t.Helper()
	c := newChild(t, fakeclaude.Faults{})
	return c, startRun(t, c, Config{Decider: decider{}, Policy: rules.Passthrough, Host: hostTerminal})
}

// leaves waits until f is no longer in state st.
func (r *run) leaves(f *form, st state) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.s.stateOf(f) == st {
		if time.Now().After(deadline) {
			r.t.Fatalf("form %s still %s after 10s\n%s", f.ID(), st, r)
		}
		time.Sleep(time.Millisecond)
	}
}

func (r *run) form(id string) *form {
	var f *form
	r.s.loop.do(func() { f = r.s.forms[id] })
	return f
}

// TestRemoteTwoAnswers: of two answers from elsewhere to one form, the
// first wins and hears Claude's record; the second is told at once that it
// lost. Before, the second took the first's place as the one waiting, and
// the first waited out its two minutes though Claude had recorded it.
func TestRemoteTwoAnswers(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.ask("t1", database)
	r.wait(`"handed_over"`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := make(chan remote.Outcome, 1)
	go func() {
		first <- remoteHandler{r.s}.Answer(ctx, "t1", remote.FromAnswer, []answer.Decision{sel("PostgreSQL")})
	}()
	r.leaves(r.form("t1"), handedOver)
	if o := (remoteHandler{r.s}).Answer(ctx, "t1", remote.FromAnswer, []answer.Decision{sel("SQLite")}); o.Result != "taken" {
		t.Errorf("the second answer: %+v, want taken", o)
	}
	if o := <-first; o.Result != "verified" || o.Recorded[database.Question] != "PostgreSQL" {
		t.Errorf("the first answer: %+v, want verified PostgreSQL\n%s", o, r)
	}
	r.end()
}

// TestRemoteDroppedNotOK: an answer from elsewhere queued behind another
// form, dropped when that form's cancel ended Claude's turn, is reported
// failed, never "cancelled" (which a sender reads as done as asked).
func TestRemoteDroppedNotOK(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{features}})
	r.log.WaitForN(t, `"handed_over"`, 2, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	second := make(chan remote.Outcome, 1)
	go func() {
		second <- remoteHandler{r.s}.Answer(ctx, "t2", remote.FromAnswer, []answer.Decision{sel("Auth")})
	}()
	r.leaves(r.form("t2"), handedOver)
	if o := (remoteHandler{r.s}).Answer(ctx, "t1", remote.FromAnswer, []answer.Decision{{Action: answer.Cancel}}); o.Result != "cancelled" || !o.OK() {
		t.Errorf("t1's cancel: %+v, want cancelled", o)
	}
	o := <-second
	if o.OK() || o.Result != "failed" || !strings.Contains(o.Message, "cancelled before the answer was recorded") {
		t.Errorf("t2's Auth, dropped with the turn: %+v, want failed\n%s", o, r)
	}
	r.end()
}

// TestRemoteClaudeExits: when Claude exits while an answer from elsewhere
// waits its turn, the answer is told at once, and the run ends without
// waiting for it. Before, both waited out the answer's two minutes.
func TestRemoteClaudeExits(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{features}})
	r.log.WaitForN(t, `"handed_over"`, 2, 10*time.Second)
	got := make(chan remote.Outcome, 1)
	go func() {
		got <- remoteHandler{r.s}.Answer(context.Background(), "t2", remote.FromAnswer, []answer.Decision{sel("Auth")})
	}()
	r.leaves(r.form("t2"), handedOver)
	r.end()
	select {
	case o := <-got:
		if o.Result != "failed" || o.Message != "Claude exited before it recorded the answer" {
			t.Errorf("outcome %+v", o)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the answer still waits 10s after Claude exited\n%s", r)
	}
}

// TestHandoverToldToEarlierWaiters: a handover is said just after the form
// moved; an answer from elsewhere that began to wait since (the form was
// the person's again) does not hear it as its own outcome, while one
// waiting before it does.
func TestHandoverToldToEarlierWaiters(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.ask("t1", database)
	r.wait(`"handed_over"`)
	f := r.form("t1")
	before := r.s.await("t1", f, false)
	defer r.s.unawait("t1", before)
	r.s.loop.do(func() { r.s.loop.handed(f) }) // handed over again, as a failed drive does
	after := r.s.await("t1", f, false)         // in the moment before the handover is said
	defer r.s.unawait("t1", after)
	r.s.say("handed_over", events.Fields{"tool_use_id": "t1", "reason": "navigation failed"})
	r.s.loop.sync() // the conductor has told the waiters
	if o := before.last("none"); o.Result != "taken" || !strings.Contains(o.Message, "navigation failed") {
		t.Errorf("the answer waiting before: %+v, want taken: navigation failed", o)
	}
	if o := after.last("none"); o.Message != "none" {
		t.Errorf("the answer waiting since heard %+v", o)
	}
	r.end()
}

// TestRemoteWithdrawnAtDeadline: an answer from elsewhere still waiting its
// turn when its wait runs out is withdrawn (the form is the person's
// again), and its sender told it failed: it is never pressed later.
func TestRemoteWithdrawnAtDeadline(t *testing.T) {
	t.Parallel()
	c, r := personRun(t)
	c.askTogether(pendingForm{"t1", []fakeclaude.Question{database}}, pendingForm{"t2", []fakeclaude.Question{features}})
	r.log.WaitForN(t, `"handed_over"`, 2, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	o := remoteHandler{r.s}.Answer(ctx, "t2", remote.FromAnswer, []answer.Decision{sel("Auth")})
	if o.Result != "failed" || !strings.Contains(o.Message, "withdrawn") {
		t.Errorf("outcome %+v, want failed: withdrawn", o)
	}
	if st := r.s.stateOf(r.form("t2")); st != handedOver {
		t.Errorf("t2 is %s, want handed over", st)
	}
	// The person answers t1 on the screen; t2 then shows and is theirs.
	r.s.input([]byte("1"))
	if err := c.SendKeys([]byte("1")); err != nil {
		t.Fatal(err)
	}
	r.wait(`"by":"person"`)
	if strings.Contains(r.log.String(), `"event":"key"`) {
		t.Errorf("a key pressed for the withdrawn answer\n%s", r)
	}
	r.end()
}

// TestRemoteSecondWhilePromptGoes: an answer from elsewhere sent while the
// prompt is going away, after another answer from elsewhere stopped it,
// is told it lost, never the first one's outcome as its own.
func TestRemoteSecondWhilePromptGoes(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	stopped := make(chan struct{})
	r := startRun(t, c, Config{Decider: decider{}, Policy: rules.Ask, Host: hostHeadless,
		Asker: asker(func(ctx context.Context, q answer.Question) (answer.Decision, error) {
			<-ctx.Done()
			<-stopped // a prompt slow to go
			return answer.Decision{}, ctx.Err()
		})})
	c.ask("t1", database)
	r.wait(`"question"`)
	asking := func() bool {
		asking := false
		r.s.loop.do(func() { asking = r.s.forms["t1"] != nil && r.s.forms["t1"].asking })
		return asking
	}
	deadline := time.Now().Add(10 * time.Second)
	for !asking() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := make(chan remote.Outcome, 1)
	go func() {
		first <- remoteHandler{r.s}.Answer(ctx, "t1", remote.FromAnswer, []answer.Decision{sel("SQLite")})
	}()
	r.log.WaitFor(t, `"rule":"remote"`, 10*time.Second)
	second := make(chan remote.Outcome, 1)
	go func() {
		second <- remoteHandler{r.s}.Answer(ctx, "t1", remote.FromAnswer, []answer.Decision{sel("MongoDB")})
	}()
	var o2 remote.Outcome
	select {
	case o2 = <-second:
	case <-time.After(5 * time.Second): // it would hear only what the first's answer comes to
	}
	close(stopped)
	if o := <-first; o.Result != "verified" || o.Recorded[database.Question] != "SQLite" {
		t.Errorf("the first answer: %+v\n%s", o, r)
	}
	if o2.Result == "" {
		o2 = <-second
	}
	if o2.Result != "taken" {
		t.Errorf("the second answer: %+v, want taken\n%s", o2, r)
	}
	r.end()
}

// TestRemoteFrom: an answer from elsewhere is named by its sender, in its
// decisions and, when it stops claudewrap's prompt, in what the prompt is
// told, whether the form was the person's or the prompt's.
func TestRemoteFrom(t *testing.T) {
	t.Parallel()
	const from = "claudewrap serve (page) from 192.0.2.7"
	for _, prompt := range []bool{false, true} {
		t.Run(fmt.Sprintf("prompt %t", prompt), func(t *testing.T) {
			t.Parallel()
			c := newChild(t, fakeclaude.Faults{})
			cfg := Config{Decider: decider{}, Policy: rules.Passthrough, Host: hostTerminal}
			cause := make(chan error, 1)
			if prompt {
				cfg.Policy, cfg.Host = rules.Ask, hostHeadless
				cfg.Asker = asker(func(ctx context.Context, q answer.Question) (answer.Decision, error) {
					<-ctx.Done()
					cause <- context.Cause(ctx)
					return answer.Decision{}, ctx.Err()
				})
			}
			r := startRun(t, c, cfg)
			c.ask("t1", database)
			if prompt {
				r.wait(`"question"`)
				deadline := time.Now().Add(10 * time.Second)
				for len(remoteHandler{r.s}.Pending()) == 0 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
			} else {
				r.wait(`"handed_over"`)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if o := (remoteHandler{r.s}).Answer(ctx, "t1", from, []answer.Decision{sel("SQLite")}); o.Result != "verified" {
				t.Fatalf("outcome %+v\n%s", o, r)
			}
			if !strings.Contains(r.log.String(), `"from":"`+from+`"`) {
				t.Errorf("no decision names %q\n%s", from, r)
			}
			if prompt {
				err := <-cause
				if !errors.Is(err, ErrAnsweredElsewhere) || err.Error() != "answered from elsewhere ("+from+")" {
					t.Errorf("the prompt was stopped with %v", err)
				}
			}
			r.end()
		})
	}
}

// layout is a question drawn with previews: notes go with its options.
var layout = fakeclaude.Question{Header: "Layout", Question: "Which layout should the dashboard use?", Options: []fakeclaude.Option{
	{Label: "Sidebar", Desc: "Navigation on the left", Preview: "| nav | main |"},
	{Label: "Top bar", Desc: "Navigation on top", Preview: "| nav |\n| main |"},
}}

// TestRemoteRefused: an answer from elsewhere that the form cannot take,
// or whose text the screen cannot show as typed (a skin tone, invalid
// UTF-8, a zero-width joiner), is refused with the reason, on one line,
// before the form is taken: no key is sent, the form still waits, and a
// later answer that can be given answers it. A cancel given for one
// question of two is refused too: a cancel ends the whole form.
func TestRemoteRefused(t *testing.T) {
	t.Parallel()
	notes := sel("Top bar")
	notes.Notes = "keep it 👍🏽"
	typed := func(s string) answer.Decision { return answer.Decision{Action: answer.Type, Text: s} }
	one := func(d answer.Decision) []answer.Decision { return []answer.Decision{d} }
	for _, tc := range []struct {
		name string
		qs   []fakeclaude.Question
		bad  []answer.Decision
		why  string // in the reason given
		good []answer.Decision
		want string // what Claude records for good's first answer
	}{
		{"type, a skin tone", []fakeclaude.Question{database}, one(typed("ok 👍🏽")), "a skin tone", one(sel("SQLite")), "SQLite"},
		{"type, invalid UTF-8", []fakeclaude.Question{database}, one(typed("ok \xff")), "not valid UTF-8", one(typed("ok 👍")), "ok 👍"},
		{"type, U+FFFD", []fakeclaude.Question{database}, one(typed("ok \ufffd")), "replacement character", one(sel("MongoDB")), "MongoDB"},
		{"chat, an emoji joined by ZWJ", []fakeclaude.Question{database}, one(answer.Decision{Action: answer.Chat, Text: "ask the 👩\u200d🚀"}),
			"zero-width joiner", one(sel("SQLite")), "SQLite"},
		{"notes, a skin tone", []fakeclaude.Question{layout}, one(notes), "a skin tone", one(sel("Sidebar")), "Sidebar"},
		{"a label not offered", []fakeclaude.Question{database}, one(sel("Oracle")), `"Oracle" is not offered`, one(sel("SQLite")), "SQLite"},
		{"two labels, single-select", []fakeclaude.Question{database}, one(sel("SQLite", "MongoDB")), "single-select", one(sel("SQLite")), "SQLite"},
		{"notes without previews", []fakeclaude.Question{database}, one(answer.Decision{Action: answer.Select, Labels: []string{"SQLite"}, Notes: "why"}),
			"previews", one(sel("SQLite")), "SQLite"},
		{"typed, multi-select", []fakeclaude.Question{features}, one(typed("all")), "multi-select", one(sel("Auth", "API")), "Auth, API"},
		{"two answers, one question", []fakeclaude.Question{database}, []answer.Decision{sel("SQLite"), sel("SQLite")}, "asks 1 question; 2 answers",
			one(sel("SQLite")), "SQLite"},
		{"cancel for one question of two", []fakeclaude.Question{database, deploy}, []answer.Decision{sel("SQLite"), {Action: answer.Cancel}},
			"cancel ends the whole form", []answer.Decision{sel("SQLite"), sel("A VPS")}, "SQLite"},
	} {
		for _, headless := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, headless %t", tc.name, headless), func(t *testing.T) {
				t.Parallel()
				c := newChild(t, fakeclaude.Faults{})
				cfg := Config{Decider: decider{}, Policy: rules.Passthrough, Host: hostTerminal}
				if headless {
					cfg.Policy, cfg.Host = rules.Wait, hostHeadless
				}
				r := startRun(t, c, cfg)
				c.ask("t1", tc.qs...)
				r.wait(`"handed_over"`)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				o := remoteHandler{r.s}.Answer(ctx, "t1", remote.FromAnswer, tc.bad)
				if o.Result != "refused" || !strings.Contains(o.Message, tc.why) || strings.Contains(o.Message, "\n") {
					t.Errorf("the answer %v: %+v, want refused, one line saying %q\n%s", tc.bad, o, tc.why, r)
				}
				c.Settle()
				if got := c.Received(); len(got) > 0 || r.has("decision") || r.has("cancelled") || r.has("error") || len(remoteHandler{r.s}.Pending()) != 1 {
					t.Errorf("after the refused answer: keys %v, the form pending %d times\n%s", got, len(remoteHandler{r.s}.Pending()), r)
				}
				o = remoteHandler{r.s}.Answer(ctx, "t1", remote.FromAnswer, tc.good)
				if o.Result != "verified" || o.Recorded[tc.qs[0].Question] != tc.want {
					t.Errorf("the answer after it: %+v, want verified %q\n%s", o, tc.want, r)
				}
				r.end()
			})
		}
	}
}

// TestWaitingNamesSession: headless, a form left to an answer from
// elsewhere names the session and the command that answers it, and says so
// again while it waits; the reminders stop once it is answered.
func TestWaitingNamesSession(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	c := newChild(t, fakeclaude.Faults{})
	r := startTuned(t, c, Config{Decider: decider{}, Policy: rules.Wait, Remote: true,
		Host: ptyhost.Config{Cols: 100, Rows: 40, Headless: true}},
		func(s *session) { s.remindEvery = 50 * time.Millisecond })
	c.ask("t1", database)
	r.wait(`"handed_over"`)
	id := r.s.reg.ID()
	if !strings.Contains(r.log.String(), `"session":"`+id+`"`) || !strings.Contains(r.log.String(), "claudewrap answer "+id) {
		t.Fatalf("the hand-over does not name session %s and its answer command\n%s", id, r)
	}
	r.log.WaitForN(t, `"waiting"`, 2, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if o := (remoteHandler{r.s}).Answer(ctx, "t1", "claudewrap answer", []answer.Decision{sel("PostgreSQL")}); o.Result != "verified" {
		t.Fatalf("the answer: %+v, want verified\n%s", o, r)
	}
	r.end()
	log := r.log.String()
	if after := log[strings.Index(log, `"verified"`):]; strings.Contains(after, `"waiting"`) {
		t.Errorf("a waiting event after Claude recorded the answer\n%s", log)
	}
}

// TestRemotePartlyRuled: a form a rule answered in part waits for the rest
// under the wait policy: pending shows the rule's answer, an answer from
// elsewhere to the open question is merged with it, and Claude records
// both; an answer that would replace the rule's is refused and changes
// nothing; the rule's decision is not logged again as the sender's.
func TestRemotePartlyRuled(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Wait, Host: hostHeadless})
	c.ask("t1", database, features)
	r.wait(`"handed_over"`)
	h := remoteHandler{r.s}
	ps := h.Pending()
	if len(ps) != 1 || len(ps[0].Decided) != 1 || ps[0].Decided[0].Index != 1 || ps[0].Decided[0].Rule != "test" ||
		ps[0].Decided[0].Answer != `select "SQLite"` || len(ps[0].Open()) != 1 {
		t.Fatalf("pending %+v", ps)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if o := h.Answer(ctx, "t1", remote.FromAnswer, []answer.Decision{sel("MongoDB"), sel("API")}); o.Result != "refused" ||
		!strings.Contains(o.Message, `is answered by rule "test"`) {
		t.Errorf("an answer replacing the rule's: %+v", o)
	}
	o := h.Answer(ctx, "t1", remote.FromAnswer, []answer.Decision{sel("API", "Auth")})
	if o.Result != "verified" || o.Recorded[database.Question] != "SQLite" || o.Recorded[features.Question] != "API, Auth" {
		t.Errorf("the open question's answer: %+v\n%s", o, r)
	}
	if n := strings.Count(r.log.String(), `"rule":"remote"`); n != 1 {
		t.Errorf("%d decisions of the sender's, want 1 (the rule's stands as the rule's)\n%s", n, r)
	}
	r.end()
}

// TestPersonReplacesRule: a form a rule answered in part is the person's
// at Claude's screen under passthrough once the rule's answer is given;
// when they go back and record another answer to the rule's question,
// their submission says which rule's answer they replaced, never silently.
func TestPersonReplacesRule(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Passthrough, Host: hostTerminal})
	c.ask("t1", database, deploy)
	r.wait(`"handed_over"`)
	c.Settle()
	for _, k := range []string{"\x1b[D", "1", "1", "1"} { // back to Database, PostgreSQL, Fly.io, Submit
		r.s.input([]byte(k))
		if err := c.SendKeys([]byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	ev := r.wait(`"by":"person"`)
	rs, _ := ev["replaced_rules"].([]any)
	if len(rs) != 1 || fmt.Sprint(rs[0]) != "map[question:Which database should we use? recorded:PostgreSQL rule:test rule_answer:SQLite]" {
		t.Errorf("submitted %v\n%s", ev, r)
	}
	r.end()
}

// TestNotifyEscaped: the form --notify's command gets on its stdin holds
// no character a terminal acts on, as the events and pending --json do
// not: a command that prints it shows the escapes.
func TestNotifyEscaped(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "notified.json")
	c := newChild(t, fakeclaude.Faults{})
	startRun(t, c, Config{Decider: decider{}, Policy: rules.Wait, Host: hostHeadless, Notify: "cat > " + out})
	// The form waits for a person: --notify is told.
	c.ask("t1", fakeclaude.Question{Header: "Go", Question: "Deploy? " + testkit.Hostile,
		Options: []fakeclaude.Option{{Label: "Yes"}, {Label: "No"}}})
	deadline := time.Now().Add(10 * time.Second)
	var b []byte
	for time.Now().Before(deadline) && !strings.Contains(string(b), "Deploy?") {
		time.Sleep(20 * time.Millisecond) // another process's file, under a deadline
		b, _ = os.ReadFile(out)
	}
	if !strings.Contains(string(b), `Deploy? \u001b]52`) {
		t.Fatalf("--notify got %q", b)
	}
	if bad := testkit.Unescaped(string(b)); bad != "" {
		t.Errorf("--notify's input holds raw %s: %s", bad, b)
	}
}

// TestFormPartlyRuledAtTerminal: on the person's terminal, a form whose
// first question a rule answers and whose second none does gets the rule's
// answer on the screen, then is the person's at the second question, with
// a line that says so. The person answers it; Claude records both, and the
// rule's answer is reported kept.
func TestFormPartlyRuledAtTerminal(t *testing.T) {
	t.Parallel()
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{answers: map[string]answer.Decision{database.Question: sel("SQLite")}},
		Policy: rules.Passthrough, Host: hostTerminal})
	c.ask("t1", database, deploy)
	ev := r.wait(`"handed_over"`)
	if reason := fmt.Sprint(ev["reason"]); !strings.Contains(reason, `the rules answered question 1 ("Database") on the screen; question 2 ("Deploy")`) {
		t.Fatalf("handed over: %v\n%s", ev, r)
	}
	if !r.has("key") {
		t.Fatalf("no key pressed for the rule's question\n%s", r)
	}
	// The person picks the second option of the second question, then
	// submits on the review page.
	em := c.Screen()
	person := func(key string, after func(vt.Snapshot) bool) {
		t.Helper()
		r.s.input([]byte(key))
		c.SendKeys([]byte(key))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := em.Wait(ctx, after); err != nil {
			t.Fatalf("after %q: %v\n%s", key, err, em.Snapshot().Text())
		}
	}
	person("\x1b[B", func(s vt.Snapshot) bool { return strings.Contains(s.Text(), "❯ 2. A VPS") })
	person("\r", func(s vt.Snapshot) bool { return strings.Contains(s.Text(), "Review your answers") })
	r.s.input([]byte("\r"))
	c.SendKeys([]byte("\r"))
	sub := r.wait(`"submitted"`)
	kept, _ := sub["kept_rules"].([]any)
	if sub["by"] != "person" || len(kept) != 1 || !strings.Contains(fmt.Sprint(kept[0]), "SQLite") {
		t.Errorf("submitted %v\n%s", sub, r)
	}
	if got := c.Submitted(); got[database.Question] != "SQLite" || got[deploy.Question] != "A VPS" {
		t.Errorf("Claude recorded %v", got)
	}
}

// fakeReach is a Config.Reach that counts what it is told and serves the
// local socket through a wrapper of its own.
type fakeReach struct {
	changed chan struct{}
	served  chan string // the ops the local socket passed through it
}

type wrapped struct {
	remote.Handler
	r *fakeReach
}

func (w wrapped) Pending() []remote.Form {
	w.r.served <- "pending"
	return w.Handler.Pending()
}

func (r *fakeReach) Attach(h remote.Handler) (remote.Handler, func(), func()) {
	return wrapped{h, r}, func() {
		select {
		case r.changed <- struct{}{}:
		default:
		}
	}, func() {}
}

// TestReach: another way to reach the run (the inbox) is told when what
// waits for a person changes, and the local socket serves its handler, so
// that a local answer takes part in its race.
func TestReach(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	reach := &fakeReach{changed: make(chan struct{}, 1), served: make(chan string, 8)}
	c := newChild(t, fakeclaude.Faults{})
	r := startRun(t, c, Config{Decider: decider{}, Policy: rules.Wait, Host: hostHeadless, Remote: true, Reach: reach})
	c.ask("t1", database)
	r.wait(`"handed_over"`)
	select {
	case <-reach.changed:
	case <-time.After(10 * time.Second):
		t.Fatal("the form that waits was not told")
	}
	forms, err := remote.PendingAll(context.Background())
	if err != nil || len(forms) != 1 {
		t.Fatalf("pending %v %v", forms, err)
	}
	select {
	case op := <-reach.served:
		if op != "pending" {
			t.Errorf("served %q", op)
		}
	default:
		t.Error("the local socket did not serve Reach's handler")
	}
}
