//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/natstest"
)

// inboxAccounts is a nats-server accounts block for the inbox with
// users and passwords: a runner for each machine, allowed only its own
// machine's keys, and answerers, allowed to claim only under their own
// name (docs/inbox.md gives the same permissions with nkeys).
func inboxAccounts(machines, answerers []string) string {
	var b strings.Builder
	b.WriteString("accounts {\n  INBOX {\n    jetstream: enabled\n    users: [\n")
	read := []string{`"$JS.API.INFO"`, `"$JS.API.STREAM.INFO.*"`, `"$JS.API.STREAM.MSG.GET.*"`, `"$JS.API.DIRECT.GET.>"`,
		`"$JS.API.CONSUMER.CREATE.>"`, `"$JS.API.CONSUMER.DELETE.>"`, `"$JS.FC.>"`}
	user := func(name string, allow []string) {
		fmt.Fprintf(&b, "      {user: %s, password: %s-pw, permissions: {publish: {allow: [%s]}, subscribe: {allow: [\"_INBOX.>\"]}}}\n",
			name, name, strings.Join(append(allow, read...), ", "))
	}
	for _, m := range machines {
		user(m, []string{`"$KV.claudewrap-forms.` + m + `.>"`, `"$KV.claudewrap-claims.` + m + `.*.*.*.=run"`, `"$KV.claudewrap-outcomes.` + m + `.>"`,
			`"$JS.API.STREAM.CREATE.KV_claudewrap-forms"`, `"$JS.API.STREAM.CREATE.KV_claudewrap-claims"`, `"$JS.API.STREAM.CREATE.KV_claudewrap-outcomes"`})
	}
	for _, a := range answerers {
		user(a, []string{`"$KV.claudewrap-claims.*.*.*.*.` + a + `"`, `"$KV.claudewrap-outcomes.*.*.*.*.` + a + `"`})
	}
	b.WriteString("    ]\n  }\n}\n")
	return b.String()
}

// runtimeDir is a sessions folder of the test's own: another "machine"'s.
func runtimeDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// inboxForm is a form as pending --inbox --json lists it.
type inboxForm struct {
	ID            string `json:"id"`
	Machine       string `json:"machine"`
	User          string `json:"user"`
	ClaudeVersion string `json:"claude_version"`
	ToolUseID     string `json:"tool_use_id"`
	State         string `json:"state"`
}

// answerer runs claudewrap commands as a person on a third machine: its
// own home and sessions folder, the inbox's user alice.
type answerer struct {
	sb  *claudetest.Sandbox
	env []string
	url string
}

func (a answerer) cmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return claudewrapEnv(t, a.sb, a.env, append(args[:1:1], append([]string{"--inbox", a.url, "--inbox-user", "alice"}, args[1:]...)...)...)
}

// waitInboxForms waits until pending --inbox lists a form of each of
// machines, and returns them by machine. pending failing (the cluster
// electing its leaders) is tried again.
func (a answerer) waitInboxForms(t *testing.T, machines ...string) map[string]inboxForm {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, errOut, code := a.cmd(t, "pending", "--json")
		var forms []inboxForm
		if code != 0 || json.Unmarshal([]byte(out), &forms) != nil {
			out = fmt.Sprintf("exit %d %q %s", code, out, errOut)
		}
		got := map[string]inboxForm{}
		for _, f := range forms {
			got[f.Machine] = f
		}
		all := true
		for _, m := range machines {
			_, ok := got[m]
			all = all && ok
		}
		if all {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("pending --inbox never listed a form of each of %v; it says %s", machines, out)
		}
		time.Sleep(200 * time.Millisecond) // polling another process under a deadline
	}
}

// runEvents are the events a run wrote so far.
func runEvents(t *testing.T, w *waitingRun) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(w.evs)
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// inboxServer is the server a run last said it is connected to.
func inboxServer(t *testing.T, w *waitingRun) string {
	t.Helper()
	server := ""
	for _, e := range runEvents(t, w) {
		if e["event"] == "inbox" && (e["state"] == "connected" || e["state"] == "back") {
			server, _ = e["server"].(string)
		}
	}
	return server
}

// verifiedThroughInbox checks the run ended with exit 0, Claude recorded
// SQLite, and the run's events say who answered: the inbox user alice.
func verifiedThroughInbox(t *testing.T, w *waitingRun) {
	t.Helper()
	if err := w.end(t); err != nil {
		t.Fatalf("the run: %v\n%s", err, w.stderr.String())
	}
	res := w.sb.API.ToolResults()
	var database []string
	for _, r := range res {
		if r.ToolUseID == "toolu_01database" {
			database = append(database, r.Content)
		}
	}
	if len(database) != 1 || !strings.Contains(database[0], `"Which database should we use?"="SQLite"`) {
		t.Errorf("Claude recorded %+v", res)
	}
	from, verified := "", false
	for _, e := range runEvents(t, w) {
		switch e["event"] {
		case "decision":
			from, _ = e["from"].(string)
		case "verified":
			verified = true
		}
	}
	if from != "claudewrap answer (inbox user alice)" || !verified {
		t.Errorf("the run's decision from %q, verified %v; want alice's answer through the inbox, verified\n%s", from, verified, w.stderr.String())
	}
}

// TestInbox: a three-node JetStream cluster on loopback; two runs with
// homes and sessions folders of their own (two machines, laptop and desk)
// hold forms on the real Claude Code; pending --inbox from a third lists
// both with their machine, and answer --inbox answers each, the node desk
// is connected to killed while its form waits; both verified, the
// decisions naming the inbox user. Plaintext to another host, a wrong
// password, and answers forged for a form id are refused.
func TestInbox(t *testing.T) {
	version := claudetest.Versions()[0]
	srv := natstest.Start(t, natstest.Options{Nodes: 3, Config: inboxAccounts([]string{"laptop", "desk"}, []string{"alice"})})
	url := srv.URL()
	start := func(machine string, flags ...string) *waitingRun {
		sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
		env := []string{"XDG_RUNTIME_DIR=" + runtimeDir(t), "CLAUDEWRAP_INBOX_PASSWORD=" + machine + "-pw"}
		return startWaitingIn(t, sb, "version: 1\n", env, append([]string{"--inbox", url, "--inbox-user", machine}, flags...), "pick a database")
	}
	laptop := start("laptop", "--machine", "laptop")
	desk := start("desk", "--machine", "desk")
	a := answerer{sb: laptop.sb, url: url, env: []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + runtimeDir(t), "CLAUDEWRAP_INBOX_PASSWORD=alice-pw"}}

	forms := a.waitInboxForms(t, "laptop", "desk")
	for m, f := range forms {
		if f.ToolUseID != "toolu_01database" || f.User == "" || f.ClaudeVersion != version || !strings.HasPrefix(f.ID, m+".") || f.State != "open" {
			t.Errorf("%s's form listed as %+v", m, f)
		}
	}
	text, _, _ := a.cmd(t, "pending")
	for _, want := range []string{"laptop:\n  form " + forms["laptop"].ID, "desk:\n  form " + forms["desk"].ID, "Which database should we use?"} {
		if !strings.Contains(text, want) {
			t.Errorf("pending --inbox lacks %q:\n%s", want, text)
		}
	}

	// Security: refused before anything is done, or by the server.
	if _, errOut, code := claudewrapEnv(t, a.sb, a.env, "pending", "--inbox", "nats://192.0.2.1:4222"); code != 2 || !strings.Contains(errOut, "plaintext") {
		t.Errorf("plaintext to another host: exit %d %s", code, errOut)
	}
	wrong := append(append([]string(nil), a.env...), "CLAUDEWRAP_INBOX_PASSWORD=wrong")
	if _, errOut, code := claudewrapEnv(t, a.sb, wrong, "pending", "--inbox", url, "--inbox-user", "alice"); code != 1 || !strings.Contains(errOut, "Authorization Violation") {
		t.Errorf("a wrong password: exit %d %s", code, errOut)
	}
	deskRunner := append(append([]string(nil), a.env...), "CLAUDEWRAP_INBOX_PASSWORD=desk-pw")
	if _, errOut, code := claudewrapEnv(t, a.sb, deskRunner, "answer", "--inbox", url, "--inbox-user", "desk", forms["laptop"].ID, "--select", "PostgreSQL"); code != 1 ||
		!strings.Contains(errOut, "Permissions Violation") {
		t.Errorf("desk's runner answering laptop's form: exit %d %s; want the server to refuse it", code, errOut)
	}
	forged := forms["laptop"].ID[:strings.LastIndex(forms["laptop"].ID, ".")+1] + strings.Repeat("a", 26)
	if _, errOut, code := a.cmd(t, "answer", forged, "--select", "PostgreSQL"); code != 1 || !strings.Contains(errOut, "no such form") {
		t.Errorf("an answer to a form id made up: exit %d %s", code, errOut)
	}

	// The node desk's run is connected to is killed while its form waits.
	server := inboxServer(t, desk)
	i := srv.Index(server)
	if i < 0 {
		t.Fatalf("desk's run names no server it is connected to (%q)\n%s", server, desk.stderr.String())
	}
	srv.Stop(i)
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, errOut, code := a.cmd(t, "answer", forms["desk"].ID, "--select", "SQLite")
		if code == 0 && strings.Contains(out, `verified: Claude recorded "Which database should we use?" = "SQLite"`) {
			break
		}
		// An earlier try's claim reached the inbox, its reply lost in the
		// election.
		if strings.Contains(errOut, "taken: answered first by alice") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("answering desk's form after its node %s was killed: exit %d %s%s\ndesk's run:\n%s", server, code, out, errOut, desk.stderr.String())
		}
		time.Sleep(500 * time.Millisecond) // an election under way: the answer is sent again, under a deadline
	}
	verifiedThroughInbox(t, desk)

	out, errOut, code := a.cmd(t, "answer", forms["laptop"].ID, "--select", "SQLite")
	if code != 0 || !strings.Contains(out, `verified: Claude recorded "Which database should we use?" = "SQLite"`) {
		t.Fatalf("answer --inbox laptop's form: exit %d %s%s", code, out, errOut)
	}
	verifiedThroughInbox(t, laptop)
	if _, errOut, code := a.cmd(t, "answer", forms["laptop"].ID, "--select", "PostgreSQL"); code != 1 || !strings.Contains(errOut, "moved on") {
		t.Errorf("answering laptop's form again: exit %d %s; want it refused with the reason", code, errOut)
	}
	for _, w := range []*waitingRun{laptop, desk} {
		if !strings.Contains(w.stderr.String(), "claudewrap: inbox: connected") {
			t.Errorf("the run did not say it reached the inbox:\n%s", w.stderr.String())
		}
	}
	if s := desk.stderr.String(); !strings.Contains(s, "claudewrap: inbox back") {
		t.Errorf("desk's run did not say its inbox was back after its node was killed:\n%s", s)
	}
	report("Claude Code %s: inbox on a three-node cluster: two machines' forms listed by pending --inbox with their machine, answered by answer --inbox (desk's after its node was killed), verified, the decisions naming the inbox user; plaintext, a wrong password and forged answers refused", version)
}

// waitSaid waits until the run has said want on stderr.
func waitSaid(t *testing.T, w *waitingRun, want string) {
	t.Helper()
	w.stderr.WaitFor(t, want, 60*time.Second)
}

// TestInboxAllStopped: every node of the cluster stops while a form
// waits; the run says so and keeps waiting, and a local answer works,
// which brings Claude's next form. The nodes back, the run says so: the
// next form is published, the first closed with who answered it, so that
// an answer from elsewhere to it is refused (it is answered once), and
// the next is answered through the inbox.
func TestInboxAllStopped(t *testing.T) {
	version := claudetest.Versions()[0]
	srv := natstest.Start(t, natstest.Options{Nodes: 3, Config: inboxAccounts([]string{"laptop"}, []string{"alice"})})
	url := srv.URL()
	sb := claudetest.New(t, version, "testdata/scenarios/chain.yaml")
	runtime := runtimeDir(t)
	w := startWaitingIn(t, sb, "version: 1\n", []string{"XDG_RUNTIME_DIR=" + runtime, "CLAUDEWRAP_INBOX_PASSWORD=laptop-pw", "CLAUDEWRAP_MACHINE=laptop"},
		[]string{"--inbox", url, "--inbox-user", "laptop"}, "plan in two steps")
	a := answerer{sb: sb, url: url, env: []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + runtimeDir(t), "CLAUDEWRAP_INBOX_PASSWORD=alice-pw"}}
	first := a.waitInboxForms(t, "laptop")["laptop"]

	srv.StopAll()
	waitSaid(t, w, "claudewrap: the inbox is unreachable")
	out, errOut, code := claudewrapEnv(t, sb, []string{"XDG_RUNTIME_DIR=" + runtime}, "answer", w.session, "--select", "SQLite")
	if code != 0 || !strings.Contains(out, `verified: Claude recorded "Which database should we use?" = "SQLite"`) {
		t.Fatalf("a local answer while every node is stopped: exit %d %s%s\n%s", code, out, errOut, w.stderr.String())
	}
	waitSaid(t, w, `Claude asks "Which cache should sit in front of it?"`)
	srv.StartAll()
	waitSaid(t, w, "claudewrap: inbox back")
	var next inboxForm
	deadline := time.Now().Add(60 * time.Second)
	for next.ToolUseID != "toolu_01chain2" {
		if time.Now().After(deadline) {
			t.Fatalf("the form asked while the inbox was down was never listed (last %+v)\n%s", next, w.stderr.String())
		}
		next = a.waitInboxForms(t, "laptop")["laptop"]
	}
	deadline = time.Now().Add(60 * time.Second)
	for {
		_, errOut, code = a.cmd(t, "answer", first.ID, "--select", "PostgreSQL")
		if code == 1 && strings.Contains(errOut, "refused: the form moved on: answered on laptop (claudewrap answer") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("answering the form answered locally: exit %d %s; want it refused, naming the local answer\n%s", code, errOut, w.stderr.String())
		}
		time.Sleep(500 * time.Millisecond) // the run closes the form once the inbox is back: polled under a deadline
	}
	out, errOut, code = a.cmd(t, "answer", next.ID, "--select", "Redis")
	if code != 0 || !strings.Contains(out, `verified: Claude recorded "Which cache should sit in front of it?" = "Redis"`) {
		t.Fatalf("answer --inbox the next form: exit %d %s%s\n%s", code, out, errOut, w.stderr.String())
	}
	if err := w.end(t); err != nil {
		t.Fatalf("the run: %v\n%s", err, w.stderr.String())
	}
	res := sb.API.ToolResults()
	if len(res) != 2 || !strings.Contains(res[0].Content, `"Which database should we use?"="SQLite"`) ||
		!strings.Contains(res[1].Content, `"Which cache should sit in front of it?"="Redis"`) {
		t.Errorf("Claude recorded %+v", res)
	}
	report("Claude Code %s: inbox: every node stopped while a form waited: the run said so, a local answer was verified; the nodes back, the form asked meanwhile was published and answered through the inbox, and an answer from elsewhere to the first was refused, naming the local answer", version)
}

// TestInboxNothingInside: Claude's run publishes its form to the inbox,
// and a background command of Claude's holds the answerer alice's
// password (as on a machine where the person keeps it) and the form's id:
// its claudewrap pending and answer --inbox are refused, as they run below
// the run's Claude. With the runner's own password, from outside Claude's
// tree, an answer is refused by the server (a runner claims only in the
// run's own name). The form still waits; alice's answer from outside is
// verified.
func TestInboxNothingInside(t *testing.T) {
	version := claudetest.Versions()[0]
	srv := natstest.Start(t, natstest.Options{Config: inboxAccounts([]string{"laptop"}, []string{"alice"})})
	url := srv.URL()
	env, out := insideEnv(t)
	try := `while [ ! -s "$OUT/id" ]; do sleep 0.2; done; export CLAUDEWRAP_INBOX_PASSWORD=alice-pw; ` +
		`"$CW" pending --inbox "$URL" --inbox-user alice --json > "$OUT/pending.out" 2>&1; echo $? > "$OUT/pending.code"; ` +
		`"$CW" answer --inbox "$URL" --inbox-user alice "$(cat "$OUT/id")" --select PostgreSQL > "$OUT/answer.out" 2>&1; echo $? > "$OUT/answer.code"`
	env = append(env, "IS_SANDBOX=1", "TRY="+try, "URL="+url, "CLAUDEWRAP_INBOX_PASSWORD=laptop-pw")
	sb := claudetest.New(t, version, "testdata/scenarios/insidetry.yaml")
	bypass(t, sb)
	w := startWaitingIn(t, sb, "version: 1\n", env, []string{"--inbox", url, "--inbox-user", "laptop", "--machine", "laptop"},
		"answer for the person", "--dangerously-skip-permissions")
	a := answerer{sb: sb, url: url, env: []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + runtimeDir(t), "CLAUDEWRAP_INBOX_PASSWORD=alice-pw"}}
	f := a.waitInboxForms(t, "laptop")["laptop"]
	if err := os.WriteFile(filepath.Join(out, "id"), []byte(f.ID), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"pending", "answer"} {
		code := waitWritten(t, filepath.Join(out, op+".code"), w)
		said, _ := os.ReadFile(filepath.Join(out, op+".out"))
		if code != "1" || !strings.Contains(string(said), "runs below a claudewrap run's Claude") {
			t.Errorf("claudewrap %s --inbox from inside Claude's tree: exit %s, said %q; want it refused", op, code, said)
		}
	}
	runner := append(append([]string(nil), a.env...), "CLAUDEWRAP_INBOX_PASSWORD=laptop-pw")
	if _, errOut, code := claudewrapEnv(t, a.sb, runner, "answer", "--inbox", url, "--inbox-user", "laptop", f.ID, "--select", "PostgreSQL"); code != 1 ||
		!strings.Contains(errOut, "Permissions Violation") {
		t.Errorf("laptop's runner answering its own machine's form: exit %d %s; want the server to refuse it", code, errOut)
	}
	if still := a.waitInboxForms(t, "laptop")["laptop"]; still.ID != f.ID || still.State != "open" {
		t.Fatalf("the form after the tries: %+v; want it still open", still)
	}
	if got, errOut, code := a.cmd(t, "answer", f.ID, "--select", "SQLite"); code != 0 || !strings.Contains(got, "verified") {
		t.Fatalf("alice's answer from outside: exit %d %s%s\n%s", code, got, errOut, w.stderr.String())
	}
	verifiedThroughInbox(t, w)
	report("Claude Code %s: a background command of Claude's with alice's inbox password: pending and answer --inbox refused; the runner's password cannot answer; alice's answer from outside verified", version)
}
