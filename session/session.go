package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/bundle"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
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

// Child is Claude running in its terminal, as a session sees it:
// *ptyhost.Host is one, and the tests' fake Claude another.
type Child interface {
	// Screen is the emulated copy of Claude's screen.
	Screen() vt.Emulator
	SendKeys(p []byte) error
	// Redraw has Claude draw its whole screen again.
	Redraw() error
	// SetRows makes the terminal rows tall and waits for Claude's redraw
	// (headless only: see askflow.Grower).
	SetRows(rows int) error
	Signal(sig os.Signal) error
	// Done is closed when Claude has exited; Wait then says how.
	Done() <-chan struct{}
	Wait() (ptyhost.Status, error)
}

var _ Child = (*ptyhost.Host)(nil)

// Config is one session.
type Config struct {
	// Host describes Claude and the terminal; Args are Claude's own
	// arguments. Run adds --settings with claudewrap's hooks, and the
	// emulator of Claude's screens (screen.NewFunc) unless it names one.
	Host ptyhost.Config
	// Version is Claude Code's version; "" reads it from its install
	// (InstalledVersion).
	Version string
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

	// Permits decides tools' permission requests and plan approval (the
	// rules' permissions:); nil decides none.
	Permits Permitter
	// AnswersDialogs says the permission rules allow, ask or select: they
	// act only on the dialogs Claude shows, which is said when Claude's
	// mode shows none (noteMode).
	AnswersDialogs bool
	// Elicits answers MCP servers' input forms (the rules'
	// elicitations:); nil answers none.
	Elicits Eliciter
	// Unsupported says why the Claude Code run is one claudewrap does not
	// support (older than OldestSupported); its forms are then left to
	// the person, and a headless run ends at the first. "" when supported.
	Unsupported string
	// Reach, if set, is another way answers from elsewhere reach the run
	// besides its local socket (Remote must be set too).
	Reach Reach
	// Dialogs are the rules' answers to dialogs that are no tool's (auto
	// mode's check, the API key question, a project's MCP servers); nil
	// answers none.
	Dialogs DialogRules
	// StillAllowed, if set, says whether the programs of the folder's
	// rules files in force are still those allowed with them; it is asked
	// before each of them runs (a rule's exec, the notify command).
	StillAllowed func() error
	// AnswersFromRuns lets the processes of other runs' Claude read and
	// answer this run's forms (an orchestrator); this run's own Claude may
	// never.
	AnswersFromRuns bool
	// Gate has every tool's PreToolUse decided by the permission rules'
	// deny and fail decisions (decideTool, gate.go), in every permission mode.
	Gate bool
	// Trust, when set, answers Claude's folder trust dialog "Yes", and says
	// who said to ("--trust", or the rules file that does).
	Trust string
	// Bypass, when set, answers the confirmation of Claude's
	// --dangerously-skip-permissions "Yes, I accept", once and only before
	// Claude's session started (where Claude shows it), and says who said
	// to: the rules file that does. Nothing sets it by default.
	Bypass string
	// DialogGrace is how long a headless run lets a dialog nobody answers
	// stay before it is reported blocked (default 3s); IdleLimit how long
	// Claude's screen may stay unchanged with no question open, and about
	// how long a form given up on before it showed may go unseen on a
	// screen that keeps changing (default 10m; negative: no limit, which
	// turns off the check that Claude started its session too).
	DialogGrace time.Duration
	IdleLimit   time.Duration

	Log           *events.Log
	ExitAfterTurn bool
	DryRun        bool

	// Flow tunes askflow's timeouts; zero values take its defaults.
	Flow askflow.Config

	// Bundles is the folder bug-report bundles go in when a form could not
	// be answered (see package bundle); "" writes none.
	Bundles string
	// Remote lists the session for claudewrap pending and answer (package
	// remote); Cwd is the folder it names.
	Remote bool
	Cwd    string
	// Notify is a shell command run with a form as JSON on stdin when it
	// starts to wait for a person (--notify); SessionName names the
	// session in that JSON.
	Notify      string
	SessionName string
	// AnswerVia is how decided answers reach Claude: AnswerViaScreen (the
	// default) or AnswerViaHook.
	AnswerVia string

	// Started, if set, is called once Claude runs, with the host and the
	// hook socket's path. WrapKeys, if set, wraps the key sender askflow
	// uses. Both are seams for fault-injection tests.
	Started  func(h *ptyhost.Host, socket string)
	WrapKeys func(askflow.Keys) askflow.Keys
}

// Report is how a session ended; the exit status is made from it (see
// [Report.Exit]).
type Report struct {
	Claude     ptyhost.Status
	Unmatched  bool // a question went unanswered under the fail policy
	Navigation bool // the screen did not confirm a step
	Mismatch   bool // Claude recorded something other than intended
	Ended      bool // claudewrap ended Claude itself (--exit-after-turn)
	// EndedWhy is why claudewrap ended Claude, when not at the end of its
	// turn.
	EndedWhy string
	// TurnFailed is Claude's turn ended in an error, with Claude's words,
	// which ended a run that ends with its turn (exit 1).
	TurnFailed string
	// LastScreen is the last lines Claude's screen showed when it ended by
	// itself in error, or before its session started (escaped): its own
	// words for why.
	LastScreen []string
	// Interrupted: the person pressed Ctrl-C (at claudewrap's prompt, or
	// sent SIGINT); the run exits 130.
	Interrupted bool
	// Blocked says why the run could not go on: a dialog nobody answers
	// (headless), a screen waiting for input for ever, a rule that fails
	// the run. Claude was ended.
	Blocked string
	// Failures has one line per form that could not be answered, naming
	// its bug-report bundle.
	Failures []string
	// Why is the first reason for each of claudewrap's own outcomes (exit
	// 4, 5, 6), the one line said on stderr.
	Why map[ExitCode]string
}

// session is one run's shared state. The jobs live in their own files:
// decide.go (rules, the person, the fallback), drive.go (askflow),
// verify.go (Claude's record), turn.go (the end of Claude's turn, chat),
// watch.go (the person typing, forms with no hook); form.go holds a form's
// life.
type session struct {
	cfg   Config
	child Child
	// version is Claude Code's, from its install ("" when not known): it
	// decides whether the pointer moving is the person's (screen.Typed).
	version string
	// keys sends claudewrap's keys (see keyboard); out is Claude's own
	// key input beneath it.
	keys askflow.Keys
	out  askflow.Keys
	log  *events.Log
	rec  *bundle.Recorder // the screen so far, for bug reports; may be nil
	// ctx ends when Claude has exited or the caller's context ended.
	ctx context.Context
	// killGrace is how long Claude has to end after SIGTERM when the
	// caller's context ended, before it is killed.
	killGrace time.Duration
	// recordGrace is how long Claude may take to record a submitted form
	// (the constant; tests make it shorter).
	recordGrace time.Duration
	// hookGrace is how long a form may show before its PreToolUse
	// arrives (the constant; tests make it shorter).
	hookGrace time.Duration
	// flow answers a form on Claude's screen: askflow.Run, or in the
	// form-life scripts a stand-in whose results the script gives.
	flow func(context.Context, askflow.Config) (askflow.Result, error)
	// onMove, if set, is told each move a form makes as it makes it (on
	// the loop, so it must not wait on it): the form-life scripts' record.
	onMove func(id string, from, to state)
	// remindEvery is how often a form waiting for an answer from
	// elsewhere is said again (remindEvery; tests make it shorter).
	remindEvery time.Duration
	// startLimit and startQuiet are the start watchdog's (the constants;
	// tests make them shorter).
	startLimit, startQuiet time.Duration
	// followed is the Claude session this run follows and its transcript
	// (see ours): set by the hook reader alone, read anywhere as one value.
	followed atomic.Pointer[claudeSession]
	// reader is the hook reader's own: serve's goroutine, which reads
	// Claude's hook messages in order (handle and what it calls).
	reader hookReader
	// hooked: a hook message of Claude's came, or its SessionStart: its
	// session started. Set once, read anywhere.
	hooked atomic.Bool
	// trusted and bypassed: the trust dialog was answered, the bypass
	// confirmation accepted. The screen watcher's own (see dialogWatch):
	// only it answers those dialogs.
	trusted, bypassed bool

	// What follows, up to work, is read and changed only on the conductor's
	// loop (see conductor.do); a function named ...OnLoop runs there.
	forms map[string]*form
	seq   int // forms registered so far
	// dialogs counts the dialog events so far (a permission request by
	// hook, a new dialog seen on the screen; one dialog may count twice):
	// only its changes matter (see nothingElseOpen).
	dialogs int
	// elicitations counts MCP servers' input forms asked; elicitHook is
	// when a rule last answered one through the hook.
	elicitations int
	elicitHook   time.Time
	// elicitDrive is the MCP form being answered on the screen, until
	// Claude reports its result; elicitCancel stops askflow when the
	// person types.
	elicitDrive  *elicitDrive
	elicitCancel context.CancelFunc
	elicitResult time.Time // when Claude last reported an MCP form answered
	// elicitWait is the MCP form no rule answers that waits for an answer
	// from anywhere (the wait policy; elicitwait.go).
	elicitWait *elicitWait
	// changed is closed and replaced (changedOnLoop) whenever a form is
	// asked, changes state, is forgotten or its PostToolUse comes, and when
	// the turn ends: what waits on the forms or the turn (a form for its
	// turn, the form watcher for a hook, a look for a form) wakes on it.
	changed chan struct{}
	chat    string // a message to send when the turn ends ("Chat about this")
	said    string // the last chat message sent (askflow.Message's left)
	// chatFrom is the form whose "Chat about this" s.chat follows, for a
	// bug report if the message cannot be sent; chatAt is when its drive
	// was queued: a key of the person's since makes the prompt theirs.
	chatFrom *form
	chatAt   time.Time
	lastKey  *inflight // the last key claudewrap sent (inflight.go)
	// lastInput is when the person last typed, for the passthrough timeout;
	// lastEsc whether that key was Esc alone (see start).
	lastInput time.Time
	lastEsc   bool
	// lastSent is when claudewrap last sent a key (see keyTime).
	lastSent time.Time
	lastPre  time.Time // when the last PreToolUse arrived
	// stopDeferred is a Stop that came while a form was open, and the
	// transcript it is to be checked against (see stop); lastTurn is the
	// message that ended the last turn a Stop applied to.
	stopDeferred     bool
	stopDeferredPath string
	lastTurn         string
	turns            int       // Stop hooks applied (turn_end): a turn over ends cancelOnSight
	lastStopAt       time.Time // when the last Stop hook was applied
	// choice is a permission decision waiting for its dialog to show (see
	// dialogs.go); dialogCancel stops the dialog being answered when the
	// person types.
	choice       *screenChoice
	dialogCancel context.CancelFunc
	// messageCancel stops the chat message being typed when the person
	// types (see message).
	messageCancel context.CancelFunc
	// perms are the permission answers not yet found in Claude's
	// transcript, claimed the tool_use ids already matched to one (see
	// permcheck.go).
	perms   []*permCheck
	claimed map[string]bool
	// preSeen are the tool calls whose PreToolUse reached claudewrap
	// (ungated.go).
	preSeen map[string]bool
	// reachChanged is Config.Reach's, told when what waits may change.
	reachChanged func()
	// refusal is why the last hook message was refused (too long, not
	// Claude's), said when a form shows without its hook.
	refusal string
	// finished remembers the ids of the last forms done with (bounded), so
	// that a whole day's forms do not pile up in forms.
	finished  map[string]bool
	finishedQ []string

	work sync.WaitGroup // goroutines deciding, answering or verifying forms
	// workDone: Claude has exited and Run waits for work; nothing from
	// outside may start more (enterWork).
	workDone bool

	// loop is the conductor, which owns the key lease (see lease) and the
	// answers from elsewhere waiting for their form's outcome (remote.go).
	loop *conductor
	reg  *remote.Registration
	// served is closed once Claude has exited and the work for its forms
	// is done: no outcome comes after it.
	served chan struct{}
}

func newSession(cfg Config) *session {
	if cfg.Log == nil {
		cfg.Log = events.New(nil)
	}
	s := &session{cfg: cfg, log: cfg.Log, forms: map[string]*form{}, finished: map[string]bool{},
		changed: make(chan struct{}), served: make(chan struct{}), killGrace: killGrace, recordGrace: recordGrace, hookGrace: hookGrace,
		startLimit: startLimit, startQuiet: startQuiet, flow: askflow.Run}
	s.loop = newConductor(s)
	return s
}

// Run starts Claude, answers its forms until it exits, and reports.
func Run(ctx context.Context, cfg Config) (Report, error) {
	srv, err := hook.Listen()
	if err != nil {
		return Report{}, err
	}
	defer srv.Close()
	s := newSession(cfg)

	hc := cfg.Host
	version := cfg.Version
	if version == "" {
		version = InstalledVersion(hc.Path)
	}
	s.version = version
	if hc.Screen == nil {
		hc.Screen = screen.NewFunc(version)
	}
	env := hc.Env
	if env == nil {
		env = os.Environ()
	}
	opts := hook.Options{Gate: cfg.Gate, Env: hook.OwnEnv(env)}
	if cfg.AnswerVia == AnswerViaHook {
		srv.ReplyToQuestions(hookWait)
		opts.Wait = hookWait
	}
	settings := hook.SettingsWith(hook.Exe(cfg.Exe), srv.Path(), opts)
	hc.Args, err = hook.WithSettings(hc.Args, settings, srv.Dir())
	if err != nil {
		return Report{}, err
	}
	s.rec = bundle.NewRecorder(hc.Cols, hc.Rows, recordLimit, version)
	hc.Tap = tee{hc.Tap, s.rec}
	userInput := hc.OnInput
	hc.OnInput = func(p []byte) {
		s.input(p)
		if userInput != nil {
			userInput(p)
		}
	}
	h, err := ptyhost.Start(hc)
	if err != nil {
		return Report{}, err
	}
	s.rec.SetScreen(h.Screen().Snapshot)
	keys := askflow.Keys(h)
	if cfg.WrapKeys != nil {
		keys = cfg.WrapKeys(h)
	}
	if cfg.Started != nil {
		cfg.Started(h, srv.Path())
	}
	return s.serve(ctx, h, keys, srv.Messages())
}

// serve answers the forms of a running Claude, as its hook messages
// arrive, until it exits.
func (s *session) serve(ctx context.Context, child Child, keys askflow.Keys, msgs <-chan hook.Message) (Report, error) {
	s.child, s.out = child, keys
	s.keys = keyboard{s: s}
	s.loop.start()
	defer s.loop.stop()
	unregister := s.registerRemote()
	defer unregister()
	// Work for forms ends with Claude: a prompt or askflow still running
	// when Claude exits is stopped, and its events come before Run returns.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s.ctx = ctx
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		s.watchScreen(ctx)
	}()
	// When the caller's context ends, Claude is asked to go (killed if it
	// does not); forms asked meanwhile get the ended context and stop at
	// once.
	ended := ctx.Done()
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				msgs = nil
				continue
			}
			s.handle(m)
		case <-child.Done():
			stop()
			s.loop.do(func() { s.workDone = true })
			s.work.Wait()
			s.loop.sync() // every outcome said is told before served says none comes
			close(s.served)
			s.checkPermissions(ctx, true)
			st, err := child.Wait()
			rep := s.loop.readReport()
			rep.Claude = st
			hooked := s.hooked.Load()
			if !rep.Ended && rep.Blocked == "" && !rep.Interrupted && rep.TurnFailed == "" && (st.Code != 0 || st.Signal != 0 || !hooked) {
				// Claude ended by itself in error, or before its session
				// started: its own words are on its screen.
				rep.LastScreen = lastLines(child.Screen().Snapshot(), lastScreenLines)
			}
			if i, ok := child.(interface{ Interrupted() bool }); ok && i.Interrupted() {
				rep.Interrupted = true // Ctrl-C (SIGINT) ended Claude
			}
			return rep, err
		case <-ended:
			ended = nil
			_ = child.Signal(syscall.SIGTERM)
			kill := time.AfterFunc(s.killGrace, func() { _ = child.Signal(syscall.SIGKILL) })
			defer kill.Stop()
		}
	}
}

// lastScreenLines bounds the lines of Claude's last screen a report keeps.
const lastScreenLines = 8

// lastLines is the last n lines of the screen that hold text, escaped,
// with the space at their right cut.
func lastLines(snap vt.Snapshot, n int) []string {
	var out []string
	for _, l := range strings.Split(snap.Text(), "\n") {
		if l = strings.TrimRight(l, " "); strings.TrimSpace(l) != "" {
			out = append(out, safe.Line(l))
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// DialogRules are the rules' answers to dialogs that are no tool's, each
// with the file that says so (rules.Set).
type DialogRules interface {
	AutoMode() (answer, file string)
	APIKey() (answer, file string)
	MCPServer(name string) (file string)
}

// hookRefused: claudewrap refused a hook message, for why (see formWatch).
type hookRefused struct{ why string }

// killGrace is how long Claude has to end after SIGTERM when the caller's
// context ended, before it is killed.
const killGrace = 5 * time.Second

func (s *session) handle(m hook.Message) {
	if m.Err != nil {
		s.say("error", events.Fields{"message": m.Err.Error()})
		s.loop.send(hookRefused{m.Err.Error()})
		return
	}
	p := m.Payload
	if p.HookEventName == hook.PreToolUse && p.ToolUseID != "" {
		s.loop.send(preCame{p.ToolUseID})
	}
	if p.Gated() {
		s.decideTool(m)
		return
	}
	if p.Ran() {
		s.toolRan(p)
		return
	}
	ours := s.ours(p)
	// ours handles a SessionStart and does not pass it on: one that names
	// the pinned session is Claude's session started all the same, for
	// the start watchdog (see dialogWatch).
	started := p.HookEventName == hook.SessionStart && s.pinned(p.SessionID)
	if ours || started {
		s.noteMode(p.PermissionMode)
	}
	if started {
		s.started()
	}
	if !ours {
		if p.HookEventName == hook.SessionStart && s.reg != nil {
			s.reg.Refresh() // the session is named by Claude's id too
		}
		if m.Reply != nil {
			m.Reply(nil) // its hook goes at once, rather than when its wait runs out
		}
		return
	}
	s.started()
	switch p.HookEventName {
	case hook.PreToolUse:
		s.loop.send(formAsked{newForm(p, m.Reply)})
	case hook.PostToolUse:
		s.loop.send(formPosted{p})
	case hook.Stop:
		s.loop.send(stopCame{s.stopPath(p)})
	case hook.StopFailure:
		s.turnFailed(p)
	case hook.PermissionRequest:
		s.permission(m)
	case hook.Elicitation:
		s.elicitation(m)
	case hook.ElicitationResult:
		s.elicitationResult(p)
	}
}

// enterWork counts work begun outside the session's own goroutines (an
// answer from elsewhere) as work Run waits for, and reports false once
// Claude has exited and Run no longer waits: a WaitGroup's Add must not
// race its Wait.
func (s *session) enterWork() (r bool) {
	s.loop.do(func() { r = s.enterWorkOnLoop() })
	return r
}

func (s *session) enterWorkOnLoop() bool {
	if s.workDone {
		return false
	}
	s.work.Add(1)
	return true
}

// goWorkOnLoop is goWork for the loop: it starts nothing once Claude has
// exited and Run waits for the work (see enterWork).
func (s *session) goWorkOnLoop(fn func()) {
	if !s.workDone {
		s.goWork(fn)
	}
}

// goWork runs fn on its own goroutine, one Run waits for.
func (s *session) goWork(fn func()) {
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		fn()
	}()
}

// flag sets one of the report's outcomes. The report is the conductor's:
// the change is one of its events, made in the order sent.
func (s *session) flag(set func(r *Report)) { s.loop.send(reportChange(set)) }

// because sets the outcome code with its reason; the first reason of each
// outcome is kept.
func (s *session) because(code ExitCode, reason string) {
	s.flag(func(r *Report) { r.because(code, reason) })
}

func (r *Report) because(code ExitCode, reason string) {
	switch code {
	case ExitUnmatched:
		r.Unmatched = true
	case ExitNavigation:
		r.Navigation = true
	case ExitMismatch:
		r.Mismatch = true
	}
	if r.Why == nil {
		r.Why = map[ExitCode]string{}
	}
	if r.Why[code] == "" {
		r.Why[code] = reason
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
