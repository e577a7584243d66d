package cli

import (
	"strings"
	"testing"
)

// TestFlagSuggestion: a misspelt flag is a usage error that names the flag
// meant; on run, a flag that misspells none of run's keeps the hint that
// claude's own flags go after --.
func TestFlagSuggestion(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"run", "--rule", "x.yaml"}, "unknown flag --rule: did you mean --rules?", "after --"},
		{[]string{"run", "--rule=x.yaml"}, "unknown flag --rule: did you mean --rules?", "after --"},
		{[]string{"run", "--headles"}, "did you mean --headless?", "after --"},
		{[]string{"run", "--head"}, "did you mean --headless?", "after --"},
		{[]string{"pending", "--jsn"}, "unknown flag --jsn: did you mean --json?", ""},
		{[]string{"answer", "4242", "--selct", "A"}, "did you mean --select?", ""},
		{[]string{"rules", "check", "--strct", "x.yaml"}, "did you mean --strict?", ""},
		// Claude's own flags: no flag of run's is meant.
		{[]string{"run", "--model", "opus"}, "claude's own flags go after --", "did you mean"},
		{[]string{"run", "--ide"}, "claude's own flags go after --", "did you mean"},
		{[]string{"run", "--resume"}, "claude's own flags go after --", "did you mean"},
		{[]string{"pending", "--everything"}, "unknown flag: --everything", "did you mean"},
	} {
		_, err := executeCmd(t, devNull(t), tc.args...)
		if codeOf(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), tc.want) ||
			tc.not != "" && strings.Contains(err.Error(), tc.not) {
			t.Errorf("%q: %v (exit %d), want a usage error with %q and without %q", tc.args, err, codeOf(err), tc.want, tc.not)
		}
	}
}

// TestDurationFlagWithoutUnit: a duration flag given a bare number says
// how to write it.
func TestDurationFlagWithoutUnit(t *testing.T) {
	_, err := executeCmd(t, devNull(t), "run", "--answer-timeout", "10")
	if codeOf(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), "write it with a unit, such as 10s or 10m") {
		t.Errorf("--answer-timeout 10: %v (exit %d)", err, codeOf(err))
	}
}

// TestHelpNamesWhatIsAnswered: the one-liners of --help name what each
// command answers: forms, permission prompts, plan approval, dialogs and MCP
// servers' forms for run; forms and MCP servers' forms for the commands
// that answer from anywhere.
func TestHelpNamesWhatIsAnswered(t *testing.T) {
	root := NewCmdRoot(devNull(t), nil, nil)
	every := []string{"forms", "permission prompts", "plan approval", "dialogs", "MCP servers' forms"}
	for _, tc := range []struct {
		path []string
		want []string
	}{
		{nil, every},
		{[]string{"run"}, every},
		{[]string{"pending"}, []string{"forms", "MCP servers' forms"}},
		{[]string{"wait"}, []string{"form", "MCP server's form"}},
		{[]string{"answer"}, []string{"form", "MCP server's form"}},
		{[]string{"serve"}, []string{"forms", "MCP servers' forms"}},
		{[]string{"rules"}, []string{"form", "permission prompt", "MCP server's form"}},
	} {
		cmd, _, err := root.Find(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(cmd.Short, w) {
				t.Errorf("%s: Short %q does not say %q", cmd.CommandPath(), cmd.Short, w)
			}
		}
	}
	if !strings.Contains(root.Long, "MCP servers' input forms") || !strings.Contains(root.Long, "permission prompts") {
		t.Errorf("claudewrap's Long names only some of what it answers:\n%s", root.Long)
	}
}
