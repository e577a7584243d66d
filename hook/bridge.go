package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/claudewrap/claudewrap/internal/peercred"
)

// MaxMessage bounds one hook message; larger ones are refused unread.
const MaxMessage = 4 << 20

// readTimeout bounds how long a connection may take to deliver its message.
const readTimeout = 5 * time.Second

// Message is what the server delivers: a valid payload, or the reason a
// connection was refused.
type Message struct {
	Payload *Payload
	Err     error
	// Reply, set for a PermissionRequest, an Elicitation, and for a question's PreToolUse
	// when ReplyToQuestions asked it to wait, sends the hook's output (what
	// the hook command prints for Claude; nil or empty: no decision, Claude
	// draws its dialog or form). Call it once: the hook waits for it at most
	// ReplyTimeout (a question's PreToolUse: see ReplyToQuestions), then
	// Claude goes on as if nothing was said. It reports whether the hook
	// still waits to read it.
	Reply func(out []byte) bool
}

// ReplyToQuestions has AskUserQuestion's PreToolUse wait up to d for the
// wrapper's reply (the hook answer strategy); 0, the default, acknowledges
// it at once.
func (s *Server) ReplyToQuestions(d time.Duration) { s.questionWait.Store(int64(d)) }

// QuestionWait is how long a question's PreToolUse hook waits for the
// wrapper's answers under the hook answer strategy (the wrapper's --wait),
// and the longest any wrapper asks for.
const QuestionWait = 60 * time.Second

// ReplyTimeout bounds how long a PermissionRequest hook waits for the
// wrapper's decision. Rules decide at once; past it, Claude draws its
// dialog and the screen takes over.
const ReplyTimeout = 2 * time.Second

// Server listens for hook messages on a Unix socket in a private directory.
type Server struct {
	dir  string
	path string
	// questionWait is how long a question's PreToolUse waits for a reply
	// (ReplyToQuestions), as a time.Duration.
	questionWait atomic.Int64
	ln           listener
	msgs         chan Message
	wg           sync.WaitGroup
	once         sync.Once

	// quit is closed by Close: from then on nobody reads msgs, and the
	// connections still open are closed. Without it, a connection that never
	// finishes (held until readTimeout) or more pending messages than msgs
	// holds (a flood when Claude exits) would keep Close, and so the run's
	// exit, waiting — for ever in the second case.
	quit  chan struct{}
	mu    sync.Mutex
	conns map[*net.UnixConn]struct{} // open connections; nil once closed
}

// listener is the socket's listener; tests make it fail.
type listener interface {
	AcceptUnix() (*net.UnixConn, error)
	Close() error
}

// wrapListener lets tests make the listener fail.
var wrapListener = func(l listener) listener { return l }

// Listen creates a private (0700) directory and a socket in it.
func Listen() (*Server, error) {
	base := socketBase()
	cleanStale(base)
	if base != "/tmp" {
		cleanStale("/tmp") // where a run with a long TMPDIR put its own
	}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("claudewrap-%d-", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	path := filepath.Join(dir, "hook.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	s := &Server{dir: dir, path: path, ln: wrapListener(ln), msgs: make(chan Message, 64),
		quit: make(chan struct{}), conns: map[*net.UnixConn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// maxSocketPath bounds a socket's path: the kernel's sun_path holds 108
// bytes on Linux and 104 on macOS, the final NUL included.
const maxSocketPath = 100

// socketBase is where the socket's directory goes: the temporary folder,
// unless its path is too long for a socket (a long TMPDIR), then /tmp.
func socketBase() string {
	base := os.TempDir()
	if len(filepath.Join(base, "claudewrap-4194304-1234567890", "hook.sock")) > maxSocketPath {
		return "/tmp"
	}
	return base
}

// cleanStale removes the socket directories of this user's runs that were
// killed before they could (SIGKILL): each is named after its process,
// and that process is gone.
func cleanStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, "claudewrap-*-*"))
	for _, d := range dirs {
		f := strings.SplitN(filepath.Base(d), "-", 3)
		pid, err := strconv.Atoi(f[1])
		if err != nil || pid <= 0 {
			continue
		}
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(d)
		}
	}
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

// Dir is the run's private folder (0700), which holds the socket and
// Claude's merged settings ([WithSettings]); Close removes it.
func (s *Server) Dir() string { return s.dir }

// Messages delivers hook messages in arrival order. It is closed by Close.
func (s *Server) Messages() <-chan Message { return s.msgs }

// Close stops listening and removes the directory.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		close(s.quit)
		err = s.ln.Close()
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.conns = nil
		s.mu.Unlock()
		s.wg.Wait()
		close(s.msgs)
		os.RemoveAll(s.dir)
	})
	return err
}

// maxReading bounds the connections read at once, and so the memory
// messages in flight take (maxReading × MaxMessage at worst): past it, new
// connections wait in the listen queue.
const maxReading = 8

// acceptBackoff bounds the pause after a failed accept (out of file
// descriptors, say): the listener waits and tries again, for as long as the
// run lasts, instead of stopping for good.
const acceptBackoff = time.Second

func (s *Server) accept() {
	defer s.wg.Done()
	reading := make(chan struct{}, maxReading)
	var delay time.Duration
	reported := false
	for {
		select {
		case reading <- struct{}{}:
		case <-s.quit:
			return
		}
		c, err := s.ln.AcceptUnix()
		if err != nil {
			<-reading
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Said once per spell of failures, not once per try.
			if !reported {
				reported = true
				select {
				case s.msgs <- Message{Err: fmt.Errorf("hook socket: accept: %w (retrying)", err)}:
				case <-s.quit:
					return
				}
			}
			delay = min(max(2*delay, 5*time.Millisecond), acceptBackoff)
			select {
			case <-time.After(delay):
			case <-s.quit:
				return
			}
			continue
		}
		delay, reported = 0, false
		s.mu.Lock()
		if s.conns == nil { // closing
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			// Given back once delivered (parsed messages count too), not
			// after a reply's wait: hooks waiting for answers must not keep
			// the next hook's connection from being taken.
			var once sync.Once
			release := func() { once.Do(func() { <-reading }) }
			defer release()
			s.serve(c, release)
		}()
	}
}

// serve reads one connection's message, acknowledges it and delivers it,
// then calls delivered. A PermissionRequest (or a question's PreToolUse,
// see ReplyToQuestions) is delivered first, with a Reply, and acknowledged
// with the reply (or none, after its wait).
func (s *Server) serve(c *net.UnixConn, delivered func()) {
	defer c.Close()
	// The hook command's own deadline is dialTimeout+wait after it began,
	// before it connected: a reply is taken until replyMargin before wait
	// after the connection was taken, so that one taken is one the hook
	// command still reads, unless taking it lagged behind the connect by
	// more than dialTimeout+replyMargin (only a flood of hooks does that:
	// a hook waiting for its reply holds no reading slot).
	accepted := time.Now()
	m := s.receive(c)
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	var out []byte
	wait := time.Duration(0)
	gated := false
	switch {
	case m.Err != nil:
	case m.Payload.HookEventName == PermissionRequest, m.Payload.HookEventName == Elicitation:
		wait = ReplyTimeout
	case m.Payload.Gated():
		wait, gated = ReplyTimeout, true
	case m.Payload.HookEventName == PreToolUse:
		wait = time.Duration(s.questionWait.Load())
	}
	if wait > 0 {
		// Reply reports whether the hook still waits for it.
		replied := make(chan []byte, 1)
		var mu sync.Mutex
		open := true
		until := accepted.Add(wait - replyMargin)
		m.Reply = func(b []byte) bool {
			mu.Lock()
			defer mu.Unlock()
			if !open || !time.Now().Before(until) {
				return false
			}
			open = false
			replied <- b
			return true
		}
		if !s.deliver(m) {
			return
		}
		delivered()
		t := time.NewTimer(max(0, time.Until(until)))
		got := false
		select {
		case out = <-replied:
			got = true
		case <-t.C:
		case <-s.quit:
		}
		t.Stop()
		mu.Lock()
		if open { // too late from now on
			open = false
		} else if !got {
			out, got = <-replied, true
		}
		mu.Unlock()
		if gated && !got {
			// The deny rules were not consulted: the hook command, told
			// --gate, refuses the tool rather than let it run unchecked.
			m.Err = errUndecided
		}
		s.ack(c, m, out)
		return
	}
	// The ack lets the sender know it may go: it waits for it, so that it
	// is still alive when its ancestry is checked.
	s.ack(c, m, nil)
	s.deliver(m)
}

func (s *Server) deliver(m Message) bool {
	select {
	case s.msgs <- m:
		return true
	case <-s.quit:
		return false
	}
}

// errUndecided is the ack of a gated PreToolUse the wrapper did not decide
// in time.
var errUndecided = errors.New("undecided: the run did not check this tool call against its deny rules in time")

// ack ends the exchange: "ok" and the hook's output, or why the message
// was refused or not decided.
func (s *Server) ack(c *net.UnixConn, m Message, out []byte) {
	ack := []byte("ok\n")
	switch {
	case errors.Is(m.Err, errUndecided):
		ack = []byte(errUndecided.Error() + "\n")
	case m.Err != nil:
		ack = []byte("refused: " + m.Err.Error() + "\n")
	}
	_ = c.SetWriteDeadline(time.Now().Add(dialTimeout))
	_, _ = c.Write(append(ack, out...))
}

func (s *Server) receive(c *net.UnixConn) Message {
	_ = c.SetReadDeadline(time.Now().Add(readTimeout))
	if err := checkPeer(c); err != nil {
		// Read what it sent all the same (bounded), or closing would reset
		// the connection before the refusal reaches the sender.
		_, _ = io.Copy(io.Discard, io.LimitReader(c, MaxMessage+1))
		return Message{Err: err}
	}
	b, err := io.ReadAll(io.LimitReader(c, MaxMessage+1))
	if err != nil {
		return Message{Err: fmt.Errorf("hook message: %w", err)}
	}
	if len(b) > MaxMessage {
		return Message{Err: fmt.Errorf("hook message over %d bytes refused", MaxMessage)}
	}
	p, err := Parse(b)
	if err != nil {
		return Message{Err: fmt.Errorf("hook message refused: %w", err)}
	}
	return Message{Payload: p}
}

// checkPeer accepts only processes of the same user that descend from this
// one: the hooks of the Claude this run started (Claude, its shell, the
// hook command). The kernel says who the peer is (peer, per OS): a socket
// path alone proves nothing, and any program of the same user could
// otherwise forge a Stop or a PreToolUse.
func checkPeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var uid, pid int
	var cerr error
	err = raw.Control(func(fd uintptr) { uid, pid, cerr = peercred.Peer(int(fd)) })
	if err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("hook peer credentials: %w", err)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("hook message from uid %d refused", uid)
	}
	if err := descends(pid, os.Getpid()); err != nil {
		return fmt.Errorf("hook message from pid %d refused: %w", pid, err)
	}
	return nil
}

// descends says why pid is not ancestor or one of its descendants; nil
// when it is.
func descends(pid, ancestor int) error {
	chain, err := peercred.Ancestry(pid)
	if err != nil {
		return fmt.Errorf("its ancestry cannot be checked: %w", err)
	}
	if !slices.Contains(chain, ancestor) {
		return errors.New("not a process of the Claude this run started")
	}
	return nil
}

// dialTimeout bounds the hook command's whole exchange with the wrapper, so
// Claude never waits on it for long.
const dialTimeout = 500 * time.Millisecond

// recordWait is how much longer a PostToolUse may wait for its ack: it is
// Claude's record of an answer, which the wrapper verifies, and under load
// the wrapper may accept it later than dialTimeout; lost, a form Claude
// recorded would be reported unrecorded.
const recordWait = 1500 * time.Millisecond

// replyMargin is how long before the hook command stops waiting the wrapper
// stops taking a reply: the time the reply has to reach it.
const replyMargin = 250 * time.Millisecond

// Forward sends one hook message read from r to the socket and waits for
// the wrapper's ack (the wrapper checks who sent it while it waits); the
// hook's output for Claude, if the wrapper gave one (a PermissionRequest's
// decision), goes to stdout. It is what `claudewrap hook` runs; errors are
// for logging only, since the hook must never fail Claude.
func Forward(r io.Reader, socket string, stdout io.Writer) error {
	return ForwardWaiting(r, socket, stdout, 0)
}

// ForwardWaiting is Forward for a hook whose wrapper may take up to wait
// to answer (a question's PreToolUse, under the hook answer strategy).
func ForwardWaiting(r io.Reader, socket string, stdout io.Writer, wait time.Duration) error {
	b, err := io.ReadAll(io.LimitReader(r, MaxMessage+1))
	if err != nil {
		return err
	}
	if socket == "" {
		return errors.New("no socket: no wrapper is listening")
	}
	if err := ownSocket(socket); err != nil {
		return err
	}
	deadline := time.Now().Add(dialTimeout)
	question := questionMessage(b)
	if bytes.Contains(b, []byte(`"`+PermissionRequest+`"`)) || bytes.Contains(b, []byte(`"`+Elicitation+`"`)) ||
		!question && bytes.Contains(b, []byte(`"`+PreToolUse+`"`)) {
		// The wrapper decides before it answers.
		deadline = deadline.Add(ReplyTimeout)
	}
	if question {
		deadline = deadline.Add(wait) // the answers, under the hook strategy
	}
	if bytes.Contains(b, []byte(`"`+PostToolUse+`"`)) {
		deadline = deadline.Add(recordWait)
	}
	c, err := net.DialTimeout("unix", socket, dialTimeout)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(deadline)
	if _, err := io.Copy(c, bytes.NewReader(b)); err != nil {
		return err
	}
	if err := c.(*net.UnixConn).CloseWrite(); err != nil {
		return err
	}
	ack, err := io.ReadAll(io.LimitReader(c, MaxMessage))
	if err != nil {
		return fmt.Errorf("no ack from the wrapper: %w", err)
	}
	line, out, _ := bytes.Cut(ack, []byte("\n"))
	if a := strings.TrimSpace(string(line)); a != "ok" {
		if a == "" {
			a = "no ack from the wrapper"
		}
		return errors.New(a)
	}
	if len(out) > 0 && stdout != nil {
		_, err = stdout.Write(out)
	}
	return err
}

// ForwardGated is ForwardWaiting for a hook run with --gate, which only
// PreToolUse runs: a message that is not AskUserQuestion's (any other
// tool's, or one that cannot be read as a question's: too large, cut short)
// and that the wrapper did not decide (no wrapper listening, no answer in
// time, refused) is denied, so that a deny rule never lets a tool through
// unchecked. It fails closed: the reason goes to Claude as the deny's.
func ForwardGated(r io.Reader, socket string, stdout io.Writer, wait time.Duration) error {
	b, err := io.ReadAll(io.LimitReader(r, MaxMessage+1))
	if err != nil {
		return err
	}
	err = ForwardWaiting(bytes.NewReader(b), socket, stdout, wait)
	if err == nil || questionMessage(b) {
		return err
	}
	_, werr := stdout.Write(DenyOutput("claudewrap could not check this tool call against the run's deny rules (" + err.Error() + "): not run"))
	return errors.Join(err, werr)
}

// DenyOutput is a PreToolUse hook's output that refuses the tool, telling
// Claude why. Claude Code honours it in every permission mode.
func DenyOutput(reason string) []byte {
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": PreToolUse, "permissionDecision": "deny", "permissionDecisionReason": reason}})
	return b
}

// questionMessage reports whether b is AskUserQuestion's PreToolUse,
// which is answered as a form, not decided by the deny rules.
func questionMessage(b []byte) bool {
	var p struct {
		Event string `json:"hook_event_name"`
		Tool  string `json:"tool_name"`
	}
	return json.Unmarshal(b, &p) == nil && p.Event == PreToolUse && p.Tool == ToolName
}

// ownSocket refuses a socket another user owns: the hook message holds
// what Claude was asked and answered, for claudewrap's eyes only.
func ownSocket(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("socket %s belongs to uid %d, not to this user: not sent", path, st.Uid)
	}
	return nil
}

// Options are what a run asks of its hooks beyond forwarding.
type Options struct {
	// Wait is how long a question's PreToolUse hook waits for the
	// wrapper's answers (the hook answer strategy); 0: it does not.
	Wait time.Duration
	// Gate has every tool's PreToolUse, not only AskUserQuestion's, go
	// through the wrapper, for the deny rules; one the wrapper cannot
	// decide is denied ([ForwardGated]).
	Gate bool
	// Env is the person's own value ("" when unset) of each variable that
	// decides how Claude runs its hooks ([HookEnv]): the settings give
	// them, so that no settings file's env block can change them.
	Env map[string]string
}

// HookEnv are the variables that decide how Claude Code runs its hooks
// and the programs they start: a shell prefix or launcher it runs every
// hook through, the shell, what the dynamic linker or bash load first, the
// switches of its own hook forwarding.
var HookEnv = []string{"CLAUDE_CODE_SHELL_PREFIX", "CLAUDE_CODE_SHELL", "CLAUDE_CODE_SHELL_LAUNCHER_SCRIPT",
	"CLAUDE_CODE_DISABLE_HOOK_FORWARDING", "CLAUDE_CODE_PERSONAL_HOOKS_OFF", "BASH_ENV", "ENV",
	"LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH"}

// OwnEnv is the value of each of HookEnv in environment env ("" for one
// not set there).
func OwnEnv(env []string) map[string]string {
	out := map[string]string{}
	for _, k := range HookEnv {
		out[k] = ""
	}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if _, guarded := out[k]; guarded {
				out[k] = v
			}
		}
	}
	return out
}

// disableAllHooks is the settings key that turns every hook off; Settings
// sets it false, which overrides the user's, the project's and the local
// settings files.
const disableAllHooks = "disableAllHooks"

// Settings returns the --settings JSON that adds claudewrap's hooks: the
// AskUserQuestion PreToolUse and PostToolUse hooks, a Stop hook, a
// SessionStart hook (which session this run's Claude is), a
// PermissionRequest hook (the rules' permissions) and the Elicitation and
// ElicitationResult hooks (MCP servers' input forms), each
// running `EXE hook --socket SOCKET`. Claude Code combines these with the
// person's own hooks.
func Settings(exe, socket string) string { return SettingsWith(exe, socket, Options{}) }

// SettingsWith is Settings with the run's options: under the hook answer
// strategy the question's PreToolUse hook waits up to o.Wait for the
// wrapper's answer, within a hook timeout a little longer, so that it never
// fails Claude; with o.Gate the PreToolUse hook runs for every tool.
func SettingsWith(exe, socket string, o Options) string {
	wait := o.Wait
	cmd := shellQuote(exe) + " hook --socket " + shellQuote(socket)
	entryWith := func(matcher, cmd string, timeout int) []map[string]any {
		e := map[string]any{"hooks": []map[string]any{{"type": "command", "command": cmd, "timeout": timeout}}}
		if matcher != "" {
			e["matcher"] = matcher
		}
		return []map[string]any{e}
	}
	entry := func(matcher string) []map[string]any { return entryWith(matcher, cmd, 5) }
	preCmd, preTimeout, preMatcher := cmd, 5, ToolName
	if wait > 0 {
		preCmd, preTimeout = cmd+" --wait "+wait.String(), int(wait/time.Second)+10
	}
	if o.Gate {
		preCmd, preMatcher = preCmd+" --gate", "*"
		preTimeout += int(ReplyTimeout / time.Second)
	}
	pre := entryWith(preMatcher, preCmd, preTimeout)
	// Under the gate every tool's PostToolUse comes too, so that a call
	// that ran with input other than the input the gate checked (another
	// hook's updatedInput) is seen.
	postMatcher := ToolName
	if o.Gate {
		postMatcher = "*"
	}
	settings := map[string]any{disableAllHooks: false}
	if len(o.Env) > 0 {
		settings["env"] = o.Env
	}
	settings["hooks"] = map[string]any{
		PreToolUse:        pre,
		PostToolUse:       entry(postMatcher),
		Stop:              entry(""),
		StopFailure:       entry(""),
		SessionStart:      entry(""),
		PermissionRequest: entry(""),
		Elicitation:       entry(""),
		ElicitationResult: entry(""),
	}
	b, _ := json.Marshal(settings)
	return string(b)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
