package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/inbox"
	"github.com/claudewrap/claudewrap/internal/testsupport/natstest"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/web"
)

// eventually waits until cond holds, looking every 50ms, and fails with
// what it last saw after within.
func eventually(t *testing.T, within time.Duration, what string, cond func() (string, bool)) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		saw, ok := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last saw %s", what, within, saw)
		}
		<-tick.C
	}
}

// noInbox clears what names an inbox outside the test: the environment
// and the person's config file.
func noInbox(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	for _, v := range []string{envInbox, envInboxPassword, envInboxToken, envMachine} {
		t.Setenv(v, "")
	}
	return filepath.Join(dir, "claudewrap")
}

// runCmd runs claudewrap with args and returns stdout, stderr and the
// exit status.
func runCmd(t *testing.T, args ...string) (string, string, ExitCode) {
	t.Helper()
	var out, errb bytes.Buffer
	root := NewCmdRoot(devNull(t), &out, &errb)
	root.SetArgs(args)
	err := execute(root)
	if err != nil {
		errb.WriteString(err.Error())
	}
	code := ExitOK
	if err != nil {
		code = codeOf(err)
	}
	return out.String(), errb.String(), code
}

// Where the inbox is named: a flag, else the environment, else the
// person's config file (a URL alone, or a mapping, its files found from
// its folder); a config file holding a secret others may read is refused.
func TestInboxConfig(t *testing.T) {
	dir := noInbox(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(text string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "config.yaml"), mode); err != nil {
			t.Fatal(err)
		}
	}
	resolve := func(o InboxOptions) (inbox.Config, string, bool, error) { return o.inboxConfig() }

	if _, _, on, err := resolve(InboxOptions{}); on || err != nil {
		t.Fatalf("nothing named: on %v, %v", on, err)
	}
	write("inbox: nats://127.0.0.1:4222\n", 0o600)
	if cfg, machine, on, err := resolve(InboxOptions{}); !on || err != nil || cfg.URL != "nats://127.0.0.1:4222" || machine == "" {
		t.Fatalf("a URL in the config file: %+v %q %v %v", cfg, machine, on, err)
	}
	write("inbox:\n  url: tls://inbox-a:4222\n  creds: laptop.creds\n  ca: /etc/nats/ca.pem\n  name: alice\n  machine: laptop\n", 0o600)
	cfg, machine, _, err := resolve(InboxOptions{})
	if err != nil || cfg.URL != "tls://inbox-a:4222" || cfg.CredsFile != filepath.Join(dir, "laptop.creds") || cfg.CAFile != "/etc/nats/ca.pem" ||
		cfg.Name != "alice" || machine != "laptop" {
		t.Fatalf("a mapping: %+v %q %v", cfg, machine, err)
	}
	t.Setenv(envInbox, "tls://env:4222")
	t.Setenv(envMachine, "desk")
	if cfg, machine, _, _ := resolve(InboxOptions{}); cfg.URL != "tls://env:4222" || machine != "desk" {
		t.Errorf("the environment before the file: %q %q", cfg.URL, machine)
	}
	if cfg, machine, _, _ := resolve(InboxOptions{URL: "tls://flag:4222", Machine: "box"}); cfg.URL != "tls://flag:4222" || machine != "box" {
		t.Errorf("the flags before the environment: %q %q", cfg.URL, machine)
	}
	write("inbox: {url: nats://127.0.0.1:4222, password: secret}\n", 0o644)
	if _, _, _, err := resolve(InboxOptions{}); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a password others may read: %v", err)
	}
	write("inbox: {url: nats://127.0.0.1:4222, pasword: secret}\n", 0o600)
	if _, _, _, err := resolve(InboxOptions{}); err == nil || !strings.Contains(err.Error(), "pasword") {
		t.Errorf("a key misspelt: %v", err)
	}
}

// The inbox flags are on every command that takes an inbox; one given
// with no inbox named, plaintext to another host, and a wrong credential
// are refused before anything is done, each with its reason.
func TestInboxFlags(t *testing.T) {
	noInbox(t)
	for _, c := range []string{"run", "pending", "wait", "answer", "serve"} {
		root := NewCmdRoot(devNull(t), nil, nil)
		cmd, _, err := root.Find([]string{c})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"inbox", "inbox-creds", "inbox-nkey", "inbox-user", "inbox-ca", "inbox-cert", "inbox-key", "inbox-allow-plaintext"} {
			if cmd.Flags().Lookup(f) == nil {
				t.Errorf("%s has no --%s", c, f)
			}
		}
	}
	if _, errOut, code := runCmd(t, "pending", "--inbox-user", "alice"); code != ExitUsage || !strings.Contains(errOut, "no inbox named") {
		t.Errorf("an inbox flag with no inbox: exit %d %s", code, errOut)
	}
	for _, args := range [][]string{
		{"pending", "--inbox", "nats://192.0.2.1:4222"},
		{"run", "--inbox", "nats://192.0.2.1:4222", "--claude", "/bin/true"},
		{"answer", "--inbox", "nats://192.0.2.1:4222", "laptop.1.abcdefghijklmnopqrstuvwxyz", "--select", "A"},
	} {
		if _, errOut, code := runCmd(t, args...); code != ExitUsage || !strings.Contains(errOut, inbox.ErrPlaintext.Error()) {
			t.Errorf("%v: exit %d %s; want plaintext refused (exit 2)", args, code, errOut)
		}
	}
	if _, errOut, code := runCmd(t, "answer", "--inbox", "nats://127.0.0.1:1", "4242", "--select", "A"); code != ExitUsage || !strings.Contains(errOut, "form's id") {
		t.Errorf("a session's number with an inbox: exit %d %s", code, errOut)
	}
	srv := natstest.Start(t, natstest.Options{Config: "authorization {\n  users: [{user: alice, password: right}]\n}"})
	t.Setenv(envInboxPassword, "wrong")
	if _, errOut, code := runCmd(t, "pending", "--inbox", srv.URL(), "--inbox-user", "alice"); code != ExitError || !strings.Contains(errOut, "Authorization Violation") {
		t.Errorf("a wrong password: exit %d %s; want NATS's reason (exit 1)", code, errOut)
	}
	t.Setenv(envInboxPassword, "right")
	if out, errOut, code := runCmd(t, "pending", "--inbox", srv.URL(), "--inbox-user", "alice"); code != ExitOK || !strings.Contains(out, "no question waits in the inbox") {
		t.Errorf("the right password: exit %d %s%s", code, out, errOut)
	}
}

// A run on another machine, in the test: its forms published through a
// reach, answers applied by a handler that takes each form.
type deskRun struct {
	mu      sync.Mutex
	forms   []remote.Form
	answers chan []answer.Decision
}

func (d *deskRun) Pending() []remote.Form {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.forms
}
func (d *deskRun) ClaudeSession() string { return "" }
func (d *deskRun) Answer(_ context.Context, _, _ string, ds []answer.Decision) remote.Outcome {
	d.answers <- ds
	return remote.Outcome{Result: "verified", Recorded: map[string]string{"Which database?": ds[0].Labels[0]}}
}

// pending --inbox lists every machine's forms, grouped by machine (JSON
// with the machine, user and Claude Code version), answer --inbox answers
// one through a claim, and a second answer is told who took it; wait
// --inbox returns once a form waits.
func TestInboxPendingAnswer(t *testing.T) {
	noInbox(t)
	srv := natstest.Start(t, natstest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := inbox.Dial(ctx, inbox.Config{URL: srv.URL(), Retry: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := &deskRun{forms: []remote.Form{{ToolUseID: "toolu_1", Since: time.Now(), Questions: []answer.Question{{Header: "Database",
		Question: "Which database?", Options: []answer.Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}}}}},
		answers: make(chan []answer.Decision, 2)}
	_, changed, stop := inbox.NewReach(c, inbox.Identity{Machine: "desk", User: "dev", Session: "77", PID: 77, Cwd: "/src/api",
		ClaudeVersion: "2.1.332"}, nil).Attach(run)
	defer stop()
	changed()

	if out, errOut, code := runCmd(t, "wait", "--inbox", srv.URL(), "--timeout", "10s", "--json"); code != ExitOK || !strings.Contains(out, `"machine": "desk"`) {
		t.Fatalf("wait --inbox: exit %d %s%s", code, out, errOut)
	}
	out, errOut, code := runCmd(t, "pending", "--inbox", srv.URL(), "--json")
	var forms []inbox.Form
	if code != ExitOK || json.Unmarshal([]byte(out), &forms) != nil || len(forms) != 1 {
		t.Fatalf("pending --inbox --json: exit %d %s%s", code, out, errOut)
	}
	f := forms[0]
	if f.Machine != "desk" || f.User != "dev" || f.ClaudeVersion != "2.1.332" || f.Cwd != "/src/api" || f.ID.Machine() != "desk" {
		t.Errorf("listed %+v", f)
	}
	out, _, _ = runCmd(t, "pending", "--inbox", srv.URL())
	for _, want := range []string{"desk:\n", "  form " + string(f.ID) + " (dev, /src/api, Claude Code 2.1.332), waiting",
		"    1. [Database] Which database? (one answer)", "         2. SQLite",
		"    answer: claudewrap answer --inbox " + srv.URL() + " " + string(f.ID) + " --select LABEL"} {
		if !strings.Contains(out, want) {
			t.Errorf("pending --inbox lacks %q:\n%s", want, out)
		}
	}

	if _, errOut, code := runCmd(t, "answer", "--inbox", srv.URL(), "--inbox-name", "alice", string(f.ID), "--select", "Oracle"); code != ExitUsage ||
		!strings.Contains(errOut, `offers no option "Oracle"`) {
		t.Errorf("an answer the form cannot take: exit %d %s", code, errOut)
	}
	out, errOut, code = runCmd(t, "answer", "--inbox", srv.URL(), "--inbox-name", "alice", string(f.ID), "--select", "SQLite")
	if code != ExitOK || !strings.Contains(out, `verified: Claude recorded "Which database?" = "SQLite"`) {
		t.Fatalf("answer --inbox: exit %d %s%s", code, out, errOut)
	}
	if ds := <-run.answers; ds[0].Labels[0] != "SQLite" {
		t.Errorf("the run got %+v", ds)
	}
	_, errOut, code = runCmd(t, "answer", "--inbox", srv.URL(), "--inbox-name", "bob", string(f.ID), "--select", "PostgreSQL")
	if code != ExitError || !strings.Contains(errOut, "taken: answered first by alice (claudewrap answer)") {
		t.Errorf("a second answer: exit %d %s; want taken, naming alice", code, errOut)
	}
	run.mu.Lock()
	run.forms = nil
	run.mu.Unlock()
	changed()
	eventually(t, 10*time.Second, "an answer to a form answered refused with the reason", func() (string, bool) {
		_, errOut, code := runCmd(t, "answer", "--inbox", srv.URL(), "--inbox-name", "bob", string(f.ID), "--select", "PostgreSQL")
		return errOut, code == ExitError && strings.Contains(errOut, "refused: the form moved on: answered by claudewrap answer (inbox user alice)")
	})
}

// serve's view of the inbox: every machine's forms, named by machine,
// answered through the inbox.
func TestServeInbox(t *testing.T) {
	srv := natstest.Start(t, natstest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := inbox.Dial(ctx, inbox.Config{URL: srv.URL(), Retry: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := &deskRun{forms: []remote.Form{{ToolUseID: "toolu_1", Since: time.Now(), Questions: []answer.Question{{Header: "Database",
		Question: "Which database?", Options: []answer.Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}}}}},
		answers: make(chan []answer.Decision, 1)}
	_, changed, stop := inbox.NewReach(c, inbox.Identity{Machine: "desk", User: "dev", Session: "77"}, nil).Attach(run)
	defer stop()
	changed()
	a, err := inbox.Dial(ctx, inbox.Config{URL: srv.URL(), Name: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	page := inboxForms{a}
	var forms []web.Form
	eventually(t, 10*time.Second, "the form on the page", func() (string, bool) {
		forms, err = page.Pending(ctx)
		return fmt.Sprint(forms, err), len(forms) > 0
	})
	if len(forms) != 1 || forms[0].Machine != "desk" || forms[0].User != "dev" || !strings.HasPrefix(forms[0].Session, "desk.77.") {
		t.Fatalf("the page's forms: %+v", forms)
	}
	o, err := page.Answer(ctx, forms[0].Session, "toolu_1", remote.FromPage+" from 127.0.0.1", []answer.Decision{{Action: answer.Select, Labels: []string{"SQLite"}}})
	if err != nil || o.Result != "verified" {
		t.Fatalf("answered from the page: %+v, %v", o, err)
	}
}

// The inbox's state and the forms published are said in a line each.
func TestHumanInbox(t *testing.T) {
	var b bytes.Buffer
	h := newHuman(&b, false)
	h.event("inbox", map[string]any{"state": "unreachable", "reason": "the inbox is unreachable: reconnecting", "machine": "laptop"})
	h.event("inbox_form", map[string]any{"state": "published", "tool_use_id": "t1", "form_id": "laptop.1.abc"})
	h.event("inbox_form", map[string]any{"state": "answered_here", "tool_use_id": "t1", "form_id": "laptop.1.abc", "reason": "the inbox is unreachable: reconnecting"})
	h.event("inbox_form", map[string]any{"state": "withdrawn", "tool_use_id": "t1", "form_id": "laptop.1.abc", "reason": "answered"})
	h.event("inbox", map[string]any{"state": "back", "server": "n2", "machine": "laptop"})
	want := "claudewrap: the inbox is unreachable: reconnecting; forms are answered on this machine only (claudewrap answer, the screen) until the inbox is back\n" +
		"claudewrap: form t1 is in the inbox as laptop.1.abc (claudewrap pending --inbox, claudewrap answer --inbox laptop.1.abc)\n" +
		"claudewrap: form t1 answered here while the inbox could not take the claim (the inbox is unreachable: reconnecting); it is closed there once the inbox is back\n" +
		"claudewrap: inbox back (server n2): the forms that wait are published again\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
