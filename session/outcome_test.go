package session

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
)

// TestModePolicy: the flag wins, else the rules' default, else what suits
// where Claude is drawn and whether a person is at a terminal; the
// combinations that cannot work are refused.
func TestModePolicy(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mode      Mode
		flag      rules.Policy
		fromRules rules.Policy
		timed     bool
		want      rules.Policy
		refused   bool
	}{
		{name: "on the person's screen", mode: Mode{Terminal: true}, want: rules.Passthrough},
		{name: "headless with a terminal", mode: Mode{Headless: true, Terminal: true}, want: rules.Ask},
		{name: "headless with no terminal", mode: Mode{Headless: true}, want: rules.Fail},
		{name: "the flag wins", mode: Mode{Headless: true}, flag: rules.CancelForm, fromRules: rules.Fallback, want: rules.CancelForm},
		{name: "the rules' default", mode: Mode{Headless: true}, fromRules: rules.Fallback, want: rules.Fallback},
		{name: "a terminal's passthrough default serves headless runs", mode: Mode{Headless: true}, fromRules: rules.Passthrough, want: rules.Fail},
		{name: "the rules' ask on the person's screen", mode: Mode{Terminal: true}, fromRules: rules.Ask, want: rules.Passthrough},
		// A night job's rules run by cron: nobody at a terminal; anyone
		// may answer until the timeout's fallback, and with no timeout
		// the question fails rather than waiting for ever.
		{name: "the rules' ask with no terminal, timed", mode: Mode{Headless: true}, fromRules: rules.Ask, timed: true, want: rules.Wait},
		{name: "the rules' ask with no terminal", mode: Mode{Headless: true}, fromRules: rules.Ask, want: rules.Fail},
		{name: "the rules' ask headless with a terminal", mode: Mode{Headless: true, Terminal: true}, fromRules: rules.Ask, timed: true, want: rules.Ask},
		{name: "ask on the person's screen", mode: Mode{Terminal: true}, flag: rules.Ask, refused: true},
		{name: "ask with no terminal", mode: Mode{Headless: true}, flag: rules.Ask, timed: true, refused: true},
		{name: "passthrough headless", mode: Mode{Headless: true, Terminal: true}, flag: rules.Passthrough, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.mode.Policy(tc.flag, tc.fromRules, tc.timed)
			if tc.refused {
				if err == nil {
					t.Errorf("policy %q accepted, want refused", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("policy %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestReportExit: claudewrap's own outcomes first, the worst first; else
// Claude's status, unless claudewrap ended Claude itself; errors by kind;
// a navigation failure says which form.
func TestReportExit(t *testing.T) {
	for _, tc := range []struct {
		rep    Report
		err    error
		want   ExitCode
		reason string // "" when there is none to print
	}{
		{rep: Report{}, want: ExitOK},
		{rep: Report{Claude: ptyhost.Status{Code: 3}}, want: 3},
		{rep: Report{Claude: ptyhost.Status{Code: 130, Signal: syscall.SIGINT}}, want: 130},
		{rep: Report{Claude: ptyhost.Status{Code: 143}, Ended: true}, want: ExitOK},
		{rep: Report{Unmatched: true, Ended: true}, want: ExitUnmatched},
		{rep: Report{Navigation: true, Unmatched: true}, want: ExitNavigation},
		{rep: Report{Mismatch: true, Navigation: true, Unmatched: true, Claude: ptyhost.Status{Code: 1}}, want: ExitMismatch},
		{rep: Report{Navigation: true, Failures: []string{"form t1: lost", "form t2: lost"}}, want: ExitNavigation,
			reason: "a form could not be answered: form t1: lost (and 1 more)"},
		{rep: Report{}, err: fmt.Errorf("claude: %w", ptyhost.ErrStart), want: ExitStart, reason: "claude: " + ptyhost.ErrStart.Error()},
		{rep: Report{}, err: fmt.Errorf("--settings: %w", hook.ErrSettings), want: ExitUsage, reason: "--settings: " + hook.ErrSettings.Error()},
		{rep: Report{}, err: errors.New("socket gone"), want: ExitError, reason: "socket gone"},
		{rep: Report{Mismatch: true}, err: errors.New("socket gone"), want: ExitMismatch, reason: "socket gone"},
		// Each outcome says why, the worst one's reason first.
		{rep: Report{Unmatched: true, Why: map[ExitCode]string{ExitUnmatched: "no rule answers the question \"Q\""}},
			want: ExitUnmatched, reason: "no rule answers the question \"Q\""},
		{rep: Report{Mismatch: true, Unmatched: true, Why: map[ExitCode]string{ExitUnmatched: "u", ExitMismatch: "m"}},
			want: ExitMismatch, reason: "m"},
		{rep: Report{Interrupted: true, Ended: true, Claude: ptyhost.Status{Code: 143}}, want: ExitInterrupted, reason: "interrupted (Ctrl-C)"},
		{rep: Report{Ended: true, Claude: ptyhost.Status{Code: 143}}, want: ExitOK},
	} {
		code, err := tc.rep.Exit(tc.err)
		reason := ""
		if err != nil {
			reason = err.Error()
		}
		if code != tc.want || reason != tc.reason {
			t.Errorf("%+v, %v: exit %d %q, want %d %q", tc.rep, tc.err, code, reason, tc.want, tc.reason)
		}
	}
}

// How Claude ended reads as a person would say it: a signal by its name.
func TestClaudeEnded(t *testing.T) {
	for _, tc := range []struct {
		rep  Report
		want string
	}{
		{Report{Claude: ptyhost.Status{Code: 3}}, "exited with status 3"},
		{Report{Claude: ptyhost.Status{Code: 137, Signal: syscall.SIGKILL}}, "killed by SIGKILL"},
		{Report{Claude: ptyhost.Status{Code: 139, Signal: syscall.SIGSEGV}}, "killed by SIGSEGV"},
		{Report{Claude: ptyhost.Status{Code: 143}, Ended: true}, "ended by claudewrap at the end of its turn"},
		{Report{Claude: ptyhost.Status{Code: 143}, Ended: true, EndedWhy: DryRunDone}, "ended by claudewrap: " + DryRunDone},
	} {
		if got := tc.rep.ClaudeEnded(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.rep.Claude, got, tc.want)
		}
	}
}
