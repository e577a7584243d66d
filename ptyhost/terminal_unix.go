//go:build unix

package ptyhost

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/claudewrap/claudewrap/vt"
	"golang.org/x/term"
)

// terminal is the person's terminal in passthrough.
type terminal struct {
	in, out *os.File
	mu      sync.Mutex
	saved   *term.State // nil until raw mode is on
	// pushed is set while the person's titles are on the terminal's title
	// stack (see pushTitle).
	pushed bool
}

// left is the state a child left the person's terminal in, as last
// emulated, that restoring it depends on.
type left struct {
	alt    bool   // on the alternate screen
	origin bool   // origin mode (DECOM) on
	cursor vt.Pos // where the cursor is, counted from the screen's top-left corner
}

// live holds the terminals in raw mode, for [RestoreTerminals].
var live sync.Map // *terminal -> struct{}

// RestoreTerminals restores every terminal a [Host] has put in raw mode. It is
// for a last-resort path such as a panic; [Host.Wait] restores on its own.
func RestoreTerminals() {
	live.Range(func(k, _ any) bool {
		// The emulator is not asked on this last-resort path: the
		// alternate screen stays, the modes are reset.
		k.(*terminal).restore(left{})
		return true
	})
}

func openTerminal(in, out *os.File) (*terminal, error) {
	if !term.IsTerminal(int(in.Fd())) {
		return nil, fmt.Errorf("passthrough needs a terminal on stdin (use --headless)")
	}
	return &terminal{in: in, out: out}, nil
}

// size reports the size of the person's terminal, from stdout, else stdin.
func (t *terminal) size() (cols, rows int, ok bool) {
	for _, f := range []*os.File{t.out, t.in} {
		if c, r, err := term.GetSize(int(f.Fd())); err == nil && c > 0 && r > 0 {
			return c, r, true
		}
	}
	return 0, 0, false
}

func (t *terminal) makeRaw() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, err := term.MakeRaw(int(t.in.Fd()))
	if err != nil {
		return fmt.Errorf("raw mode: %w", err)
	}
	t.saved = st
	live.Store(t, struct{}{})
	if _, err := io.WriteString(t.out, pushTitle); err == nil {
		t.pushed = true
	}
	return nil
}

// pushTitle saves the person's window and icon titles on the terminal's
// title stack (xterm's XTWINOPS 22;0, which tmux, VTE, kitty and iTerm2
// keep too), and popTitle (23;0) puts them back: a child may set its own
// title (Claude Code does), and a terminal does not tell a program its
// title safely, if at all. A terminal without the stack ignores both.
const (
	pushTitle = "\x1b[22;0t"
	popTitle  = "\x1b[23;0t"
)

// resetModes turns off what a TUI may have left on: a synchronized update
// it died in, bracketed paste, focus events, mouse reporting, colour
// palette reports, kitty keyboard flags, modifyOtherKeys, application
// cursor keys and keypad, attributes, the line-drawing character set;
// turns autowrap back on; and shows the cursor. Each is harmless when
// already so, and none moves the cursor.
const resetModes = "\x1b[?2026l" + // a synchronized update (the terminal holds the picture until it ends)
	"\x1b[0m" + // attributes
	"\x1b[?2004l" + // bracketed paste
	"\x1b[?1004l" + // focus events
	"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l" + // mouse
	"\x1b[?2031l" + // colour palette change reports (Claude Code turns them on)
	"\x1b[<99u" + // pop every kitty keyboard level
	"\x1b[>4m" + // modifyOtherKeys off
	"\x1b[?1l" + // cursor keys send CSI, not SS3 (DECCKM)
	"\x1b>" + // numeric keypad (DECKPNM)
	"\x1b[?7h" + // autowrap (DECAWM)
	"\x0f\x1b(B" + // ASCII in G0, and G0 in use (SI): not DEC line drawing
	"\x1b[?25h" // cursor visible

// resetMargins gives the scroll region back the whole screen (DECSTBM),
// the cursor saved and restored around it (DECSC, DECRC) as it homes the
// cursor: a child that kept its last line for a status (apt's progress
// bar) and died leaves the region on the main screen, and the shell would
// scroll only within it. Harmless with no region.
const resetMargins = "\x1b7\x1b[r\x1b8"

// resetOrigin turns origin mode off and the scroll region with it; both
// home the cursor. DECRC would turn origin mode back on, so resetMargins
// cannot undo it.
const resetOrigin = "\x1b[?6l\x1b[r"

// leaveAlt takes the terminal back to its main screen. It is written only
// when the child left the terminal on the alternate one (Claude Code's
// fullscreen renderer, killed before it could leave): on the main screen it
// would restore a cursor saved long ago.
const leaveAlt = "\x1b[?1049l"

// restore puts the terminal back as it was, from the state l the child
// left it in: on its main screen, with no scroll region or origin mode, the
// cursor where the child left it on the main screen, the person's titles,
// and the modes reset. Safe to call more than once and from any goroutine.
func (t *terminal) restore(l left) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.saved == nil {
		return
	}
	_, _ = io.WriteString(t.out, restoreSeq(l, t.pushed))
	t.pushed = false
	_ = term.Restore(int(t.in.Fd()), t.saved)
	t.saved = nil
	live.Delete(t)
}

// restoreSeq is what restore writes for l; popTitle too if pushed. It ends
// with resetModes.
func restoreSeq(l left, pushed bool) string {
	var b strings.Builder
	if l.origin {
		b.WriteString(resetOrigin)
		if !l.alt {
			// Back where the child left the cursor; on the alternate
			// screen, leaving it puts the cursor back.
			fmt.Fprintf(&b, "\x1b[%d;%dH", l.cursor.Y+1, l.cursor.X+1)
		}
	}
	if l.alt {
		b.WriteString(leaveAlt)
	}
	b.WriteString(resetMargins)
	if pushed {
		b.WriteString(popTitle)
	}
	b.WriteString(resetModes)
	return b.String()
}

// killGrace is how long the child has to end after a termination signal
// before it is killed.
const killGrace = 3 * time.Second

// catchSignals takes from now on the signals handleSignals acts on, so
// that none ends the wrapper by default before it runs (with the terminal
// left raw): they wait in the channel. Stop it with signal.Stop.
func catchSignals() chan os.Signal {
	ch := make(chan os.Signal, 32) // unread until the host runs: room for a burst of resizes
	signal.Notify(ch, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	return ch
}

// handleSignals resizes on SIGWINCH and ends the child when the wrapper is
// told to stop, for the signals ch caught (catchSignals); the normal exit
// path then restores the terminal.
func (h *Host) handleSignals(ch chan os.Signal) (stop func()) {
	quit := make(chan struct{})
	go func() {
		var kill <-chan time.Time
		for {
			select {
			case sig := <-ch:
				switch sig {
				case syscall.SIGWINCH:
					if h.term != nil {
						if c, r, ok := h.term.size(); ok {
							_ = h.Resize(c, r)
						}
					}
				case syscall.SIGHUP:
					_ = h.Signal(syscall.SIGHUP)
					kill = time.After(killGrace)
				default:
					if sig == syscall.SIGINT {
						h.interrupted.Store(true)
					}
					_ = h.Signal(syscall.SIGTERM)
					kill = time.After(killGrace)
				}
			case <-kill:
				_ = h.Signal(syscall.SIGKILL)
			case <-quit:
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(quit)
		})
	}
}
