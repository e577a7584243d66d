package cli

import (
	"os"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/session"
)

// TestUnmatchedPolicy: the flag wins, else the rules' default, else what
// suits where Claude is drawn and whether a person is at a terminal; the
// combinations that cannot work are refused.
func TestUnmatchedPolicy(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	noTTY := devNull(t)
	setWith := func(yaml string) *rules.Set {
		if yaml == "" {
			return &rules.Set{}
		}
		f, err := rules.Parse("r.yaml", []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		return &rules.Set{Files: []*rules.File{f}}
	}
	for _, tc := range []struct {
		name     string
		flag     string
		defaults string // the rules file, "" for none
		headless bool
		stdin    *os.File
		want     rules.Policy
		refused  bool
	}{
		{name: "on the person's screen", stdin: tty, want: rules.Passthrough},
		{name: "headless with a terminal", headless: true, stdin: tty, want: rules.Ask},
		{name: "headless with no terminal", headless: true, stdin: noTTY, want: rules.Fail},
		{name: "the flag wins", flag: "cancel", defaults: "version: 1\ndefaults: {on_unmatched: fallback, fallback: {cancel: true}}\n", headless: true, stdin: noTTY, want: rules.CancelForm},
		{name: "the rules' default", defaults: "version: 1\ndefaults: {on_unmatched: fallback, fallback: {cancel: true}}\n", headless: true, stdin: noTTY, want: rules.Fallback},
		{name: "a terminal's passthrough default serves headless runs", defaults: "version: 1\ndefaults: {on_unmatched: passthrough}\n", headless: true, stdin: noTTY, want: rules.Fail},
		{name: "ask on the person's screen", flag: "ask", stdin: tty, refused: true},
		{name: "ask with no terminal", flag: "ask", headless: true, stdin: noTTY, refused: true},
		{name: "passthrough headless", flag: "passthrough", headless: true, stdin: tty, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := &RunOptions{OnUnmatched: tc.flag, Headless: tc.headless, Stdin: tc.stdin}
			got, err := unmatchedPolicy(opts, setWith(tc.defaults))
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

// TestExitCodeOf: claudewrap's own outcomes first, the worst first; else
// Claude's status, unless claudewrap ended Claude itself.
func TestExitCodeOf(t *testing.T) {
	for _, tc := range []struct {
		rep  session.Report
		want ExitCode
	}{
		{session.Report{}, ExitOK},
		{session.Report{Claude: ptyhost.Status{Code: 3}}, 3},
		{session.Report{Claude: ptyhost.Status{Code: 130, Signal: syscall.SIGINT}}, 130},
		{session.Report{Claude: ptyhost.Status{Code: 143}, Ended: true}, ExitOK},
		{session.Report{Unmatched: true, Ended: true}, ExitUnmatched},
		{session.Report{Navigation: true, Unmatched: true}, ExitNavigation},
		{session.Report{Mismatch: true, Navigation: true, Unmatched: true, Claude: ptyhost.Status{Code: 1}}, ExitMismatch},
	} {
		if got := exitCodeOf(tc.rep); got != tc.want {
			t.Errorf("%+v: exit %d, want %d", tc.rep, got, tc.want)
		}
	}
}
