//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// The dialogs that are not question forms (issue 13), on every pinned
// Claude Code version: the trust dialog, permission prompts, plan approval,
// and dialogs nobody answers; and the bypass confirmation on the e2e
// versions; through the claudewrap binary as a CI job runs it (headless,
// --exit-after-turn).

// forPinned runs f on every pinned version, in parallel.
func forPinned(t *testing.T, f func(t *testing.T, version string)) {
	forEach(t, claudetest.PinnedVersions(), f)
}

// dialogRun is one headless claudewrap run and what came of it.
type dialogRun struct {
	sb      *claudetest.Sandbox
	code    int
	stderr  string
	events  string
	elapsed time.Duration
}

// find is the run's events named name, decoded.
func (r dialogRun) find(name string) []event {
	var out []event
	for _, l := range strings.Split(r.events, "\n") {
		var e event
		if json.Unmarshal([]byte(l), &e) == nil && e.name() == name {
			out = append(out, e)
		}
	}
	return out
}

func (r dialogRun) String() string {
	return "exit " + strconv.Itoa(r.code) + " after " + r.elapsed.Round(time.Millisecond).String() +
		"\nstderr: " + r.stderr + "\nevents:\n" + r.events
}

// has reports whether an event of that name came with every field given
// (name, value, name, value…).
func (r dialogRun) has(name string, fields ...string) bool {
	for _, l := range strings.Split(r.events, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(l), &ev) != nil || ev["event"] != name {
			continue
		}
		ok := true
		for i := 0; i+1 < len(fields); i += 2 {
			ok = ok && fmt.Sprint(ev[fields[i]]) == fields[i+1]
		}
		if ok {
			return true
		}
	}
	return false
}

// homeState is how far Claude Code got on this machine before.
type homeState int

const (
	trusted   homeState = iota // onboarded, the project folder trusted
	untrusted                  // onboarded, the folder not trusted
	fresh                      // never ran: onboarding first
)

// runDialog runs `claudewrap run --headless --exit-after-turn` with the
// rules given (none when ""), run flags, and claude's arguments, in a
// project folder Claude trusts unless untrusted.
func runDialog(t *testing.T, version, scenario, rulesYAML string, home homeState, flags []string, claudeArgs ...string) dialogRun {
	t.Helper()
	sb := claudetest.New(t, version, scenario)
	dir := t.TempDir()
	switch home {
	case untrusted:
		if err := claudetest.Seed(sb.Home, filepath.Join(dir, "elsewhere")); err != nil {
			t.Fatal(err)
		}
	case fresh:
		// As on a machine where Claude Code never ran: onboarding first.
		cfg := filepath.Join(sb.Home, ".claude.json")
		b, err := os.ReadFile(cfg)
		var m map[string]any
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			t.Fatal(err)
		}
		delete(m, "hasCompletedOnboarding")
		b, _ = json.Marshal(m)
		if err := os.WriteFile(cfg, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return runWrapped(t, sb, rulesYAML, nil, flags, claudeArgs...)
}

// runWrapped runs `claudewrap run --headless --exit-after-turn` in the
// sandbox's project folder with the rules given (none when ""), extra
// environment, run flags and claude's arguments, until it ends by itself
// (or a deadline).
func runWrapped(t *testing.T, sb *claudetest.Sandbox, rulesYAML string, env, flags []string, claudeArgs ...string) dialogRun {
	t.Helper()
	bin := claudetest.Claudewrap(t)
	dir := t.TempDir()
	evs := filepath.Join(dir, "events.jsonl")
	args := []string{"run", "--claude", sb.Claude, "--headless", "--exit-after-turn", "--events", evs}
	if rulesYAML != "" {
		rules := filepath.Join(dir, "rules.yaml")
		if err := os.WriteFile(rules, []byte(rulesYAML), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--rules", rules)
	}
	args = append(append(append(args, flags...), "--"), claudeArgs...)
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = append(sb.Env(), env...), sb.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		<-done
		b, _ := os.ReadFile(evs)
		t.Fatalf("the run did not end by itself in 120s\nstderr: %s\nevents:\n%s", stderr.String(), b)
	}
	r := dialogRun{sb: sb, stderr: stderr.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	b, _ := os.ReadFile(evs)
	r.events = string(b)
	return r
}

// TestDialogTrust: in a folder Claude does not trust yet, --trust answers
// the trust dialog "Yes" on the screen and the run goes on to the end;
// without it the run ends by itself, blocked (exit 7), saying how to trust.
func TestDialogTrust(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		r := runDialog(t, version, "testdata/scenarios/hello.yaml", "", untrusted, []string{"--trust"}, "say hello")
		if r.code != 0 || !r.has("submitted", "dialog", "trust") {
			t.Fatalf("with --trust: want the dialog answered and exit 0\n%s", r)
		}
		greeted := false
		for _, req := range r.sb.API.Requests() {
			greeted = greeted || strings.Contains(req.Text, "say hello")
		}
		if !greeted {
			t.Errorf("with --trust: Claude never sent the prompt\n%s", r)
		}

		r = runDialog(t, version, "testdata/scenarios/hello.yaml", "", untrusted, nil, "say hello")
		if r.code != 7 || !strings.Contains(r.stderr, "--trust") || !r.has("blocked") ||
			r.has("key") {
			t.Fatalf("without --trust: want blocked, exit 7, a reason naming --trust and no key pressed\n%s", r)
		}
		if t.Failed() {
			return
		}
		report("Claude Code %s: trust dialog: --trust answers it (exit 0); without it blocked, exit 7 after %v",
			version, r.elapsed.Round(100*time.Millisecond))
	})
}

const bashRules = `version: 1
permissions:
  - name: builds
    when: {tool: Bash, command: "^rm -rf build$"}
    decide: %s
`

// TestDialogPermission: a Bash permission prompt allowed by a rule runs the
// command (through the hook, or on the screen for allow_session); one
// denied by a rule gives Claude the rule's message; with no
// rule, the dialog Claude draws is reported blocked (exit 7), nothing
// pressed.
func TestDialogPermission(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		mode := []string{"--permission-mode", "default", "clean the build"}
		r := runDialog(t, version, "testdata/scenarios/bash.yaml", strings.Replace(bashRules, "%s", "allow", 1), trusted, nil, mode...)
		res := toolResult(r, "toolu_01bash")
		if r.code != 0 || res == nil || res.IsError || !r.has("verified", "tool", "Bash", "outcome", "ran", "tool_use_id", "toolu_01bash") {
			t.Errorf("allowed: want the command run (tool_result not an error), verified, exit 0, got %+v\n%s", res, r)
		}
		r = runDialog(t, version, "testdata/scenarios/bash.yaml",
			strings.Replace(bashRules, "%s", `{deny: "no deleting in this job"}`, 1), trusted, nil, mode...)
		res = toolResult(r, "toolu_01bash")
		if r.code != 0 || res == nil || !res.IsError || !strings.Contains(res.Content, "no deleting in this job") ||
			!r.has("verified", "tool", "Bash", "outcome", "refused") {
			t.Errorf("denied: want an error tool_result with the rule's message, verified, exit 0, got %+v\n%s", res, r)
		}
		r = runDialog(t, version, "testdata/scenarios/bash.yaml", strings.Replace(bashRules, "%s", "allow_session", 1), trusted, nil, mode...)
		res = toolResult(r, "toolu_01bash")
		if r.code != 0 || res == nil || res.IsError || !r.has("submitted", "dialog", "permission") ||
			!r.has("verified", "tool", "Bash", "outcome", "ran") {
			t.Errorf("allowed for the session: want the dialog's \"Yes, and …\" picked on the screen, the command run, exit 0; got %+v\n%s", res, r)
		}
		r = runDialog(t, version, "testdata/scenarios/bash.yaml", "version: 1\n", trusted, nil, mode...)
		if r.code != 7 || !r.has("blocked") || r.has("key") ||
			toolResult(r, "toolu_01bash") != nil {
			t.Errorf("no rule: want blocked, exit 7, nothing pressed, nothing recorded\n%s", r)
		}
		if t.Failed() {
			return
		}
		report("Claude Code %s: Bash permission: allowed and denied by rule (verified in the tool_result); unanswered: blocked, exit 7", version)
	})
}

// TestDialogPlanApproval: plan approval (ExitPlanMode) answered by a rule
// on the screen, as 2.1.330 takes no hook decision for it.
func TestDialogPlanApproval(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		r := runDialog(t, version, "testdata/scenarios/plan.yaml",
			"version: 1\npermissions:\n  - when: {tool: ExitPlanMode}\n    decide: allow\n", trusted, nil,
			"--permission-mode", "plan", "plan the work")
		res := toolResult(r, "toolu_01plan")
		if r.code != 0 || res == nil || res.IsError || !r.has("submitted", "dialog", "plan") ||
			!r.has("verified", "tool", "ExitPlanMode", "outcome", "approved") {
			t.Fatalf("want the plan approved on the screen, verified, exit 0, got %+v\n%s", res, r)
		}
		report("Claude Code %s: plan approval by rule: tool_result %.60q", version, res.Content)
	})
}

// TestDialogPlanFeedback: with a plan file, plan approval offers "Tell
// Claude what to change"; a rule that denies the plan types its message
// there, and Claude is told so (the tool_result has the message).
func TestDialogPlanFeedback(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		const rules = "version: 1\npermissions:\n  - name: one step at a time\n    when: {tool: ExitPlanMode}\n" +
			"    decide: {deny: \"Split step 2 in two\"}\n"
		r := runDialog(t, version, "testdata/scenarios/planfile.yaml", rules, trusted, nil,
			"--permission-mode", "plan", "plan the work")
		res := toolResult(r, "toolu_01plan")
		if r.code != 0 || res == nil || !res.IsError || !strings.Contains(res.Content, "Split step 2 in two") ||
			!r.has("submitted", "dialog", "plan", "text", "Split step 2 in two") ||
			!r.has("verified", "tool", "ExitPlanMode", "outcome", "refused") {
			t.Fatalf("want the feedback typed on the screen, Claude told it, verified, exit 0; got %+v\n%s", res, r)
		}
		report("Claude Code %s: plan feedback by rule: tool_result %.60q…", version, res.Content[max(0, len(res.Content)-60):])
	})
}

// TestDialogFail: a permission rule that fails the run ends it at that
// tool: blocked, exit 7, a reason naming the rule, the command not run.
func TestDialogFail(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		r := runDialog(t, version, "testdata/scenarios/bash.yaml", strings.Replace(bashRules, "%s", "fail", 1), trusted, nil,
			"--permission-mode", "default", "clean the build")
		res := toolResult(r, "toolu_01bash")
		if r.code != 7 || !r.has("blocked") || !strings.Contains(r.stderr, `"builds"`) || (res != nil && !res.IsError) {
			t.Fatalf("want blocked, exit 7, the rule named on stderr, the command not run; got %+v\n%s", res, r)
		}
		report("Claude Code %s: permission rule fail: %s", version, strings.TrimSpace(r.stderr))
	})
}

// TestDialogUnknown: a dialog claudewrap does not know — Claude Code's
// first-run onboarding, on a machine where it never ran — with no rules:
// reported by the watchdog (blocked, exit 7) in bounded time, nothing
// pressed.
func TestDialogUnknown(t *testing.T) {
	forPinned(t, func(t *testing.T, version string) {
		r := runDialog(t, version, "testdata/scenarios/hello.yaml", "version: 1\n", fresh, nil,
			"say hello")
		if r.code != 7 || !r.has("blocked") || r.has("key") {
			t.Fatalf("want blocked, exit 7, nothing pressed\n%s", r)
		}
		t.Log(r.events)
		report("Claude Code %s: dialog nobody answers: blocked after %v: %s", version,
			r.elapsed.Round(100*time.Millisecond), strings.TrimSpace(r.stderr))
	})
}

// bypassRules accept the bypass confirmation; their allow rule is one that
// bypass mode leaves unconsulted, which the run says.
const bypassRules = `version: 1
dialogs: {bypass_permissions: accept}
permissions:
  - {name: tests, when: {tool: Bash, command: "^go test "}, decide: allow}
`

// TestDialogBypass: `claude --dangerously-skip-permissions` first asks to
// confirm Bypass Permissions mode (root may take the flag only with
// IS_SANDBOX=1). A rules file of the person's that says
// bypass_permissions: accept answers "Yes, I accept" on the screen: Claude
// starts its session in bypass mode (its hooks report bypassPermissions),
// records the acceptance in the person's settings, sends the prompt, and
// the run ends at Claude's Stop (exit 0). A repository's .claudewrap.yaml
// saying the same, not allowed, accepts nothing: the run ends by itself,
// blocked (exit 7), naming the rule, nothing pressed, the prompt never
// sent.
func TestDialogBypass(t *testing.T) {
	sandbox := []string{"IS_SANDBOX=1"}
	forVersions(t, func(t *testing.T, version string) {
		sent := func(r dialogRun) bool {
			for _, req := range r.sb.API.Requests() {
				if strings.Contains(req.Text, "say hello") {
					return true
				}
			}
			return false
		}
		accepted := func(r dialogRun) bool {
			b, _ := os.ReadFile(filepath.Join(r.sb.Home, ".claude", "settings.json"))
			var s struct{ SkipDangerousModePermissionPrompt bool }
			return json.Unmarshal(b, &s) == nil && s.SkipDangerousModePermissionPrompt
		}

		sb := claudetest.New(t, version, "testdata/scenarios/hello.yaml")
		r := runWrapped(t, sb, bypassRules, sandbox, nil, "say hello", "--dangerously-skip-permissions")
		if r.code != 0 || !r.has("decision", "dialog", "bypass_permissions", "select", "Yes, I accept") ||
			!strings.Contains(r.events, `"by":"dialogs.bypass_permissions in `) || !r.has("submitted", "dialog", "bypass_permissions") ||
			!r.has("permission_mode", "permission_mode", "bypassPermissions") || !accepted(r) || !sent(r) {
			t.Fatalf("accepted by a rule: want \"Yes, I accept\" picked by the rules file, Claude in bypass mode (its settings: accepted %t), "+
				"the prompt sent (%t), exit 0\n%s", accepted(r), sent(r), r)
		}

		sb = claudetest.New(t, version, "testdata/scenarios/hello.yaml")
		if err := os.WriteFile(filepath.Join(sb.Dir, ".claudewrap.yaml"), []byte(bypassRules), 0o644); err != nil {
			t.Fatal(err)
		}
		r = runWrapped(t, sb, "", sandbox, nil, "say hello", "--dangerously-skip-permissions")
		if r.code != 7 || !r.has("blocked") || r.has("key") || !r.has("dialog", "kind", "bypass_permissions") ||
			!strings.Contains(r.stderr, ".claudewrap.yaml is not allowed") || !strings.Contains(r.stderr, "bypass_permissions: accept") ||
			accepted(r) || sent(r) {
			t.Fatalf("no rule in force (the folder's file not allowed): want blocked, exit 7, a reason naming the rule, nothing pressed, "+
				"nothing accepted (%t), the prompt not sent (%t)\n%s", accepted(r), sent(r), r)
		}
		report("Claude Code %s: bypass confirmation: accepted by a rule (bypass mode, exit 0); a folder's file not allowed: blocked, exit 7 after %v",
			version, r.elapsed.Round(100*time.Millisecond))
	})
}

func toolResult(r dialogRun, id string) *toolResultT {
	for _, res := range r.sb.API.ToolResults() {
		if res.ToolUseID == id {
			return &toolResultT{Content: res.Content, IsError: res.IsError}
		}
	}
	return nil
}

type toolResultT struct {
	Content string
	IsError bool
}
