package ptyhost

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/screen"
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

	// Stdin and Stdout are the person's terminal in passthrough. Nil means
	// os.Stdin and os.Stdout.
	Stdin  *os.File
	Stdout *os.File

	// Tap, if set, sees every chunk of the child's output, and every key the
	// wrapper sends (see [Tap]).
	Tap Tap
	// OnInput, if set, is called with each chunk the person types, before it
	// is forwarded to the child.
	OnInput func(p []byte)
}

// Tap observes traffic through the host, e.g. to record it. Its methods are
// called from the host's goroutines, one call at a time per method.
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
	cmd    *exec.Cmd
	ptmx   *os.File
	screen screen.Emulator
	term   *terminal // the person's terminal in passthrough, else nil

	input   chan []byte   // everything written to the PTY, in order
	outDone chan struct{} // closed when the output copy has drained
	done    chan struct{} // closed when the child has exited
	status  Status
	waitErr error

	sizeMu sync.Mutex // keeps PTY and emulator resizes together
	closed bool       // the PTY is closed; guarded by sizeMu
	stop   func()     // stops signal handling
}

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
	cols, rows := cfg.Cols, cfg.Rows
	if !cfg.Headless {
		t, err := openTerminal(cfg.Stdin, cfg.Stdout)
		if err != nil {
			return nil, err
		}
		h.term = t
		if c, r, ok := t.size(); ok {
			cols, rows = c, r
		}
	}
	var replies io.Writer
	if cfg.Headless {
		replies = writerFunc(h.enqueue)
	}
	h.screen = screen.New(screen.Options{Cols: cols, Rows: rows, Replies: replies})

	h.cmd = exec.Command(cfg.Path, cfg.Args...)
	h.cmd.Env = cfg.Env
	h.cmd.Dir = cfg.Dir
	ptmx, err := pty.StartWithSize(h.cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		h.restore()
		return nil, fmt.Errorf("%w: start %s: %w", ErrStart, cfg.Path, err)
	}
	h.ptmx = ptmx
	if cfg.Tap != nil {
		cfg.Tap.Resize(cols, rows)
	}
	if h.term != nil {
		if err := h.term.makeRaw(); err != nil {
			_ = h.cmd.Process.Kill()
			return nil, err
		}
	}
	h.stop = h.handleSignals()
	go h.writeLoop()
	go h.readLoop()
	go h.wait()
	if h.term != nil {
		go h.copyInput()
	}
	return h, nil
}

// Screen is the emulated copy of the child's terminal.
func (h *Host) Screen() screen.Emulator { return h.screen }

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
	h.sizeMu.Lock()
	defer h.sizeMu.Unlock()
	if h.closed {
		return errors.New("resize: claude has exited")
	}
	if c, r := h.screen.Size(); c == cols && r == rows {
		return nil
	}
	h.screen.Resize(cols, rows)
	if h.cfg.Tap != nil {
		h.cfg.Tap.Resize(cols, rows)
	}
	if err := pty.Setsize(h.ptmx, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		return fmt.Errorf("resize pty: %w", err)
	}
	return nil
}

// Signal sends sig to the child.
func (h *Host) Signal(sig os.Signal) error { return h.cmd.Process.Signal(sig) }

// Wait waits for the child to exit and its output to drain, restores the
// person's terminal, and reports how the child ended.
func (h *Host) Wait() (Status, error) {
	<-h.done
	return h.status, h.waitErr
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

func (h *Host) readLoop() {
	// The emulator runs behind a queue so that a burst reaches the person at
	// the PTY's pace; the queue's bound keeps memory in check when the
	// emulator falls behind for long.
	emu := make(chan []byte, 256)
	emuDone := make(chan struct{})
	go func() {
		defer close(emuDone)
		for p := range emu {
			_, _ = h.screen.Write(p)
		}
	}()
	defer func() {
		close(emu)
		<-emuDone
		close(h.outDone)
	}()
	buf := make([]byte, 32*1024)
	for {
		n, err := h.ptmx.Read(buf)
		if n > 0 {
			p := buf[:n]
			if h.term != nil {
				_, _ = h.term.out.Write(p)
			}
			if h.cfg.Tap != nil {
				h.cfg.Tap.Output(p)
			}
			emu <- append([]byte(nil), p...)
		}
		if err != nil {
			// Linux reports EIO once the child side is closed and drained.
			return
		}
	}
}

// drainGrace bounds how long output may keep arriving after the child has
// exited (a grandchild may hold the PTY open).
const drainGrace = 2 * time.Second

func (h *Host) wait() {
	err := h.cmd.Wait()
	timer := time.NewTimer(drainGrace)
	select {
	case <-h.outDone:
		timer.Stop()
	case <-timer.C:
		// Unblocks the read; what was read so far has been delivered.
		_ = h.ptmx.SetReadDeadline(time.Now())
		<-h.outDone
	}
	h.sizeMu.Lock()
	_ = h.ptmx.Close()
	h.closed = true
	h.sizeMu.Unlock()
	h.status, h.waitErr = exitStatus(h.cmd.ProcessState, err)
	if h.stop != nil {
		h.stop()
	}
	h.restore()
	close(h.done)
}

func (h *Host) restore() {
	if h.term != nil {
		h.term.restore()
	}
}

func (h *Host) copyInput() {
	buf := make([]byte, 4096)
	for {
		n, err := h.term.in.Read(buf)
		if n > 0 {
			if h.cfg.OnInput != nil {
				h.cfg.OnInput(buf[:n])
			}
			h.enqueue(buf[:n])
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
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Status{Code: 128 + int(ws.Signal()), Signal: ws.Signal()}, nil
	}
	return Status{Code: ps.ExitCode()}, nil
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
