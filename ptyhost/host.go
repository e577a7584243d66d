package ptyhost

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/muesli/cancelreader"

	"github.com/claudewrap/claudewrap/internal/ptyfile"
	"github.com/claudewrap/claudewrap/vt"
)

// Config describes the child and the person's terminal.
type Config struct {
	Path string   // absolute path of the program to run
	Args []string // arguments after the program name
	Env  []string // environment; nil means the current one
	Dir  string

	// Headless keeps the child off the person's terminal: it draws only on
	// the emulated screen, which then answers the child's terminal queries.
	Headless bool
	// Cols and Rows size the PTY when headless (or when Stdout is not a
	// terminal). Zero means 120x40.
	Cols, Rows int
	// Screen makes the emulated copy of the child's terminal, at the
	// size given, sending its answers to the child's queries to replies
	// (nil on the person's terminal, which answers them itself). The
	// caller knows what the child draws (screen.NewFunc for Claude Code);
	// nil makes a plain vt emulator.
	Screen func(cols, rows int, replies io.Writer) vt.Emulator

	// Stdin and Stdout are the person's terminal in passthrough. Nil means
	// os.Stdin and os.Stdout.
	Stdin  *os.File
	Stdout *os.File

	// Tap, if set, sees every chunk of the child's output, and every key the
	// wrapper sends (see [Tap]).
	Tap Tap
	// OnInput, if set, is called with each chunk the person types, before it
	// is forwarded to the child. A chunk does not end inside a terminal's
	// report if the rest follows within seqWait (see joiner).
	OnInput func(p []byte)
}

// Tap observes traffic through the host, e.g. to record it. Output is
// called from one goroutine, in order, right after the emulator got the
// same bytes (after the person's terminal did: a Tap never slows them);
// Input and Resize come from whichever goroutine sends keys or resizes
// (the wrapper's and the person's at once), so a Tap must be safe for
// concurrent use.
type Tap interface {
	Output(p []byte)
	Input(p []byte)
	Resize(cols, rows int)
}

// ErrStart wraps every failure to start the child, so callers can map it to
// their "could not start" exit status.
var ErrStart = errors.New("could not start")

// Host is a running child in a PTY.
type Host struct {
	cfg    Config
	child  *child
	ptmx   *os.File
	relay  outRelay // reads ptmx where there is one; else readLoop does
	screen vt.Emulator
	term   *terminal // the person's terminal in passthrough, else nil
	// in reads the person's keys; Cancel stops it once the child is gone,
	// so that no key typed after is taken from the shell or a prompt.
	in     cancelreader.CancelReader
	inDone chan struct{} // closed when copyInput has returned
	inRead atomic.Int64  // reads of the person's terminal, for tests

	input   chan []byte   // everything written to the PTY, in order
	outDone chan struct{} // closed when the output copy has drained
	done    chan struct{} // closed when the child has exited
	status  Status
	waitErr error

	sizeMu sync.Mutex // keeps PTY and emulator resizes together
	closed bool       // the PTY is closed; guarded by sizeMu
	stop   func()     // stops signal handling
	// interrupted is set when the wrapper got SIGINT (Ctrl-C at a terminal
	// not in raw mode) and ended the child for it.
	interrupted atomic.Bool
	// skipped counts the bursts the emulator skipped (see feeder).
	skipped atomic.Int32
	// redrawMu keeps Redraws apart: one begun during another would take
	// the narrower size for the one to give back.
	redrawMu sync.Mutex
}

// Interrupted reports whether the child was ended because the wrapper got
// SIGINT.
func (h *Host) Interrupted() bool { return h.interrupted.Load() }

// Tree is the process at the root of Claude's process tree: every process
// Claude starts descends from it. On Linux it is the supervisor, a child
// subreaper, which also adopts the processes whose parent died; elsewhere
// it is Claude, and a process that left its session and lost its parent
// is no longer below it.
func (h *Host) Tree() int { return h.child.cmd.Process.Pid }

// Status is how the child ended.
type Status struct {
	Code   int            // exit code, or 128+N for signal N
	Signal syscall.Signal // non-zero when the child died of a signal
}

// Start starts the child. In passthrough the person's terminal is put in raw
// mode until [Host.Wait] returns.
func Start(cfg Config) (*Host, error) {
	if cfg.Stdin == nil {
		cfg.Stdin = os.Stdin
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Cols <= 0 || cfg.Rows <= 0 {
		cfg.Cols, cfg.Rows = 120, 40
	}
	if err := checkExecutable(cfg.Path); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	h := &Host{
		cfg:     cfg,
		input:   make(chan []byte, 64),
		outDone: make(chan struct{}),
		done:    make(chan struct{}),
	}
	// Signals are caught from here on, before the size is read, Claude
	// starts and the terminal goes raw, so that a SIGTERM in between cannot
	// leave the terminal raw, nor a resize be lost. They are acted on once
	// the host runs.
	sigs := catchSignals()
	cols, rows := cfg.Cols, cfg.Rows
	if !cfg.Headless {
		t, err := openTerminal(cfg.Stdin, cfg.Stdout)
		if err != nil {
			signal.Stop(sigs)
			return nil, err
		}
		h.term = t
		if c, r, ok := t.size(); ok {
			cols, rows = c, r
		}
	}
	var replies io.Writer
	if cfg.Headless {
		replies = writerFunc(h.reply)
	}
	newScreen := cfg.Screen
	if newScreen == nil {
		newScreen = plainScreen
	}
	h.screen = newScreen(cols, rows, replies)

	ptmx, err := h.startOnPTY(cols, rows)
	if err != nil {
		h.restore()
		signal.Stop(sigs)
		return nil, fmt.Errorf("%w: start %s: %w", ErrStart, cfg.Path, err)
	}
	// Nothing of the child may outlive a failed start: kill it, reap it and
	// close its PTY. The terminal is restored before signals are let go.
	fail := func(err error) (*Host, error) {
		_ = h.child.signal(syscall.SIGKILL)
		_, _ = h.child.wait()
		_ = ptmx.Close()
		if h.in != nil {
			_ = h.in.Close()
		}
		h.restore()
		signal.Stop(sigs)
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	if cfg.Tap != nil {
		cfg.Tap.Resize(cols, rows)
	}
	if h.term != nil {
		if err := h.term.makeRaw(); err != nil {
			return fail(err)
		}
		if h.in, err = cancelreader.NewReader(h.term.in); err != nil {
			return fail(fmt.Errorf("read the terminal: %w", err))
		}
	}
	// The relay thread, if any, starts writing to the person at once: only
	// now that the terminal is in raw mode.
	var out *os.File
	if h.term != nil {
		out = h.term.out
	}
	if h.ptmx, h.relay, err = relayPTY(ptmx, out); err != nil {
		return fail(err)
	}
	if h.in != nil {
		h.inDone = make(chan struct{})
		go h.copyInput()
	}
	h.stop = h.handleSignals(sigs)
	go h.writeLoop()
	go h.readLoop()
	go h.wait()
	return h, nil
}

// startOnPTY opens the PTY at cols x rows and starts the child on it
// (startChild, per OS), returning the PTY's master.
func (h *Host) startOnPTY(cols, rows int) (*os.File, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		ptmx.Close()
		return nil, err
	}
	cfg := h.cfg
	if cfg.Headless {
		cfg.Env = headlessEnv(cfg.Env)
	}
	if h.child, err = startChild(cfg, tty); err != nil {
		ptmx.Close()
		return nil, err
	}
	return ptmx, nil
}

// Screen is the emulated copy of the child's terminal.
func (h *Host) Screen() vt.Emulator { return h.screen }

// Done is closed when the child has exited and its output has drained.
func (h *Host) Done() <-chan struct{} { return h.done }

// SendKeys writes keys to the child on behalf of the wrapper, after anything
// already queued. It fails once the child has exited.
func (h *Host) SendKeys(p []byte) error {
	select {
	case <-h.done:
		return errors.New("send keys: claude has exited")
	default:
	}
	if h.cfg.Tap != nil {
		h.cfg.Tap.Input(p)
	}
	h.enqueue(p)
	return nil
}

// Resize sets the size of the PTY and the emulator together.
func (h *Host) Resize(cols, rows int) error {
	_, err := h.resize(cols, rows)
	return err
}

// resize is Resize, returning the screen's Seq once the emulator has the
// new size and before the child is told of it: a change after that Seq is
// the child's draw.
func (h *Host) resize(cols, rows int) (uint64, error) {
	h.sizeMu.Lock()
	defer h.sizeMu.Unlock()
	if h.closed {
		return 0, errors.New("resize: claude has exited")
	}
	if c, r := h.screen.Size(); c == cols && r == rows {
		return h.screen.Snapshot().Seq, nil
	}
	h.screen.Resize(cols, rows)
	seq := h.screen.Snapshot().Seq
	if h.cfg.Tap != nil {
		h.cfg.Tap.Resize(cols, rows)
	}
	if err := ptyfile.SetSize(h.ptmx, cols, rows); err != nil {
		return seq, fmt.Errorf("resize pty: %w", err)
	}
	return seq, nil
}

// Signal sends sig to the child. On Linux, SIGKILL kills the child and
// every process it started (see child).
func (h *Host) Signal(sig os.Signal) error { return h.child.signal(sig) }

// Wait waits for the child to exit and its output to drain, restores the
// person's terminal, and reports how the child ended.
func (h *Host) Wait() (Status, error) {
	<-h.done
	return h.status, h.waitErr
}

// reply queues the emulator's answer to a terminal query, unless the queue
// is full: a child that floods queries and never reads the replies loses
// them, as it would at a real terminal, rather than stall its own output
// (the emulator would wait on the writer, which waits on the child, which
// waits for its output to be read).
func (h *Host) reply(p []byte) {
	b := append([]byte(nil), p...)
	select {
	case h.input <- b:
	default:
	}
}

func (h *Host) enqueue(p []byte) {
	b := append([]byte(nil), p...)
	select {
	case h.input <- b:
	case <-h.done:
	}
}

// writeLoop is the only writer to the PTY, so the person's keys, the
// emulator's replies and the wrapper's keys never interleave mid-sequence and
// a slow child never blocks the output copy.
func (h *Host) writeLoop() {
	for {
		select {
		case p := <-h.input:
			if _, err := h.ptmx.Write(p); err != nil {
				return
			}
		case <-h.done:
			return
		}
	}
}

// plainScreen is the emulator a host makes when its caller names none.
func plainScreen(cols, rows int, replies io.Writer) vt.Emulator {
	return vt.New(vt.Options{Cols: cols, Rows: rows, Replies: replies})
}

// drainGrace bounds how long output may keep arriving after the child has
// exited (a grandchild may hold the PTY open).
const drainGrace = 2 * time.Second

func (h *Host) wait() {
	st, err := h.child.wait()
	timer := time.NewTimer(drainGrace)
	select {
	case <-h.outDone:
		timer.Stop()
	case <-timer.C:
		// Unblocks the read (the relay's, or ours: the descriptor is then
		// pollable, see ptyfile.Pollable); what was read so far has been delivered.
		if h.relay != nil {
			h.relay.stop()
		} else {
			_ = h.ptmx.SetReadDeadline(time.Now())
		}
		<-h.outDone
	}
	// A write the child will never read (a grandchild holds the PTY) must
	// not keep the write loop. With a relay (Linux) the descriptor is not
	// pollable and has no deadline: such a write ends with the holder,
	// which the supervisor has killed by now (see child).
	_ = h.ptmx.SetWriteDeadline(time.Now())
	h.sizeMu.Lock()
	_ = h.ptmx.Close()
	h.closed = true
	h.sizeMu.Unlock()
	// Nothing of Claude's outlives it (see child).
	h.child.end()
	h.status, h.waitErr = st, err
	if h.stop != nil {
		h.stop()
	}
	h.stopInput()
	h.restore()
	close(h.done)
}

// stopInput stops reading the person's terminal and waits (bounded) for
// the reader to return.
func (h *Host) stopInput() {
	if h.in == nil {
		return
	}
	h.in.Cancel()
	select {
	case <-h.inDone:
	case <-time.After(time.Second):
	}
	_ = h.in.Close()
}

// restore puts the person's terminal back from the state the child, as
// last emulated, left it in (see terminal.restore).
func (h *Host) restore() {
	if h.term == nil {
		return
	}
	var l left
	if h.screen != nil {
		s := h.screen.Snapshot()
		l = left{alt: s.AltScreen, origin: s.Origin, cursor: s.Cursor}
	}
	h.term.restore(l)
}

func (h *Host) copyInput() {
	defer close(h.inDone)
	j := &joiner{wait: seqWait, pass: func(p []byte) {
		select {
		case <-h.done: // a held sequence's timer, after the end
			return
		default:
		}
		if h.cfg.OnInput != nil {
			h.cfg.OnInput(p)
		}
		h.enqueue(p)
	}}
	buf := make([]byte, 4096)
	for {
		n, err := h.in.Read(buf)
		h.inRead.Add(1)
		if n > 0 {
			j.add(buf[:n])
		}
		if err != nil {
			return
		}
		select {
		case <-h.done:
			return
		default:
		}
	}
}

func exitStatus(ps *os.ProcessState, err error) (Status, error) {
	if ps == nil {
		return Status{Code: 1}, fmt.Errorf("wait for claude: %w", err)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		return statusOf(ws), nil
	}
	return Status{Code: ps.ExitCode()}, nil
}

// statusOf is how a process that ended with ws ended.
func statusOf(ws syscall.WaitStatus) Status {
	if ws.Signaled() {
		return Status{Code: 128 + int(ws.Signal()), Signal: ws.Signal()}
	}
	return Status{Code: ws.ExitStatus()}
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// headlessEnv is env for a child that draws only on the emulated screen,
// which nobody sees but claudewrap. What Unreadable names would have it
// draw for a terminal that is not there, and its forms could not be read:
// the child is told TERM=xterm-256color, what the emulator is, with
// colours. Any other TERM is the person's choice and is kept.
func headlessEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return noColour(kv) || strings.HasPrefix(kv, "NO_COLOR=") })
	if asciiTerm(env) {
		out = slices.DeleteFunc(out, func(kv string) bool { return strings.HasPrefix(kv, "TERM=") })
		out = append(out, "TERM=xterm-256color")
	}
	return out
}

// Unreadable says why Claude, drawn on the person's terminal with env,
// draws forms claudewrap cannot read ("" when it can): a TERM that has it
// draw in ASCII (none, dumb, linux), or NO_COLOR (not empty) or
// FORCE_COLOR=0.
func Unreadable(env []string) string {
	var why []string
	if asciiTerm(env) {
		why = append(why, fmt.Sprintf("TERM=%s has Claude draw its menus in ASCII", termOf(env)))
	}
	for _, kv := range env {
		if noColour(kv) {
			why = append(why, kv+" has Claude draw without colours")
		}
	}
	return strings.Join(why, "; ")
}

func termOf(env []string) string {
	term := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TERM="); ok {
			term = v
		}
	}
	return term
}

func asciiTerm(env []string) bool {
	switch termOf(env) {
	case "", "dumb", "linux", "unknown":
		return true
	}
	return false
}

func noColour(kv string) bool {
	k, v, _ := strings.Cut(kv, "=")
	return k == "NO_COLOR" && v != "" || k == "FORCE_COLOR" && (v == "0" || v == "false")
}
