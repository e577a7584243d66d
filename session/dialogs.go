package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"syscall"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// Permitter decides tools' permission requests. rules.Set is one.
type Permitter interface {
	Permit(c rules.Call) rules.PermissionDecision
}

// Defaults of the watchdog (Config.DialogGrace, Config.IdleLimit).
const (
	dialogGrace      = 3 * time.Second
	idleLimitDefault = 10 * time.Minute
	// Claude runs its SessionStart hook within seconds of starting, once
	// its first-run dialogs are answered. A headless run with no hook
	// message after startLimit, and a screen still for startQuiet (no
	// spinner: nothing is being worked on), waits on a screen nobody can
	// answer: onboarding, a dialog claudewrap does not know.
	startLimit = 20 * time.Second
	startQuiet = 5 * time.Second
)

// exitPlanMode is the tool whose permission is plan approval.
const exitPlanMode = "ExitPlanMode"

// trustLabel is the trust dialog's "Yes" on every pinned version.
const trustLabel = "Yes, I trust this folder"

// bypassLabel is the bypass confirmation's "Yes" on every pinned version.
const bypassLabel = "Yes, I accept"

// screenChoice is a dialog to answer on the screen when it shows: a
// permission rule's decision that only the screen can carry out.
type screenChoice struct {
	tool  string
	input json.RawMessage
	kind  screen.DialogKind
	d     rules.PermissionDecision
	at    time.Time // when Claude asked (its PermissionRequest)
}

// permission handles a PermissionRequest: the rules decide at once, through
// the hook's reply where Claude Code honours it (allow, deny), on the
// screen where only the screen can (allow for the session, an option by
// its label, plan approval, which 2.1.330 does not take from a hook). With
// no decision Claude draws its dialog, and the dialog watcher takes over.
func (s *session) permission(m hook.Message) {
	p := m.Payload
	reply := func(out []byte) {
		if m.Reply != nil {
			m.Reply(out)
		}
	}
	if p.ToolName == hook.ToolName {
		reply(nil) // a question form: answered as one
		return
	}
	kind := screen.PermissionDialog
	if p.ToolName == exitPlanMode {
		kind = screen.PlanDialog
	}
	s.loop.send(dialogCounted{})
	s.say("dialog", events.Fields{"kind": string(kind), "source": "hook", "tool": p.ToolName,
		"input": p.Input, "permission_mode": p.PermissionMode})
	var d rules.PermissionDecision
	if s.cfg.Permits != nil {
		d = s.cfg.Permits.Permit(rules.Call{Tool: p.ToolName, Input: p.Input, Cwd: p.Cwd})
	}
	if !d.Matched() {
		s.say("decision", events.Fields{"dialog": string(kind), "tool": p.ToolName, "unmatched": "no permission rule matches"})
		s.loop.send(choiceMade{&screenChoice{tool: p.ToolName, input: p.Input, kind: kind, d: d, at: time.Now()}}) // the person's, if anyone's
		reply(nil)
		return
	}
	fields := events.Fields{"dialog": string(kind), "tool": p.ToolName, "rule": d.Rule, "decide": d.Verdict.String()}
	if d.File != "" {
		fields["file"] = fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	if d.Met != "" {
		fields["met"] = d.Met
	}
	viaHook := kind != screen.PlanDialog && (d.Action == rules.Allow || d.Action == rules.Deny || d.Action == rules.FailRun)
	if viaHook {
		fields["via"] = "hook"
	} else if d.Action != rules.AskPerson {
		fields["via"] = "screen"
	}
	s.say("decision", fields)
	switch {
	case d.Action == rules.AskPerson:
		reply(nil)
	case viaHook:
		decision := map[string]any{"behavior": "allow"}
		switch d.Action {
		case rules.Deny:
			decision = map[string]any{"behavior": "deny", "message": d.Message}
		case rules.FailRun:
			decision = map[string]any{"behavior": "deny", "message": "claudewrap ends this run here (rule " + d.Rule + ")"}
		}
		out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": hook.PermissionRequest, "decision": decision}})
		reply(out)
		switch d.Action {
		case rules.Allow:
			s.expect(permCheck{tool: p.ToolName, input: p.Input, kind: kind, rule: d.Rule, want: ran})
		case rules.Deny:
			s.expect(permCheck{tool: p.ToolName, input: p.Input, kind: kind, rule: d.Rule, want: refused, text: d.Message})
		}
		if d.Action == rules.FailRun {
			s.block(fmt.Sprintf("permission rule %q (%s:%d) ends the run at %s", d.Rule, d.File, d.Line, p.ToolName), nil)
		}
	default:
		s.loop.send(choiceMade{&screenChoice{tool: p.ToolName, input: p.Input, kind: kind, d: d, at: time.Now()}})
		reply(nil)
	}
}

// dialogCounted: a dialog was asked (a PermissionRequest) or seen on the
// screen (see session.dialogs). Sent before the hook is replied to, or
// before the dialog is answered, so that a later look at the count sees it.
type dialogCounted struct{}

// choiceMade: a permission rule's decision waits for its dialog to show
// (see screenChoice). Sent before the PermissionRequest is replied to, so
// that the dialog, drawn after the reply, finds it.
type choiceMade struct{ c *screenChoice }

// block ends a run nobody can go on with: a dialog nobody answers, a screen
// that waits for input for ever, a rule that fails the run. Said once, as a
// blocked event with the reason and the screen; Claude is ended, and the
// run exits 7.
func (s *session) block(reason string, snap *vt.Snapshot) {
	if !s.loop.block(reason) {
		return
	}
	fields := events.Fields{"reason": reason}
	if snap != nil {
		fields["screen"] = snap.Text()
	}
	s.say("blocked", fields)
	_ = s.child.Signal(syscall.SIGTERM)
}

// formOpen reports whether a question form is being dealt with: the
// dialog watcher leaves the screen to it.
func (s *session) formOpen() (r bool) {
	s.loop.do(func() { r = s.formOpenOnLoop() })
	return r
}

func (s *session) formOpenOnLoop() bool {
	for _, f := range s.forms {
		switch f.state {
		case submitted:
			if !isClosed(f.posted) { // else closed: only its record is being read
				return true
			}
		case deciding, queued, driving, handedOver:
			return true
		}
	}
	return false
}

// dialogWatch is the watchdog of the screen watcher (see watchScreen): it
// answers the dialogs claudewrap was told to answer (the trust dialog with
// --trust, the bypass confirmation, a permission rule's screen choice),
// confirmed on the screen like every key, and does not let a headless run
// wait for ever: a dialog nobody answers for DialogGrace, a screen that has
// not changed for IdleLimit with no question open, or a still screen
// startLimit after the start with no session started (no SessionStart, no
// hook message of Claude's) ends it (blocked, exit 7). With no idle limit
// (IdleLimit negative) only the dialog grace holds. With Claude on the
// person's screen, a dialog nobody was told to answer is theirs.
type dialogWatch struct {
	grace, idle time.Duration
	drawn       uint64 // the screen's Seq, settled or not, when last seen
	started     time.Time
	changedAt   time.Time
	cur         *screen.Dialog
	counted     *screen.Dialog // the last dialog counted in s.dialogs
	shownAt     time.Time
	handled     bool
	recent      recentScreens
	retrying    string // the API error Claude retries for, said once
	gate        ungated
}

func newDialogWatch(s *session, now time.Time) *dialogWatch {
	w := &dialogWatch{grace: s.cfg.DialogGrace, idle: s.cfg.IdleLimit, started: now, changedAt: now}
	if w.grace <= 0 {
		w.grace = dialogGrace
	}
	if w.idle == 0 {
		w.idle = idleLimitDefault
	}
	return w
}

// step looks at l, the screen at now; done says the run is blocked and
// the watcher ends.
func (w *dialogWatch) step(ctx context.Context, s *session, l *look, now time.Time) (done bool) {
	em, snap := s.child.Screen(), l.snap
	grace, idle := w.grace, w.idle
	// A screen that changes counts whether it settles or not: output
	// that never pauses (a stream) keeps it unsettled, and output the
	// emulator skipped changes it too (screen's Skip). A screen that
	// only goes back to what it showed a moment ago (a blinking dot, a
	// spinner with no timer) has not changed: it waits all the same.
	if snap.Seq != w.drawn {
		w.drawn = snap.Seq
		if w.recent.novel(snap) {
			w.changedAt = now
		}
	}
	if s.cfg.Gate {
		if why := w.gate.check(s, now); why != "" {
			s.block(why, &snap)
			return true
		}
	}
	if r, ok := l.retry, l.retryOK; ok && r.Message != w.retrying {
		// Claude retries on its own and gives up with a StopFailure
		// (turnFailed); meanwhile the person is told why it waits.
		w.retrying = r.Message
		s.say("retrying", events.Fields{"message": r.Message, "attempt": r.Attempt, "of": r.Of})
	}
	open := s.formOpen()
	hooked := s.hooked.Load()
	// The start watchdog is an idle limit of its own: with no limit
	// (--idle-timeout 0) it is off too.
	if s.cfg.Host.Headless && idle > 0 && !hooked && now.Sub(w.started) >= s.startLimit && now.Sub(w.changedAt) >= s.startQuiet {
		if !l.dialogOK {
			s.block(fmt.Sprintf("Claude has not started its session after %v and its screen waits for input "+
				"nobody can give (headless): a first-run screen, a dialog claudewrap does not know, or hooks that do not run", s.startLimit), &snap)
			return true
		}
	}
	if s.cfg.Host.Headless && idle > 0 && !open && now.Sub(w.changedAt) >= idle {
		s.block(fmt.Sprintf("Claude's screen has not changed for %v and no question is open: "+
			"it waits for input nobody can give (headless)", idle.Round(time.Second)), &snap)
		return true
	}
	d, ok := l.dialog, l.dialogOK
	if !ok && !open && s.cfg.Host.Headless && idle > 0 && now.Sub(w.changedAt) >= s.startQuiet {
		if reason := s.unreadDialog(snap, now); reason != "" {
			s.block(reason, &snap)
			return true
		}
	}
	if !ok || open {
		w.cur = nil
		return false
	}
	if w.cur == nil || !w.cur.Same(d) {
		w.cur, w.shownAt, w.handled = &d, now, false
		if w.counted == nil || !w.counted.Same(d) {
			// A dialog whose frames flicker comes back as cur: it is
			// counted once (its PermissionRequest counts the next alike).
			w.counted = &d
			s.loop.send(dialogCounted{})
		}
		fields := events.Fields{"kind": string(d.Kind), "source": "screen", "title": d.Title,
			"prompt": d.Prompt, "options": d.Options, "focus": d.Focus}
		if len(d.Keys) > 0 {
			fields["keys"] = keyHints(d)
		}
		if d.Server != "" {
			fields["server"] = d.Server
		}
		s.say("dialog", fields)
	}
	if w.handled {
		return false
	}
	shownAt := w.shownAt
	if key, why := s.chooseKey(d); key != "" {
		w.handled = true
		if err := s.pressDialogKey(ctx, d, key, why, shownAt); err != nil && s.cfg.Host.Headless {
			snap := em.Snapshot()
			s.block(fmt.Sprintf("Claude's %s dialog could not be answered: %v", d.Kind, err), &snap)
			return true
		}
		return false
	}
	if d.Kind == screen.OnboardingDialog && s.cfg.Host.Headless {
		// Nobody can get past a first-run screen headless, and nothing
		// answers it: said at once, with the fix.
		s.block(blockedReason(d), &snap)
		return true
	}
	label, text, why := s.chooseFor(d)
	if label == "" && s.cfg.Host.Headless && s.cfg.Asker != nil {
		// Headless with a terminal: the person answers on claudewrap's
		// prompt what nobody told it to answer.
		w.handled = true
		if label, text = s.askDialog(ctx, d); label == "" {
			if ctx.Err() == nil {
				snap := em.Snapshot()
				s.block(fmt.Sprintf("Claude's %s dialog %q: the person gave no answer", d.Kind, firstNonEmpty(d.Title, d.Prompt)), &snap)
			}
			return true
		}
		why = "the person"
		if len(d.Options) == 0 {
			// A dialog with no menu: the person picked one of its keys.
			for _, k := range d.Keys {
				if label == k.Key+" to "+k.Does {
					if err := s.pressDialogKey(ctx, d, k.Key, why, shownAt); err != nil {
						snap := em.Snapshot()
						s.block(fmt.Sprintf("Claude's %s dialog could not be answered: %v", d.Kind, err), &snap)
						return true
					}
					break
				}
			}
			return false
		}
	}
	if label != "" {
		w.handled = true
		if err := s.answerDialog(ctx, d, label, text, why, shownAt); err != nil && s.cfg.Host.Headless {
			snap := em.Snapshot()
			s.block(fmt.Sprintf("Claude's %s dialog could not be answered: %v", d.Kind, err), &snap)
			return true
		}
		return false
	}
	if s.cfg.Host.Headless && now.Sub(shownAt) >= grace {
		s.block(blockedReason(d), &snap)
		return true
	}
	return false
}

// unreadDialog is the reason to end a headless run whose screen stands
// still with Claude's permission dialog drawn where claudewrap cannot read
// it: Claude asked (a PermissionRequest) startLimit ago or more, no dialog
// was answered since, and its input box is not on the screen (a dialog
// takes its place). "" otherwise.
func (s *session) unreadDialog(snap vt.Snapshot, now time.Time) string {
	var c *screenChoice
	s.loop.do(func() { c = s.choice })
	if c == nil || now.Sub(c.at) < s.startLimit {
		return ""
	}
	if _, prompt := screen.Prompt(snap); prompt {
		return ""
	}
	return fmt.Sprintf("Claude asked for permission for %s %v ago and its screen shows no dialog claudewrap can read (headless)",
		c.tool, now.Sub(c.at).Round(time.Second))
}

// mcpUseLabel is a project's new MCP server dialog's option that runs it,
// that once.
const mcpUseLabel = "Use this MCP server"

// chooseKey is the key of d's hints claudewrap was told to press, and who
// said so; "" when nobody did. Only auto mode's dialog is answered by a key.
func (s *session) chooseKey(d screen.Dialog) (key, why string) {
	if d.Kind != screen.AutoModeDialog || s.cfg.Dialogs == nil {
		return "", ""
	}
	switch a, file := s.cfg.Dialogs.AutoMode(); a {
	case "stay":
		return "Enter", "dialogs.auto_mode in " + file
	case "leave":
		return "shift+Tab", "dialogs.auto_mode in " + file
	}
	return "", ""
}

// feedbackLabel is plan approval's option that takes the person's words
// ("Ready to code?" with a plan file, every pinned version).
const feedbackLabel = "Tell Claude what to change"

// chooseFor is the option claudewrap was told to pick in d, the text to
// type in it if it takes text, and who said so; "" when nobody did.
func (s *session) chooseFor(d screen.Dialog) (label, text, why string) {
	if d.Kind == screen.TrustDialog {
		if s.cfg.Trust != "" && !s.trusted { // once: the folder is trusted for good
			return trustLabel, "", s.cfg.Trust
		}
		return "", "", ""
	}
	if d.Kind == screen.BypassDialog {
		// Claude asks before its session starts: a look-alike drawn later
		// (a tool's output) is not it, and gets no key.
		if s.cfg.Bypass != "" && !s.bypassed && !s.hooked.Load() {
			return bypassLabel, "", s.cfg.Bypass
		}
		return "", "", ""
	}
	if d.Kind == screen.APIKeyDialog && s.cfg.Dialogs != nil {
		switch a, file := s.cfg.Dialogs.APIKey(); a {
		case "use":
			return "Yes", "", "dialogs.api_key in " + file
		case "refuse":
			return "No", "", "dialogs.api_key in " + file
		}
		return "", "", ""
	}
	if d.Kind == screen.MCPServerDialog && s.cfg.Dialogs != nil {
		// One server at a time: a list of several is the person's.
		if d.Server != "" {
			if file := s.cfg.Dialogs.MCPServer(d.Server); file != "" {
				return mcpUseLabel, "", "dialogs.mcp_servers in " + file
			}
		}
		return "", "", ""
	}
	var c *screenChoice
	s.loop.do(func() { c = s.choice })
	if c == nil || c.kind != d.Kind {
		return "", "", ""
	}
	why = fmt.Sprintf("permission rule %q", c.d.Rule)
	switch c.d.Action {
	case rules.SelectOption:
		return c.d.Label, "", why
	case rules.AllowSession:
		// "Yes, and don't ask again for …", "Yes, and always allow …",
		// "Yes, allow … from this project": the first "Yes, …" after plain
		// "Yes" that does not change Claude's permission mode. With none
		// (an edit offers only accept-edits mode), plain "Yes": the rule
		// answers the next prompt alike.
		for i, o := range d.Options {
			if i > 0 && strings.HasPrefix(o, "Yes, ") && !switchesMode(o) {
				return o, "", why
			}
		}
		if d.Find("Yes") >= 0 && d.Options[d.Find("Yes")] == "Yes" {
			return "Yes", "", why
		}
	case rules.Allow: // plan approval, which keeps the rules in charge of edits
		if d.Find("Yes, manually approve edits") >= 0 {
			return "Yes, manually approve edits", "", why
		}
		for _, o := range d.Options {
			if (o == "Yes" || strings.HasPrefix(o, "Yes, ")) && !strings.Contains(o, "auto mode") {
				return o, "", why
			}
		}
	case rules.Deny:
		// Plan approval with a plan file has no "No": Claude keeps
		// planning with the rule's message as the person's feedback.
		if d.Kind == screen.PlanDialog && c.d.Message != "" && d.Find(feedbackLabel) >= 0 {
			return feedbackLabel, c.d.Message, why
		}
		if d.Find("No") >= 0 {
			return "No", "", why
		}
	}
	return "", "", ""
}

// switchesMode reports whether picking option o changes Claude's
// permission mode ("Yes, and switch to auto mode", "… switch to accept
// edits … (shift+tab)", the key that cycles the modes): after it Claude
// stops asking, and the rules' allow, ask and select no longer see its
// prompts.
func switchesMode(o string) bool {
	return strings.Contains(o, "auto mode") || strings.Contains(o, "switch to") || strings.Contains(o, "shift+tab")
}

// askDialog asks the person on claudewrap's prompt which option of d to
// pick: one of its options, or for plan approval words of feedback. "" when
// they gave none (cancelled, timed out, the run ended).
func (s *session) askDialog(ctx context.Context, d screen.Dialog) (label, text string) {
	q := answer.Question{Header: "Claude's " + string(d.Kind) + " dialog", Question: firstNonEmpty(d.Title, d.Prompt)}
	if d.Prompt != "" && d.Prompt != q.Question {
		q.Question += " — " + d.Prompt
	}
	for _, o := range d.Options {
		q.Options = append(q.Options, answer.Option{Label: o})
	}
	if len(d.Options) == 0 {
		// No menu: its keys, by what each does.
		for _, k := range d.Keys {
			q.Options = append(q.Options, answer.Option{Label: k.Key + " to " + k.Does})
		}
	}
	if s.cfg.AnswerTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.AnswerTimeout)
		defer cancel()
	}
	a, err := s.cfg.Asker.Ask(ctx, q, 1, 1)
	switch {
	case err != nil:
		if errors.Is(err, context.DeadlineExceeded) {
			s.say("timeout", events.Fields{"dialog": string(d.Kind), "after": s.cfg.AnswerTimeout.String()})
		} else if ctx.Err() == nil {
			s.say("error", events.Fields{"dialog": string(d.Kind), "message": "ask: " + err.Error()})
		}
		return "", ""
	case a.Action == answer.Select && len(a.Labels) == 1:
		return a.Labels[0], ""
	case a.Action == answer.Type && d.Find(feedbackLabel) >= 0:
		return feedbackLabel, a.Text
	}
	s.say("error", events.Fields{"dialog": string(d.Kind), "message": "ask: " + a.String() + " is not an option of this dialog"})
	return "", ""
}

// answerDialog picks label in d, seen on the screen at shown, on the
// screen. A failure presses nothing more, is reported, and returned: the
// dialog stays for the person, or ends a headless run. A person who typed
// since shown has it: nothing is pressed.
func (s *session) answerDialog(ctx context.Context, d screen.Dialog, label, text, why string, shown time.Time) error {
	return s.giveDialog(ctx, d, label, text, "", why, shown)
}

// pressDialogKey presses key, one of d's hints, as answerDialog picks an
// option.
func (s *session) pressDialogKey(ctx context.Context, d screen.Dialog, key, why string, shown time.Time) error {
	return s.giveDialog(ctx, d, "", "", key, why, shown)
}

// giveDialog is answerDialog and pressDialogKey: the option labelled label
// (with text), or the key key.
func (s *session) giveDialog(ctx context.Context, d screen.Dialog, label, text, key, why string, shown time.Time) error {
	var c *screenChoice
	s.loop.do(func() {
		if d.Kind != screen.TrustDialog && d.Kind != screen.BypassDialog {
			c, s.choice = s.choice, nil
		} // else no tool's: a permission choice waits for its own dialog
	})
	fields := events.Fields{"dialog": string(d.Kind), "title": d.Title, "select": label, "by": why, "via": "screen"}
	if key != "" {
		delete(fields, "select")
		fields["key"] = key
	}
	if text != "" {
		text = askflow.OneLine(text)
		fields["text"] = text
	}
	s.say("decision", fields)
	if s.cfg.DryRun {
		s.endDryRun(true)
		return nil
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// On the loop, which hands over between two events (see handOver): a
	// key of theirs from now on cancels this answer (see lease), and one
	// before now is seen here.
	typed := false
	s.loop.do(func() {
		if typed = s.lastInput.After(shown); !typed {
			s.dialogCancel = cancel
		}
	})
	if typed {
		s.say("handed_over", events.Fields{"dialog": string(d.Kind), "reason": "the person typed", "keys": 0})
		return nil
	}
	defer func() {
		s.loop.do(func() { s.dialogCancel = nil })
	}()
	cfg := askflow.DialogConfig{Screen: s.child.Screen(), Keys: s.lease(ctx),
		StepTimeout: s.cfg.Flow.StepTimeout, Retries: s.cfg.Flow.Retries, Shown: shown}
	cfg.OnKey = func(k askflow.KeyEvent) {
		s.say("key", events.Fields{"dialog": string(d.Kind), "key": k.Key, "before": k.Before, "after": k.After})
	}
	var keys int
	var err error
	if key != "" {
		keys, err = askflow.PressKey(ctx, cfg, d, key)
	} else {
		keys, err = askflow.ChooseText(ctx, cfg, d, label, text)
	}
	if err != nil {
		if ctx.Err() != nil {
			if parent.Err() == nil {
				s.say("handed_over", events.Fields{"dialog": string(d.Kind), "reason": "the person typed", "keys": keys})
			}
			return nil
		}
		fields := events.Fields{"dialog": string(d.Kind), "message": "dialog: " + err.Error(), "keys": keys}
		if ae, ok := err.(*askflow.Error); ok {
			fields["message"], fields["step"], fields["screen"] = "dialog: "+ae.Step+": "+ae.Reason, ae.Step, ae.Last.Text()
		}
		s.because(ExitNavigation, fmt.Sprintf("Claude's %s dialog: %v", d.Kind, fields["message"]))
		s.say("error", fields)
		return fmt.Errorf("%v", fields["message"])
	}
	switch d.Kind {
	case screen.TrustDialog:
		s.trusted = true
	case screen.BypassDialog:
		s.bypassed = true
	}
	done := events.Fields{"dialog": string(d.Kind), "title": d.Title, "select": label, "keys": keys}
	if key != "" {
		delete(done, "select")
		done["key"] = key
	}
	if text != "" {
		done["text"] = text
	}
	s.say("submitted", done)
	if d.Kind == screen.AutoModeDialog && key != "Enter" {
		// Leaving auto mode stops the turn, as a cancelled form does: no
		// Stop hook follows.
		s.turnInterrupted()
	}
	if key == "" && text == "" && (label == "No" || strings.HasPrefix(label, "No, ")) {
		// A No picked in Claude's dialog stops its turn, as a cancelled
		// form does: no Stop hook follows.
		s.turnInterrupted()
	}
	if c != nil {
		if want, ok := screenOutcome(c, label, text); ok {
			s.expect(permCheck{tool: c.tool, input: c.input, kind: d.Kind, rule: c.d.Rule, want: want, text: text})
		}
	}
	return nil
}

// screenOutcome is what picking label in a permission or plan dialog should
// lead to, when that can be told from the label.
func screenOutcome(c *screenChoice, label, text string) (outcome, bool) {
	plan := c.tool == exitPlanMode
	switch {
	case text != "":
		return refused, true // feedback: Claude is told no, and why
	case label == "Yes" || strings.HasPrefix(label, "Yes, "):
		if plan {
			return approved, true
		}
		return ran, true
	case label == "No" || strings.HasPrefix(label, "No, "):
		return refused, true
	}
	return "", false
}

// blockedReason says what waits, and how a run could answer it.
func blockedReason(d screen.Dialog) string {
	switch d.Kind {
	case screen.TrustDialog:
		return "Claude asks whether to trust this folder and nobody can answer (headless): " +
			"run with --trust, or dialogs: {trust: true} in the rules, to trust it"
	case screen.BypassDialog:
		return "Claude asks to confirm Bypass Permissions mode (--dangerously-skip-permissions) and nobody can answer (headless): " +
			"dialogs: {bypass_permissions: accept} in your rules accepts it"
	case screen.PermissionDialog, screen.PlanDialog:
		return fmt.Sprintf("Claude's %s dialog %q waits and no rule answers it (headless): "+
			"add a permissions: rule for it", d.Kind, firstNonEmpty(d.Title, d.Prompt))
	case screen.AutoModeDialog:
		return "Claude's auto mode cannot check actions in this session (its check runs on Anthropic's servers, and the requests go " +
			"through another address) and nobody can answer it (headless): dialogs: {auto_mode: stay} in your rules stays in auto mode " +
			"(the actions that need the check are then asked, for permission rules to answer), {auto_mode: leave} leaves for accept-edits " +
			"mode; or run Claude with --permission-mode default"
	case screen.APIKeyDialog:
		return "Claude asks whether to use the API key in its environment (ANTHROPIC_API_KEY) and nobody can answer it (headless): " +
			"dialogs: {api_key: use} in your rules answers Yes, or approve the key once by running claude with it"
	case screen.MCPServerDialog:
		servers := strings.Join(d.Servers(), ", ")
		return fmt.Sprintf("Claude asks whether to use the project's new MCP server %s (.mcp.json) and nobody can answer it (headless): "+
			"name it in dialogs: {mcp_servers: [...]} in a rules file of yours (a folder's own never approves one), or answer it once in claude", servers)
	case screen.OnboardingDialog:
		return fmt.Sprintf("Claude Code shows its first-run screen %q, which nobody can get past (headless): run claude once "+
			"in this home and finish it, or set \"hasCompletedOnboarding\": true in ~/.claude.json", firstNonEmpty(d.Title, firstLine(d.Body)))
	}
	if len(d.Options) == 0 {
		return fmt.Sprintf("Claude shows a screen claudewrap does not know (%q; keys: %s) and nobody can answer it (headless)",
			firstNonEmpty(d.Title, firstLine(d.Body)), strings.Join(keyHints(d), " · "))
	}
	return fmt.Sprintf("Claude shows a dialog claudewrap does not know (%q: %s) and nobody can answer it (headless)",
		firstNonEmpty(d.Title, d.Prompt), strings.Join(d.Options, " / "))
}

// keyHints are d's keys as its footer says them: "Enter to stay in auto
// mode".
func keyHints(d screen.Dialog) []string {
	var out []string
	for _, k := range d.Keys {
		out = append(out, k.Key+" to "+k.Does)
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// recentScreens remembers the last screens seen, by their text, to tell a
// screen that changes from one that blinks: Claude at work shows a timer
// that counts, or new output; a form or dialog waiting shows the same few
// frames again and again.
type recentScreens struct {
	texts [recentMax]uint64 // FNV-1a of each screen's text, a ring
	n     int               // screens seen
	skips uint64            // the snapshot's Skips when last seen
}

// recentMax is how many screens are remembered: more than any spinner's or
// blink's frames.
const recentMax = 32

// novel reports whether sn shows what none of the recent screens did, or
// output was skipped since (a stream the emulator could not keep up with);
// it remembers sn.
func (r *recentScreens) novel(sn vt.Snapshot) bool {
	skipped := sn.Skips != r.skips
	r.skips = sn.Skips
	h := fnv.New64a()
	for y := range sn.Rows {
		_, _ = h.Write([]byte(sn.Line(y)))
		_, _ = h.Write([]byte{'\n'})
	}
	sum := h.Sum64()
	for i := range min(r.n, recentMax) {
		if r.texts[i] == sum {
			return skipped
		}
	}
	r.texts[r.n%recentMax] = sum
	r.n++
	return true
}
