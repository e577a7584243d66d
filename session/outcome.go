package session

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
)

// ExitCode is the status claudewrap exits with.
type ExitCode int

// Exit statuses, as README.md (Exit status) lists them. Claude's own status passes
// through as is.
const (
	ExitOK         ExitCode = 0
	ExitError      ExitCode = 1 // an error of claudewrap's own not listed below
	ExitUsage      ExitCode = 2 // bad flags or rules
	ExitStart      ExitCode = 3 // claude could not start
	ExitUnmatched  ExitCode = 4 // an unmatched question under the fail policy
	ExitNavigation ExitCode = 5 // the screen never confirmed a step
	ExitMismatch   ExitCode = 6 // Claude recorded something other than intended
	ExitBlocked    ExitCode = 7 // a dialog nobody answered (headless), or a rule failed the run
	// ExitInterrupted: the person pressed Ctrl-C, as a shell reports it.
	ExitInterrupted ExitCode = 130
)

// Mode is where a run meets its person: whether Claude is drawn on the
// person's screen or headless, and whether a terminal is at hand.
type Mode struct {
	Headless bool
	Terminal bool // stdin is a terminal
}

// Policy picks the unmatched policy: flag (--on-unmatched) if set, else
// the rules' default, else passthrough when Claude is on the person's
// screen, ask when headless with a terminal at hand, fail with no terminal
// at all. timed says the run has an answer timeout. The combinations that
// cannot work are refused.
func (m Mode) Policy(flag, fromRules rules.Policy, timed bool) (rules.Policy, error) {
	p := flag
	if p == "" {
		p = fromRules
		// A rules file written for a terminal still serves headless runs,
		// and one written for claudewrap's prompt serves a run with Claude
		// on the person's screen (they answer in Claude's own menu), and
		// one with no terminal at all (a night job run by cron): there the
		// question waits for an answer from anywhere (claudewrap answer,
		// serve) until the timeout's fallback, or without a timeout,
		// which would wait for ever, fails.
		if p == rules.Passthrough && m.Headless {
			p = ""
		}
		if p == rules.Ask && !m.Headless {
			p = rules.Passthrough
		}
		if p == rules.Ask && !m.Terminal {
			p = ""
			if timed {
				p = rules.Wait
			}
		}
	}
	if p == "" {
		switch {
		case !m.Headless:
			p = rules.Passthrough
		case m.Terminal:
			p = rules.Ask
		default:
			p = rules.Fail
		}
	}
	switch {
	case p == rules.Ask && !m.Headless:
		return "", errors.New("the ask policy is for --headless runs; with Claude on your screen, answer in its own menu (passthrough)")
	case p == rules.Ask && !m.Terminal:
		return "", errors.New("the ask policy needs a terminal on stdin")
	case p == rules.Passthrough && m.Headless:
		return "", errors.New("the passthrough policy needs Claude on the person's screen; it cannot work with --headless")
	}
	return p, nil
}

// Exit makes the exit status of a run that ended with r and err (Run's
// results), and the reason to print with it (nil when there is none to
// print: the status is Claude's own). claudewrap's own outcomes come first,
// the worst first; then Claude's status, unless claudewrap ended Claude
// itself.
func (r Report) Exit(err error) (ExitCode, error) {
	code := ExitCode(r.Claude.Code)
	switch {
	case r.Mismatch:
		code = ExitMismatch
	case r.Navigation:
		code = ExitNavigation
	case r.Unmatched:
		code = ExitUnmatched
	case r.Interrupted:
		code = ExitInterrupted
	case r.Blocked != "":
		code = ExitBlocked
	case r.TurnFailed != "":
		code = ExitError
	case r.Ended:
		code = ExitOK
	}
	if err == nil && code == ExitNavigation && len(r.Failures) > 0 {
		err = fmt.Errorf("a form could not be answered: %s", r.Failures[0])
		if n := len(r.Failures); n > 1 {
			err = fmt.Errorf("%w (and %d more)", err, n-1)
		}
	}
	if err == nil && r.Interrupted && code == ExitInterrupted {
		err = errors.New("interrupted (Ctrl-C)")
	}
	if err == nil && code == ExitBlocked {
		err = errors.New(r.Blocked)
	}
	if err == nil && r.TurnFailed != "" && code == ExitError {
		err = errors.New(r.TurnFailed)
	}
	if err == nil && r.Why[code] != "" {
		err = errors.New(r.Why[code])
	}
	if err != nil {
		switch {
		case errors.Is(err, ptyhost.ErrStart):
			code = ExitStart
		case errors.Is(err, hook.ErrSettings):
			code = ExitUsage
		case code == ExitOK:
			code = ExitError
		}
	}
	return code, err
}

// ClaudeEnded says how Claude ended, for the exit event: a status of 143
// after claudewrap ended it at the end of its turn is no alarm, and says so.
func (r Report) ClaudeEnded() string {
	switch {
	case r.Interrupted:
		return "ended by claudewrap: the person pressed Ctrl-C"
	case r.Ended && r.EndedWhy != "":
		return "ended by claudewrap: " + r.EndedWhy
	case r.Ended:
		return "ended by claudewrap at the end of its turn"
	case r.Blocked != "":
		return "ended by claudewrap: nobody could answer it"
	case r.TurnFailed != "":
		return "ended by claudewrap: its turn ended in an error"
	case r.Claude.Signal != 0:
		// By its name: Go's own for SIGKILL is "killed".
		if name := unix.SignalName(r.Claude.Signal); name != "" {
			return "killed by " + name
		}
		return fmt.Sprintf("killed by signal %d", int(r.Claude.Signal))
	}
	return fmt.Sprintf("exited with status %d", r.Claude.Code)
}
