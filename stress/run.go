package stress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
	"github.com/claudewrap/claudewrap/internal/transcript"
)

// Config says how to run a plan.
type Config struct {
	// Claudewrap is the claudewrap binary under test.
	Claudewrap string
	// Claude returns the Claude Code binary of a version.
	Claude func(version string) (string, error)
	// Versions are the Claude Code versions to run every session on.
	Versions []string
	// Parallel is how many sessions run at once (default 2: each is a
	// Claude Code process).
	Parallel int
	// Dir holds one folder per session: the rules, the recording, the
	// events, and any bug-report bundle. Folders of sessions whose forms
	// were all right are removed unless Keep is set.
	Dir  string
	Keep bool
	// AnswerVia, if set, is passed as --answer-via: "hook" answers every
	// random form through the PreToolUse hook instead of the screen, an
	// answer path independent of the recogniser, judged the same way.
	AnswerVia string
	// MCPDemo is the project's MCP test server
	// (internal/testsupport/mcpdemo), for sessions with an MCP server's
	// input form (Dialog.Elicit).
	MCPDemo string
	// Logf, if set, gets a line per finished session.
	Logf func(format string, args ...any)
}

// Run runs every session of the plan on every version and returns a
// verdict per case and version, in plan order. It stops early, with the
// verdicts so far, when ctx ends.
func Run(ctx context.Context, cfg Config, plan Plan) ([]Verdict, error) {
	if cfg.Parallel <= 0 {
		cfg.Parallel = 2
	}
	type job struct {
		version string
		s       Session
		slot    int
	}
	var jobs []job
	for _, v := range cfg.Versions {
		for _, s := range plan.Sessions {
			jobs = append(jobs, job{v, s, len(jobs)})
		}
	}
	results := make([][]Verdict, len(jobs))
	var (
		wg   sync.WaitGroup
		sem  = make(chan struct{}, cfg.Parallel)
		mu   sync.Mutex
		errs []error
	)
	for _, j := range jobs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			vs, err := runSession(ctx, cfg, j.version, j.s)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s on %s: %w", j.s.Name, j.version, err))
			}
			results[j.slot] = vs
			if cfg.Logf != nil {
				cfg.Logf("%s", sessionLine(j.version, j.s, vs))
			}
		}()
	}
	wg.Wait()
	var out []Verdict
	for _, vs := range results {
		out = append(out, vs...)
	}
	if ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	return out, errors.Join(errs...)
}

func sessionLine(version string, s Session, vs []Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %dx%d", version, s.Name, s.Cols, s.Rows)
	if s.Terminal {
		b.WriteString(" on a terminal")
	}
	if s.Fullscreen {
		b.WriteString(", fullscreen")
	}
	if s.Theme != "" {
		b.WriteString(", theme " + s.Theme)
	}
	if s.Vim {
		b.WriteString(", vim")
	}
	b.WriteString(":")
	for _, v := range vs {
		fmt.Fprintf(&b, " %s", v.Outcome)
		if v.Outcome != Right && v.Outcome != NotAsked {
			fmt.Fprintf(&b, " (%s: %s)", v.Case, v.Detail)
		}
	}
	if len(vs) > 0 && vs[0].Dir != "" {
		fmt.Fprintf(&b, " [%s]", vs[0].Dir)
	}
	return b.String()
}

// sessionTimeout bounds one session: Claude's start, then each form.
func sessionTimeout(s Session) time.Duration {
	return 60*time.Second + time.Duration(len(s.Cases))*45*time.Second
}

// runSession runs one session and judges its cases. An error means the
// harness itself could not run it (no verdicts are then made up).
func runSession(ctx context.Context, cfg Config, version string, s Session) ([]Verdict, error) {
	claude, err := cfg.Claude(version)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cfg.Dir, version, s.Name)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	home, project, state := filepath.Join(dir, "home"), filepath.Join(dir, "project"), filepath.Join(dir, "state")
	outside := filepath.Join(dir, "outside")
	for _, d := range []string{home, project, state, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	// The project is a repository of its own: Claude takes the enclosing
	// repository's root (the main worktree's, for a worktree) as the
	// project whose .claude/settings.local.json a "don't ask again"
	// answer writes, and every later session would read it.
	if out, err := exec.Command("git", "init", "-q", project).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git init %s: %v: %s", project, err, out)
	}
	s = s.resolved(project, outside)
	for p, body := range s.Files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	sc, err := s.Scenario()
	if err != nil {
		return nil, err
	}
	rulesYAML, err := s.Rules()
	if err != nil {
		return nil, err
	}
	start, elicit := s.start(), s.elicit()
	trusted := project
	if start != nil && start.Kind == startTrust {
		trusted = filepath.Join(dir, "elsewhere") // Claude asks to trust the project
	}
	if err := claudetest.Seed(home, trusted); err != nil {
		return nil, err
	}
	if s.Fullscreen {
		if err := claudetest.Fullscreen(home); err != nil {
			return nil, err
		}
	}
	config := map[string]any{}
	if s.Theme != "" {
		config["theme"] = s.Theme
	}
	if s.Vim {
		config["editorMode"] = "vim"
	}
	if len(config) > 0 {
		if err := claudetest.Configure(home, config); err != nil {
			return nil, err
		}
	}
	rulesPath := filepath.Join(dir, "rules.yaml")
	if start != nil && start.By == byFolder {
		// The folder's own file, which the person has not allowed.
		rulesPath = filepath.Join(project, ".claudewrap.yaml")
	}
	if err := os.WriteFile(rulesPath, rulesYAML, 0o644); err != nil {
		return nil, err
	}
	api, err := fakeapi.Start(sc)
	if err != nil {
		return nil, err
	}
	defer api.Close()

	rctx, cancel := context.WithTimeout(ctx, sessionTimeout(s))
	defer cancel()
	eventsPath := filepath.Join(dir, "events.jsonl")
	args := []string{"run", "--claude", claude, "--events", eventsPath,
		"--record", filepath.Join(dir, "run.cast"), "--exit-after-turn"}
	if start == nil || start.By != byFolder {
		args = append(args, "--rules", rulesPath)
	}
	if start != nil && start.By == byFlag {
		args = append(args, "--trust")
	}
	if !s.Terminal {
		args = append(args, "--headless", "--size", fmt.Sprintf("%dx%d", s.Cols, s.Rows))
	}
	if cfg.AnswerVia != "" {
		args = append(args, "--answer-via", cfg.AnswerVia)
	}
	args = append(args, "--")
	if s.Mode != "" {
		args = append(args, "--permission-mode", s.Mode)
	}
	// The prompt goes before the flags that take several values.
	args = append(args, s.Prompt)
	env := append(claudetest.Env(home, api.URL()), "XDG_STATE_HOME="+state)
	if start != nil && start.Kind == startBypass {
		args = append(args, "--dangerously-skip-permissions")
		env = append(env, "IS_SANDBOX=1") // root may take it only in a sandbox
	}
	mcpLog := filepath.Join(dir, "mcp.jsonl")
	if elicit != nil {
		mcp, err := elicit.config(cfg.MCPDemo, mcpLog)
		if err != nil {
			return nil, err
		}
		args = append(args, "--mcp-config", mcp)
	}
	cmd := exec.CommandContext(rctx, cfg.Claudewrap, args...)
	cmd.Env = env
	cmd.Dir = project
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var term *terminal
	if s.Terminal {
		if term, err = openTerminal(s.Cols, s.Rows, filepath.Join(dir, "terminal.out"), s.Replies, s.Cut); err != nil {
			return nil, err
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = term.tty, term.tty, term.tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	}
	runErr := cmd.Start()
	if term != nil {
		term.started()
		if s.Pointer && runErr == nil {
			term.point()
		}
	}
	if runErr == nil {
		if term != nil {
			cases := map[string]Case{}
			for _, c := range s.Cases {
				cases[c.ID] = c
			}
			// A form handed to the person waits for someone who never comes.
			term.follow(eventsPath, cases, func() { cmd.Process.Signal(syscall.SIGTERM) })
		}
		runErr = cmd.Wait()
	}
	exit := cmd.ProcessState.ExitCode()
	// The person's ← may have moved Claude's conversation to the
	// background, into a daemon claudewrap ends with the run on Linux:
	// what is left all the same is killed (see claudetest.KillStrays).
	strays := claudetest.KillStrays(home)
	timedOut := rctx.Err() != nil && ctx.Err() == nil
	note := fmt.Sprintf("claudewrap exit %d", exit)
	if timedOut {
		note = fmt.Sprintf("the session did not end within %v", sessionTimeout(s))
	} else if runErr != nil && exit < 0 {
		note = "claudewrap: " + runErr.Error()
	}
	if strays > 0 {
		note += fmt.Sprintf("; %d processes Claude left running killed (its background daemon)", strays)
	}
	var end terminalEnd
	if term != nil {
		end = term.close(filepath.Join(dir, "resizes.txt"))
		if end.last != "" {
			note += "; on the terminal: " + end.last
		}
		if reason, ok := end.handed[""]; ok {
			note += "; handed to the person: " + reason
		}
	} else {
		if st := strings.TrimSpace(stderr.String()); st != "" {
			note += "; stderr: " + lastLine(st)
		}
		_ = os.WriteFile(filepath.Join(dir, "stderr.txt"), stderr.Bytes(), 0o644)
	}

	// What reached the API, else what Claude wrote in its transcript: after
	// Esc the turn stops, and the tool_result is only in the transcript.
	results := transcriptResults(home)
	for _, r := range api.ToolResults() {
		results[r.ToolUseID] = r
	}
	reqs := api.Requests()
	sent := false
	for _, r := range reqs {
		sent = sent || strings.Contains(r.Text, s.Prompt)
	}
	served, _ := os.ReadFile(mcpLog)
	var vs []Verdict
	allRight := true
	for k, c := range s.Cases {
		v := Verdict{Version: version, Session: s.Name, Case: c.ID, Cols: s.Cols, Rows: s.Rows, Classes: c.Classes,
			Resized: end.landed[c.ID], Replied: end.replied[c.ID]}
		if cfg.AnswerVia == "hook" {
			// No key is pressed, and resizes and the person's key wait
			// for a form's first key.
			v.Classes = slices.DeleteFunc(slices.Clone(c.Classes), func(cl string) bool {
				return cl == "resized" || cl == "person" || cl == "person-esc"
			})
		}
		asked, seq := false, 0
		for _, r := range reqs {
			if askedBy(r.Reply, c.ID) {
				asked, seq = true, r.Seq
				break
			}
		}
		var later []string
		for _, r := range reqs {
			if r.Seq > seq {
				later = append(later, r.Text)
			}
		}
		res, ok := results[c.ID]
		v.Dialog = c.Dialog != nil
		switch {
		case c.Dialog != nil && c.Dialog.Start != nil:
			// Drawn before the prompt, whatever comes after.
			v.Outcome, v.Detail = judgeStart(*c.Dialog.Start, sent, startRecorded(*c.Dialog.Start, home, project), exit, !timedOut)
			if v.Outcome != Right {
				v.Detail += "; " + note
			}
		case !asked && k == 0:
			// The prompt always brings the first form: not seeing it is
			// a failure (claudewrap refused the rules, Claude never started).
			v.Outcome, v.Detail = Failed, "the first form was never asked; "+note
		case !asked:
			v.Outcome, v.Detail = NotAsked, "an earlier form ended the session"
		case c.Dialog != nil && c.Dialog.Elicit != nil:
			v.Outcome, v.Detail = judgeElicit(*c.Dialog.Elicit, served, exit, !timedOut)
			v.ToolResult, v.IsError = res.Content, res.IsError
			if v.Outcome != Right {
				v.Detail += "; " + note
			}
		case c.Dialog != nil && !ok:
			v.Outcome, v.Detail = judgeDialog(c, nil, !timedOut)
			if v.Outcome != Right {
				v.Detail += "; " + note
			}
		case c.Dialog != nil:
			v.Outcome, v.Detail = judgeDialog(c, &res, !timedOut)
			v.ToolResult, v.IsError = res.Content, res.IsError
			if v.Outcome == Right && timedOut && k == len(s.Cases)-1 {
				// A headless run must end by itself after its last dialog.
				v.Outcome, v.Detail = Failed, "recorded as intended, but the run did not end by itself"
			}
			if v.Outcome != Right {
				v.Detail += "; " + note
			}
		case !ok:
			v.Outcome, v.Detail = judge(c, nil, later)
			v.Detail += "; " + note
		default:
			v.Outcome, v.Detail = judge(c, &res, later)
			v.ToolResult, v.IsError = res.Content, res.IsError
			if v.Outcome != Right {
				v.Detail += "; " + note
			}
		}
		if reason, ok := end.handed[c.ID]; ok {
			v.handedOver(reason, note, end.afterKey[c.ID])
		}
		v.personEsc(end)
		vs = append(vs, v)
	}
	endedForThem(s.Cases, vs, end)
	for _, v := range vs {
		if v.Outcome != Right && v.Outcome != NotAsked {
			allRight = false
		}
	}
	if allRight && !cfg.Keep {
		return vs, os.RemoveAll(dir)
	}
	for i := range vs {
		vs[i].Dir = dir
	}
	return vs, nil
}

func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	return lines[len(lines)-1]
}

// transcriptResults reads the tool_results Claude wrote to its transcripts
// under home (~/.claude/projects/*/*.jsonl).
func transcriptResults(home string) map[string]fakeapi.ToolResult {
	out := map[string]fakeapi.ToolResult{}
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	for _, f := range files {
		_, results := transcript.Read(f)
		for id, r := range results {
			if _, seen := out[id]; !seen {
				out[id] = fakeapi.ToolResult{ToolUseID: id, Content: r.Content, IsError: r.IsError}
			}
		}
	}
	return out
}

// handedOver judges a form claudewrap handed to the person: not answered
// by claudewrap, whatever Claude recorded after the harness ended the run
// (a wrong answer stays wrong). A form handed over because the person
// typed, after the harness pressed their key while it was asked (typed;
// Case.Person), is theirs, as it should be: right if Claude recorded
// claudewrap's answer (its key went before theirs), left to them if Claude
// recorded nothing (or the chat claudewrap chose, without the message); a
// wrong answer stays wrong, and anything else recorded (a cancel: nobody
// pressed Esc) a failure. So is a form asked just after their Esc and
// handed over for it (escAsked; typed when asked within escWindow).
// When their key was Esc, Claude may have recorded the cancel: personEsc
// judges that.
func (v *Verdict) handedOver(reason, note string, typed bool) {
	if v.Outcome == NotAsked {
		return
	}
	if typed && (reason == personTyped || reason == escAsked || strings.HasPrefix(reason, movedAway)) {
		switch {
		case v.Outcome == Right:
			v.Detail = "handed to the person, who typed, after claudewrap's answer went"
		case v.Outcome == Failed && (v.ToolResult == "" || strings.HasPrefix(v.Detail, chatNotSent)):
			// A chat claudewrap chose before they typed is recorded;
			// its message, which would go on their prompt, is not sent.
			v.Outcome, v.Detail = Theirs, "handed to the person, who typed; "+v.Detail
		default:
			v.Detail = "handed to the person, who typed; " + v.Detail
		}
		return
	}
	if v.Outcome == Right {
		v.Outcome, v.Detail = Failed, note
	}
	v.Detail = "handed to the person (" + reason + "); " + v.Detail
}

// endedForThem judges the forms the run's end for the person, who typed,
// left without a record; vs holds cases' verdicts. The harness ends the
// run once a form is handed to them (nobody comes), and:
//   - Claude sends the records of two forms asked together in one request,
//     once both are done: a form asked with one left to them cannot reach
//     the API. Not handed over, nothing recorded, and asked when they typed
//     (end.atKey), it is theirs too;
//   - a form asked after they typed (not in end.atKey), not handed over,
//     with nothing recorded, was cut short by that end (Claude killed
//     before it showed, or while it was answered): not judged (NotAsked).
//
// A form handed over for another reason, or with a record, is left as
// judged.
func endedForThem(cases []Case, vs []Verdict, end terminalEnd) {
	ended := false
	for _, after := range end.afterKey {
		ended = ended || after
	}
	if !ended {
		return
	}
	for k := range vs {
		if v := &vs[k]; v.Outcome == Failed && v.ToolResult == "" && !end.atKey[v.Case] && end.handed[v.Case] == "" {
			v.Outcome = NotAsked
			v.Detail = "asked after the person typed: the run ended for them first; " + v.Detail
		}
	}
	for k := range vs {
		var partner *Verdict
		if cases[k].Together {
			partner = &vs[k-1]
		} else if k+1 < len(vs) && cases[k+1].Together {
			partner = &vs[k+1]
		}
		if v := &vs[k]; partner != nil && partner.Outcome == Theirs && v.Outcome == Failed && v.ToolResult == "" &&
			end.atKey[v.Case] && end.handed[v.Case] == "" {
			v.Outcome = Theirs
			v.Detail = "asked with a form left to the person, who typed: its record waits for that form's; " + v.Detail
		}
	}
}

// personEsc judges a form against claudewrap's report of the person's Esc
// (Case.Person's key, when it is Esc), which cancels a form in Claude's
// menu: claudewrap must report "cancelled" by the person exactly for a
// form it handed to them as they typed (or asked just after their Esc)
// whose record is Claude's cancel.
//   - Reported, but Claude recorded no cancel (answers, a chat, nothing):
//     failed, a false report (a wrong answer stays wrong).
//   - A cancel recorded for a form handed over as they typed, that
//     claudewrap did not end itself (its own Esc, or a chat): theirs if
//     reported, else failed.
//   - A form claudewrap never saw asked (no question event, not asked when
//     they pressed it, not handed over), with Claude's error or nothing
//     recorded: the Esc stopped the turn first; not judged (NotAsked).
//   - A cancel recorded for a form asked when they pressed it that
//     claudewrap answered (not handed over, no Esc of its own): their Esc
//     came as Claude recorded the answer and undid it; theirs if reported
//     so (escRecorded; claudewrap reports a mismatch instead when the
//     hook's answers were not its own).
//
// Anything else stays as judged: another error recorded (a partner asked
// with the form) is a failure until it is known what Claude records.
func (v *Verdict) personEsc(end terminalEnd) {
	id := v.Case
	reported := end.personCancelled[id]
	cancel := v.IsError && strings.Contains(v.ToolResult, cancelledText)
	typed := (end.handed[id] == personTyped || end.handed[id] == escAsked) && end.afterKey[id]
	switch {
	case reported && !cancel && v.Outcome != Wrong:
		v.Outcome, v.Detail = Failed, "claudewrap reported the person's cancel, but Claude recorded "+
			firstOf(v.ToolResult, "nothing")+"; "+v.Detail
	case !end.esc || v.Outcome != Failed:
	case end.handed[id] == "" && !end.atKey[id] && !end.questioned[id]:
		v.Outcome, v.Detail = NotAsked, "claudewrap never saw it asked: the person's Esc stopped the turn first; "+v.Detail
	case cancel && reported && end.undone[id] && end.handed[id] == "" && end.atKey[id] && !end.own[id]:
		v.Outcome, v.Detail = Theirs, "the person's Esc undid claudewrap's answer as Claude recorded it, and reported so; "+v.Detail
	case !cancel || !typed:
	case end.own[id]:
		v.Detail = "claudewrap ended the form itself (Esc or a chat) as the person pressed Esc; " + v.Detail
	case reported:
		v.Outcome, v.Detail = Theirs, "cancelled by the person's Esc, and reported so; "+v.Detail
	default:
		v.Detail = "the person's Esc cancelled the form, and claudewrap did not report it; " + v.Detail
	}
}

// personTyped is claudewrap's reason for a form it handed over as the
// person typed, escAsked for one asked just after their Esc; movedAway
// begins its reason for one it handed over as Claude's sessions view
// showed instead (their ← at Claude's prompt moved the conversation to
// the background).
const (
	personTyped = "the person typed"
	escAsked    = "the person pressed Esc as Claude asked it"
	escRecorded = "the person pressed Esc as Claude recorded it"
	movedAway   = "Claude's conversation is in the background"
)
