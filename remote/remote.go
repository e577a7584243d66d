package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/peercred"
	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/internal/safefile"
)

// Info is a running session as its entry in the directory names it.
type Info struct {
	// ID names the session for `claudewrap answer`: the claudewrap
	// process's id, which Claude's own session id (once known) also names.
	ID      string    `json:"session"`
	PID     int       `json:"pid"`
	Claude  string    `json:"claude_session,omitempty"`
	Cwd     string    `json:"cwd"`
	Started time.Time `json:"started"`
	socket  string
}

// Form is a form waiting for its answer in a session.
type Form struct {
	Session   string            `json:"session"`
	PID       int               `json:"pid"`
	Cwd       string            `json:"cwd"`
	Since     time.Time         `json:"since"`
	ToolUseID string            `json:"tool_use_id"`
	Questions []answer.Question `json:"questions"`
	// Decided are the questions rules have answered (an answer from
	// elsewhere gives the others; see Merge).
	Decided []Decided `json:"decided,omitempty"`
	// Elicitation is set for an MCP server's input form, which asks no
	// questions: ToolUseID then names it ("elicitation-N").
	Elicitation *Elicitation `json:"elicitation,omitempty"`
}

// Elicitation is an MCP server's input form waiting for its answer.
type Elicitation struct {
	Server  string        `json:"server"`
	Message string        `json:"message"`
	Fields  []ElicitField `json:"fields"`
	// Schema is the server's requested_schema, which an answer's values
	// are checked against (rules.ElicitReply).
	Schema json.RawMessage `json:"requested_schema"`
}

// ElicitField is one field of an MCP server's form, in the order Claude
// draws them.
type ElicitField struct {
	Name     string   `json:"name"`
	Title    string   `json:"title"`
	Type     string   `json:"type"`
	Options  []string `json:"options,omitempty"`
	Required bool     `json:"required,omitempty"`
}

// ElicitAnswer answers an MCP server's form: Action accept, decline or
// cancel; for accept, Values is a YAML or JSON mapping of field: value, as
// a rule's accept writes them.
type ElicitAnswer struct {
	Action string `json:"action"`
	Values string `json:"values,omitempty"`
}

// ElicitHandler is a [Handler] that also answers MCP servers' forms.
type ElicitHandler interface {
	AnswerElicitation(ctx context.Context, id, from string, a ElicitAnswer) Outcome
}

// Outcome is what came of a remote answer.
type Outcome struct {
	// Result: "verified" (Claude recorded exactly that), "mismatch",
	// "taken" (someone else answered first), "cancelled", "chatted",
	// "failed" (the screen did not confirm a step), "refused" (a bad
	// request; nothing was done).
	Result   string            `json:"result"`
	Message  string            `json:"message,omitempty"`
	Recorded map[string]string `json:"recorded,omitempty"`
	// Elicited is what Claude reports an MCP server's form answered:
	// {"action": …, "content": {…}}.
	Elicited json.RawMessage `json:"elicited,omitempty"`
}

// OK reports whether Claude recorded what was answered.
func (o Outcome) OK() bool {
	return o.Result == "verified" || o.Result == "cancelled" || o.Result == "chatted"
}

// Handler is the session's side: what waits, and answering it. Answer
// blocks until the outcome is known (bounded by ctx); from names who sent
// the answer: one short line, safe to print, never empty.
type Handler interface {
	Pending() []Form
	Answer(ctx context.Context, toolUseID, from string, ds []answer.Decision) Outcome
	ClaudeSession() string
}

// request is one line a client sends; the session answers with one line.
type request struct {
	Op        string            `json:"op"` // "pending" or "answer"
	ToolUseID string            `json:"tool_use_id,omitempty"`
	Answers   []answer.Decision `json:"answers,omitempty"`
	// From names the sender of an answer, for the session's events and
	// lines; a client that does not say is claudewrap answer.
	From string `json:"from,omitempty"`
	// Elicit answers an MCP server's form instead of Answers.
	Elicit *ElicitAnswer `json:"elicit,omitempty"`
}

// Senders as they name themselves in [Answer].
const (
	FromAnswer = "claudewrap answer"
	FromPage   = "claudewrap serve (page)"
)

// maxFrom bounds a sender's name, in bytes.
const maxFrom = 100

// sender is from as a session shows it: what the client calls itself
// ([FromAnswer] when it says nothing), every character a terminal would
// act on escaped ([safe.Line]) and cut to maxFrom bytes, followed by the
// process the kernel says sent it. Any process of the user may call itself
// anything; the pid and program say who it was.
func sender(from string, who Peer) string {
	from = strings.TrimSpace(safe.Line(from))
	if from == "" {
		from = FromAnswer
	}
	if len(from) > maxFrom {
		i := maxFrom
		for i > 0 && !utf8.RuneStart(from[i]) {
			i--
		}
		from = from[:i] + "…"
	}
	return from + ", " + who.String()
}

// Dir is the directory of this user's running sessions:
// $XDG_RUNTIME_DIR/claudewrap, else claudewrap-UID in the temporary
// folder. It is created private (0700); one that another user owns, that
// others can enter, or that sits in a directory others may change, is
// refused ([safefile.MkdirAll]).
func Dir() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	name := "claudewrap"
	if base == "" {
		base, name = "/tmp", fmt.Sprintf("claudewrap-%d", os.Getuid())
	}
	dir := filepath.Join(base, name)
	if err := safefile.MkdirAll(dir); err != nil {
		return "", fmt.Errorf("sessions directory: %w", err)
	}
	return dir, nil
}

// Registration is a session listed in the directory, serving requests.
type Registration struct {
	info Info
	opts Options
	dir  string
	ln   *net.UnixListener
	h    Handler
	wg   sync.WaitGroup
	quit chan struct{}
}

// Options say whom a registration refuses beyond other users.
type Options struct {
	// Tree is the root of the run's Claude process tree
	// (ptyhost.Host.Tree): a request from a process below it, a command or
	// an MCP server of Claude's, is refused whatever it asks, so that
	// nothing Claude runs answers for the person. 0: none is known.
	Tree int
	// OtherRuns lets the processes of other runs' Claude read and answer
	// this run's forms (an orchestrator run driving others); without it
	// they are refused too.
	OtherRuns bool
	// Refused is told of each request refused for who sent it.
	Refused func(who Peer, reason string)
}

// Peer is a client as the kernel names it.
type Peer struct {
	PID     int
	Program string // the path of its executable, or its command name
}

// String names the peer for a person: "pid 42 (/usr/bin/claudewrap)".
func (p Peer) String() string {
	prog := safe.Line(p.Program)
	if prog == "" {
		prog = "program unknown"
	}
	return fmt.Sprintf("pid %d (%s)", p.PID, prog)
}

// Register lists the session in the directory and serves its control
// socket until Close. Only processes of the same user are served, and not
// those of the run's Claude (see [Options]).
func Register(h Handler, cwd string, o Options) (*Registration, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	clean(dir)
	id := strconv.Itoa(os.Getpid())
	sock := filepath.Join(dir, id+".sock")
	_ = os.Remove(sock)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	r := &Registration{info: Info{ID: id, PID: os.Getpid(), Cwd: cwd, Started: time.Now().UTC()}, opts: o, dir: dir, ln: ln, h: h,
		quit: make(chan struct{})}
	if err := r.write(); err != nil {
		ln.Close()
		return nil, err
	}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Refresh rewrites the session's entry, now that Claude named its session.
func (r *Registration) Refresh() { _ = r.write() }

// ID is the session's name for claudewrap answer.
func (r *Registration) ID() string { return r.info.ID }

// write (re)writes the session's entry, atomically.
func (r *Registration) write() error {
	info := r.info
	info.Claude = r.h.ClaudeSession()
	b, _ := json.Marshal(info)
	tmp := filepath.Join(r.dir, "."+r.info.ID+".json.tmp")
	if err := safefile.WriteFile(tmp, b); err != nil {
		return fmt.Errorf("sessions directory: %w", err)
	}
	return os.Rename(tmp, filepath.Join(r.dir, r.info.ID+".json"))
}

// Close removes the entry and stops serving.
func (r *Registration) Close() {
	close(r.quit)
	r.ln.Close()
	os.Remove(filepath.Join(r.dir, r.info.ID+".json"))
	os.Remove(filepath.Join(r.dir, r.info.ID+".sock"))
	r.wg.Wait()
}

func (r *Registration) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.AcceptUnix()
		if err != nil {
			select {
			case <-r.quit:
				return
			default:
			}
			time.Sleep(10 * time.Millisecond) // a transient accept error: no busy loop
			continue
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer c.Close()
			r.serve(c)
		}()
	}
}

// maxRequest bounds one request.
const maxRequest = 1 << 20

// AnswerWait bounds how long an answer waits for its outcome; one still
// waiting its turn behind another form then is withdrawn.
const AnswerWait = 2 * time.Minute

func (r *Registration) serve(c *net.UnixConn) {
	reply := func(v any) {
		b, _ := json.Marshal(v)
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		c.Write(append(b, '\n'))
	}
	// The request is read before anything is refused, so that the client,
	// done writing, reads why.
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, lerr := readLine(c, maxRequest)
	who, err := sameUser(c)
	if err != nil {
		reply(Outcome{Result: "refused", Message: err.Error()})
		return
	}
	if why := r.inside(who); why != "" {
		if r.opts.Refused != nil {
			r.opts.Refused(who, why)
		}
		reply(Outcome{Result: "refused", Message: why})
		return
	}
	if lerr != nil {
		reply(Outcome{Result: "refused", Message: "bad request: " + lerr.Error()})
		return
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		reply(Outcome{Result: "refused", Message: "bad request: not JSON: " + err.Error()})
		return
	}
	switch req.Op {
	case "pending":
		forms := r.h.Pending()
		for i := range forms {
			forms[i].Session, forms[i].PID, forms[i].Cwd = r.info.ID, r.info.PID, r.info.Cwd
		}
		reply(forms)
	case "answer":
		ctx, cancel := context.WithTimeout(context.Background(), AnswerWait)
		defer cancel()
		go func() { // the client hanging up gives the wait up, not the answer
			var b [512]byte
			c.SetReadDeadline(time.Time{})
			for { // more bytes are no hang-up; the connection's end is
				if _, err := c.Read(b[:]); err != nil {
					break
				}
			}
			cancel()
		}()
		if req.Elicit != nil {
			eh, ok := r.h.(ElicitHandler)
			if !ok {
				reply(Outcome{Result: "refused", Message: "this session answers no MCP server's form"})
				return
			}
			reply(eh.AnswerElicitation(ctx, req.ToolUseID, sender(req.From, who), *req.Elicit))
			return
		}
		reply(r.h.Answer(ctx, req.ToolUseID, sender(req.From, who), req.Answers))
	default:
		reply(Outcome{Result: "refused", Message: fmt.Sprintf("bad request: unknown op %q", req.Op)})
	}
}

func readLine(c io.Reader, limit int) ([]byte, error) {
	var buf []byte
	b := make([]byte, 4096)
	for {
		n, err := c.Read(b)
		buf = append(buf, b[:n]...)
		if i := strings.IndexByte(string(buf), '\n'); i >= 0 {
			return buf[:i], nil
		}
		if len(buf) > limit {
			return nil, errors.New("too long")
		}
		if err != nil {
			return nil, err
		}
	}
}

// sameUser refuses a peer of another user: the directory is private, and
// the kernel says who connected all the same. It returns the peer.
func sameUser(c *net.UnixConn) (Peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}, err
	}
	var uid, pid int
	var cerr error
	if err := raw.Control(func(fd uintptr) { uid, pid, cerr = peercred.Peer(int(fd)) }); err != nil {
		return Peer{}, err
	}
	if cerr != nil {
		return Peer{}, fmt.Errorf("peer credentials: %w", cerr)
	}
	if uid != os.Getuid() {
		return Peer{}, fmt.Errorf("a request from uid %d refused: only the session's own user may answer", uid)
	}
	return Peer{PID: pid, Program: peercred.Program(pid)}, nil
}

// serves checks that the process serving the socket is the session its
// entry names (its pid): any process of the user can write an entry and
// serve a socket of its own in the folder, and one that is not the run
// must not be taken for it.
func serves(c *net.UnixConn, s Info) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var uid, pid int
	var cerr error
	if err := raw.Control(func(fd uintptr) { uid, pid, cerr = peercred.Peer(int(fd)) }); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("who serves it cannot be told: %w", cerr)
	}
	if uid != os.Getuid() || pid != s.PID || strconv.Itoa(pid) != s.ID {
		return fmt.Errorf("its socket is served by pid %d (uid %d), not by the run it names (pid %d): not a claudewrap run, refused", pid, uid, s.PID)
	}
	return nil
}

// inside says why who may not ask this session anything, "" when it may:
// it is a process of this run's Claude, or of another run's without
// Options.OtherRuns, or its ancestry cannot be told.
func (r *Registration) inside(who Peer) string {
	if r.opts.Tree <= 1 {
		return "" // no tree known; pid 1 is everyone's ancestor
	}
	chain, err := peercred.Ancestry(who.PID)
	if err != nil {
		return fmt.Sprintf("a request from %s refused: whether it is a process of Claude's cannot be told: %v", who, err)
	}
	if slices.Contains(chain, r.opts.Tree) {
		return fmt.Sprintf("a request from %s refused: it is a process of this run's Claude (a command or an MCP server of Claude's), and nothing Claude runs may read or answer what waits for the person", who)
	}
	if r.opts.OtherRuns {
		return ""
	}
	// Another run's Claude: one of who's ancestors is a run's (its
	// supervisor on Linux, claudewrap itself elsewhere), whatever the
	// sessions folder says, which any process of the user can write.
	for _, a := range chain[1:] {
		if runOf(a) {
			return fmt.Sprintf("a request from %s refused: it is a process of another claudewrap run's Claude (pid %d's); "+
				"a run takes answers from another run's Claude only when started with --answers-from-runs", who, a)
		}
	}
	return ""
}

// InRun reports whether process pid runs below a claudewrap run's Claude
// (one of its ancestors is a run's root, see runOf), and that root's pid.
// Answering sides that no socket check guards (the inbox) refuse to act
// for such a process.
func InRun(pid int) (root int, ok bool) {
	chain, err := peercred.Ancestry(pid)
	if err != nil || len(chain) == 0 {
		return 0, false
	}
	for _, a := range chain[1:] {
		if runOf(a) {
			return a, true
		}
	}
	return 0, false
}

// runOf reports whether process pid is the root of a claudewrap run's
// Claude tree: the supervisor (ptyhost's), or on macOS, where there is none,
// claudewrap itself.
func runOf(pid int) bool {
	name := peercred.Name(pid)
	return filepath.Base(name) == "claudewrap-supervisor" || runtime.GOOS == "darwin" && filepath.Base(name) == "claudewrap"
}

// clean removes what sessions whose process is gone left: an entry, its
// socket, and the two a session killed while registering may leave alone
// (a socket with no entry yet, a half-written ".PID.json.tmp").
func clean(dir string) {
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		name := f.Name()
		id := strings.TrimPrefix(name, ".")
		for _, ext := range []string{".json.tmp", ".json", ".sock"} {
			if p, ok := strings.CutSuffix(id, ext); ok {
				id = p
				break
			}
		}
		if id == name {
			continue // not a session's
		}
		// A pid as Register names it ("+42" and "042" are no session's).
		if pid, err := strconv.Atoi(id); err == nil && pid > 0 && strconv.Itoa(pid) == id && !alive(pid) {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// maxEntry bounds a session's entry: a few hundred bytes of JSON.
const maxEntry = 64 << 10

// Sessions lists this user's running sessions (stale entries are removed;
// one that is no regular file, or too long, is passed over).
func Sessions() ([]Info, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	clean(dir)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []Info
	for _, f := range files {
		b, err := safefile.ReadFile(f, maxEntry)
		if err != nil {
			continue
		}
		var in Info
		if json.Unmarshal(b, &in) != nil || in.ID == "" {
			continue
		}
		in.socket = filepath.Join(dir, in.ID+".sock")
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}

// Find is the running session named id: its claudewrap pid, or Claude's
// session id (or a prefix of it that names one session).
func Find(id string) (Info, error) {
	all, err := Sessions()
	if err != nil {
		return Info{}, err
	}
	if id == "" {
		return Info{}, errors.New("no session named (see claudewrap pending)")
	}
	var found, prefixed []Info
	for _, s := range all {
		switch {
		case s.ID == id || s.Claude == id:
			found = append(found, s)
		case len(id) >= 4 && strings.HasPrefix(s.Claude, id):
			prefixed = append(prefixed, s)
		}
	}
	if len(found) == 0 {
		// A prefix of Claude's session id only when nothing is named
		// whole: a pid never loses to another session's id that starts
		// with its digits.
		found = prefixed
	}
	switch len(found) {
	case 0:
		return Info{}, fmt.Errorf("no running session %q (see claudewrap pending)", id)
	case 1:
		return found[0], nil
	}
	return Info{}, fmt.Errorf("%q names %d sessions: give more of it", id, len(found))
}

// call sends one request to a session and reads its one reply into v.
func call(ctx context.Context, s Info, req request, v any) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", s.socket)
	if err != nil {
		return fmt.Errorf("session %s: %w", s.ID, err)
	}
	defer c.Close()
	if err := serves(c.(*net.UnixConn), s); err != nil {
		return fmt.Errorf("session %s: %w", s.ID, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	b, _ := json.Marshal(req)
	if _, err := c.Write(append(b, '\n')); err != nil {
		// A session that refused at once may have said why before closing.
		if line, rerr := readLine(c, 64<<10); rerr == nil && json.Unmarshal(line, v) == nil {
			return nil
		}
		return fmt.Errorf("session %s: %w", s.ID, err)
	}
	line, err := readLine(c, 64<<20)
	if err != nil {
		return fmt.Errorf("session %s: no reply: %w", s.ID, err)
	}
	return json.Unmarshal(line, v)
}

// RefusedError is a session's refusal of a request, with its reason.
type RefusedError struct {
	Session string
	Reason  string
}

func (e *RefusedError) Error() string { return "session " + e.Session + " refused: " + e.Reason }

// Pending is what waits in session s.
func Pending(ctx context.Context, s Info) ([]Form, error) {
	var reply json.RawMessage
	if err := call(ctx, s, request{Op: "pending"}, &reply); err != nil {
		return nil, err
	}
	if len(reply) > 0 && reply[0] == '{' { // a refusal, said as an outcome
		var o Outcome
		if err := json.Unmarshal(reply, &o); err != nil {
			return nil, fmt.Errorf("session %s: %w", s.ID, err)
		}
		return nil, &RefusedError{Session: s.ID, Reason: o.Message}
	}
	var forms []Form
	if err := json.Unmarshal(reply, &forms); err != nil {
		return nil, fmt.Errorf("session %s: %w", s.ID, err)
	}
	// A form is the session's that said it, whatever it claims.
	for i := range forms {
		forms[i].Session, forms[i].PID, forms[i].Cwd = s.ID, s.PID, s.Cwd
	}
	return forms, nil
}

// PendingAll is what waits in every running session of this user.
// Sessions that do not answer are skipped; those that refuse to say are
// the error, beside what the others said.
func PendingAll(ctx context.Context) ([]Form, error) {
	all, err := Sessions()
	if err != nil {
		return nil, err
	}
	var out []Form
	var refused []error
	for _, s := range all {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		forms, err := Pending(cctx, s)
		cancel()
		var re *RefusedError
		switch {
		case err == nil:
			out = append(out, forms...)
		case errors.As(err, &re):
			refused = append(refused, err)
		}
	}
	return out, errors.Join(refused...)
}

// Answer answers form toolUseID of session s and waits for the outcome,
// which comes once Claude has recorded the answer (at most [AnswerWait]).
// from names the sender to the session ([FromAnswer], [FromPage]).
// The connection stays open until then, its writing side too: its end, a
// half-close included, reads as the client gone, and the session stops
// waiting for it (the answer stands).
func Answer(ctx context.Context, s Info, toolUseID, from string, ds []answer.Decision) (Outcome, error) {
	var o Outcome
	err := call(ctx, s, request{Op: "answer", ToolUseID: toolUseID, Answers: ds, From: from}, &o)
	return o, err
}

// AnswerElicitation answers MCP server's form id of session s, as
// [Answer] answers a form, and waits for what Claude reports.
func AnswerElicitation(ctx context.Context, s Info, id, from string, a ElicitAnswer) (Outcome, error) {
	var o Outcome
	err := call(ctx, s, request{Op: "answer", ToolUseID: id, From: from, Elicit: &a}, &o)
	return o, err
}
