package hook

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

const pre = `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_1",
"tool_input":{"questions":[{"question":"Which database?","header":"Database","multiSelect":false,
"options":[{"label":"PostgreSQL","description":"a"},{"label":"SQLite","description":""}]}]}}`

func listen(t *testing.T) *Server {
	t.Helper()
	s, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func next(t *testing.T, s *Server) Message {
	t.Helper()
	select {
	case m := <-s.Messages():
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message")
		return Message{}
	}
}

func TestForwardAndReceive(t *testing.T) {
	s := listen(t)
	fi, err := os.Stat(filepath.Dir(s.Path()))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %v, want 0700", fi.Mode().Perm())
	}
	if err := Forward(strings.NewReader(pre), s.Path(), nil); err != nil {
		t.Fatal(err)
	}
	m := next(t, s)
	if m.Err != nil {
		t.Fatal(m.Err)
	}
	q := m.Payload.ToolInput.Questions[0]
	if m.Payload.ToolUseID != "toolu_1" || q.Header != "Database" || strings.Join(q.Labels(), ",") != "PostgreSQL,SQLite" {
		t.Errorf("payload %+v", m.Payload)
	}
	dir := filepath.Dir(s.Path())
	s.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("socket directory left behind: %v", err)
	}
}

func TestRefused(t *testing.T) {
	s := listen(t)
	big := append([]byte(`{"hook_event_name":"Stop","x":"`), bytes.Repeat([]byte("a"), MaxMessage)...)
	for _, tc := range []struct {
		name string
		msg  []byte
		want string
	}{
		{"garbage", []byte("\x00\xffnot json at all"), "not hook JSON"},
		{"oversized", big, "over"},
		{"other tool's PostToolUse without input", []byte(`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":"x"}`), "without a tool_input object"},
		{"other tool without input", []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash"}`), "without a tool_input object"},
		{"no tool", []byte(`{"hook_event_name":"PreToolUse","tool_input":{}}`), "without tool_name"},
		{"no id", []byte(strings.Replace(pre, `"toolu_1"`, `""`, 1)), "without tool_use_id"},
		{"unknown event", []byte(`{"hook_event_name":"Notification"}`), "unexpected hook event"},
		{"session without id", []byte(`{"hook_event_name":"SessionStart"}`), "without session_id"},
		{"post without answers", []byte(strings.Replace(pre, "PreToolUse", "PostToolUse", 1)), "without tool_response"},
		{"elicitation without server", []byte(`{"hook_event_name":"Elicitation","message":"m"}`), "without mcp_server_name"},
		{"result without action", []byte(`{"hook_event_name":"ElicitationResult","mcp_server_name":"demo"}`), "without action"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("unix", s.Path())
			if err != nil {
				t.Fatal(err)
			}
			go func() { c.Write(tc.msg); c.Close() }()
			m := next(t, s)
			if m.Err == nil || !strings.Contains(m.Err.Error(), tc.want) {
				t.Errorf("got %+v, want an error with %q", m, tc.want)
			}
		})
	}
	// The server still works after all that.
	Forward(strings.NewReader(`{"hook_event_name":"Stop"}`), s.Path(), nil)
	if m := next(t, s); m.Err != nil || m.Payload.HookEventName != Stop {
		t.Errorf("after refusals: %+v", m)
	}
}

func TestForwardWithoutWrapper(t *testing.T) {
	start := time.Now()
	if err := Forward(strings.NewReader(pre), filepath.Join(t.TempDir(), "none.sock"), nil); err == nil {
		t.Error("Forward to a missing socket succeeded")
	}
	if err := Forward(strings.NewReader(pre), "", nil); err == nil {
		t.Error("Forward with no socket succeeded")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Forward took %v with no wrapper", d)
	}
}

func TestSettings(t *testing.T) {
	var v struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct{ Type, Command string }
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(Settings("/opt/it's here/claudewrap", "/tmp/x/hook.sock")), &v); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{PreToolUse, PostToolUse, Stop, SessionStart, PermissionRequest} {
		e := v.Hooks[ev]
		if len(e) != 1 || len(e[0].Hooks) != 1 || e[0].Hooks[0].Type != "command" {
			t.Fatalf("%s: %+v", ev, e)
		}
		want := `'/opt/it'\''s here/claudewrap' hook --socket '/tmp/x/hook.sock'`
		if e[0].Hooks[0].Command != want {
			t.Errorf("%s command %q, want %q", ev, e[0].Hooks[0].Command, want)
		}
		if (ev == PreToolUse || ev == PostToolUse) != (e[0].Matcher == ToolName) {
			t.Errorf("%s matcher %q", ev, e[0].Matcher)
		}
	}
}

// TestSettingsAnswering: under the hook answer strategy the question's
// PreToolUse hook waits, within a hook timeout Claude gives it that is
// longer than the hook command's own deadline (so Claude never kills it);
// every other hook is as in Settings.
func TestSettingsAnswering(t *testing.T) {
	var v struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string
				Timeout int
			}
		} `json:"hooks"`
	}
	wait := time.Minute
	if err := json.Unmarshal([]byte(SettingsWith("/bin/cw", "/tmp/s", Options{Wait: wait})), &v); err != nil {
		t.Fatal(err)
	}
	for ev, e := range v.Hooks {
		h := e[0].Hooks[0]
		want, timeout := `'/bin/cw' hook --socket '/tmp/s'`, 5
		if ev == PreToolUse {
			want += " --wait 1m0s"
			timeout = int((dialTimeout + wait + time.Second) / time.Second) // the command's deadline, rounded up
		}
		if h.Command != want || h.Timeout < timeout || ev != PreToolUse && h.Timeout != timeout {
			t.Errorf("%s: command %q, timeout %ds; want %q, at least %ds", ev, h.Command, h.Timeout, want, timeout)
		}
	}
	if len(v.Hooks) != 8 {
		t.Errorf("%d hooks, want 8", len(v.Hooks))
	}
}

// TestSettingsGate: with the gate, the PreToolUse hook runs for every tool,
// told --gate, within a hook timeout longer than its own deadline.
func TestSettingsGate(t *testing.T) {
	var v struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Command string
				Timeout int
			}
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(SettingsWith("/bin/cw", "/tmp/s", Options{Gate: true})), &v); err != nil {
		t.Fatal(err)
	}
	e := v.Hooks[PreToolUse][0]
	if e.Matcher != "*" || e.Hooks[0].Command != `'/bin/cw' hook --socket '/tmp/s' --gate` ||
		e.Hooks[0].Timeout < int((dialTimeout+ReplyTimeout+time.Second)/time.Second) {
		t.Errorf("PreToolUse %+v", e)
	}
	// Every tool's PostToolUse, to see what each call ran with.
	if m := v.Hooks[PostToolUse][0].Matcher; m != "*" {
		t.Errorf("PostToolUse matcher %q", m)
	}
}

const bashPre = `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_2","tool_input":{"command":"touch x"}}`

// TestGated: another tool's PreToolUse reaches the wrapper with its input
// raw; what the wrapper replies is what Claude reads. A hook told --gate
// denies the tool when the wrapper did not decide it: no wrapper, no reply
// in time; a question's PreToolUse is never denied that way.
func TestGated(t *testing.T) {
	s := listen(t)
	go func() {
		m := <-s.Messages()
		if !m.Payload.Gated() || string(m.Payload.Input) != `{"command":"touch x"}` || m.Reply == nil {
			t.Errorf("message %+v", m)
			return
		}
		m.Reply(DenyOutput("not in this job"))
	}()
	var out bytes.Buffer
	if err := ForwardGated(strings.NewReader(bashPre), s.Path(), &out, 0); err != nil ||
		!strings.Contains(out.String(), `"permissionDecision":"deny","permissionDecisionReason":"not in this job"`) {
		t.Fatalf("denied by the wrapper: printed %q, %v", out.String(), err)
	}

	go func() { (<-s.Messages()).Reply(nil) }()
	out.Reset()
	if err := ForwardGated(strings.NewReader(bashPre), s.Path(), &out, 0); err != nil || out.Len() != 0 {
		t.Fatalf("passed by the wrapper: printed %q, %v", out.String(), err)
	}

	// No reply: the wait runs out.
	go func() { <-s.Messages() }()
	out.Reset()
	err := ForwardGated(strings.NewReader(bashPre), s.Path(), &out, 0)
	if err == nil || !strings.Contains(out.String(), `"permissionDecision":"deny"`) || !strings.Contains(out.String(), "in time") {
		t.Fatalf("undecided: printed %q, %v", out.String(), err)
	}

	// No wrapper at all.
	out.Reset()
	err = ForwardGated(strings.NewReader(bashPre), filepath.Join(t.TempDir(), "gone.sock"), &out, 0)
	if err == nil || !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Fatalf("no wrapper: printed %q, %v", out.String(), err)
	}
	// A question's is not gated: nothing is printed.
	out.Reset()
	if err := ForwardGated(strings.NewReader(pre), filepath.Join(t.TempDir(), "gone.sock"), &out, 0); err == nil || out.Len() != 0 {
		t.Errorf("a question's: printed %q, %v", out.String(), err)
	}
	// One that cannot be read (too large for the wrapper, cut short) is
	// denied: it is not provably a question's.
	big := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("a", MaxMessage) + `"}}`
	for _, msg := range []string{big, `{"hook_event_name":"PreToolUse","tool_na`} {
		out.Reset()
		if err := ForwardGated(strings.NewReader(msg), s.Path(), &out, 0); err == nil || !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
			t.Errorf("%.40s…: printed %q, %v", msg, out.String(), err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(pre))
	f.Add([]byte(`{"hook_event_name":"Stop"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err == nil && (p.HookEventName == PreToolUse || p.HookEventName == PostToolUse) && (p.ToolInput == nil || p.ToolUseID == "") {
			t.Fatalf("accepted %q", b)
		}
	})
}

func TestWithSettings(t *testing.T) {
	ours := Settings("/bin/claudewrap", "/tmp/s.sock")
	file := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(file, []byte(`{"model":"x","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"mine"}]}]}}`), 0o600)
	for _, tc := range []struct {
		name string
		args []string
		want []string // the other arguments, after --settings VALUE
		keep []string // substrings the merged settings must hold
	}{
		{"none", []string{"hello"}, []string{"hello"}, nil},
		{"inline", []string{"--settings", `{"env":{"A":"1"}}`, "hello"}, []string{"hello"}, []string{`"env":{"A":"1"}`}},
		{"equals and file", []string{"hello", "--settings=" + file}, []string{"hello"}, []string{`"command":"mine"`, `"model":"x"`}},
		{"after --", []string{"--", "--settings", "literal"}, []string{"--", "--settings", "literal"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			got, err := WithSettings(tc.args, ours, dir)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, SettingsFile)
			if got[0] != "--settings" || got[1] != file || strings.Join(got[2:], "|") != strings.Join(tc.want, "|") {
				t.Fatalf("args %q", got)
			}
			fi, err := os.Stat(file)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("the merged settings are not a private file: %v %v", fi, err)
			}
			b, _ := os.ReadFile(file)
			merged := string(b)
			var v struct {
				Hooks   map[string][]any `json:"hooks"`
				Disable *bool            `json:"disableAllHooks"`
			}
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if v.Disable == nil || *v.Disable {
				t.Errorf("the merged settings do not keep every hook on (disableAllHooks false): %s", merged)
			}
			for _, ev := range []string{PreToolUse, PostToolUse, Stop, SessionStart, PermissionRequest} {
				if !strings.Contains(merged, "hook --socket") || len(v.Hooks[ev]) == 0 {
					t.Errorf("%s hooks lost: %s", ev, merged)
				}
			}
			for _, k := range tc.keep {
				if !strings.Contains(merged, k) {
					t.Errorf("merged settings lost %s: %s", k, merged)
				}
			}
		})
	}
	for _, bad := range [][]string{{"--settings"}, {"--settings", "/no/such/file"}, {"--settings", "{not json"}, {"--settings", `{"hooks":[]}`},
		{"--settings", `{"disableAllHooks": true}`}} {
		if _, err := WithSettings(bad, ours, t.TempDir()); err == nil {
			t.Errorf("WithSettings(%q) succeeded", bad)
		}
	}
}

// TestWithSettingsRefusesWhatNeverEnds: a --settings FIFO is refused, not
// waited on, and a file past the limit is refused unread.
func TestWithSettingsRefusesWhatNeverEnds(t *testing.T) {
	dir := t.TempDir()
	fifo := testkit.FIFO(t, filepath.Join(dir, "fifo.json"))
	big := testkit.Sparse(t, filepath.Join(dir, "big.json"), 1<<20+1)
	for _, tc := range []struct{ file, want string }{
		{fifo, "not a regular file (a FIFO)"},
		{big, "1048577 bytes; at most 1048576 allowed"},
	} {
		err := testkit.Within(t, 5*time.Second, tc.file, func() error {
			_, err := WithSettings([]string{"--settings", tc.file}, "{}", t.TempDir())
			return err
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.want)
		}
	}
}

const permission = `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash",
"tool_input":{"command":"rm -rf build","description":"Remove build dir"},"permission_mode":"default"}`

// TestPermissionReply: a PermissionRequest is delivered with a Reply, and
// what the wrapper replies is what the hook command prints for Claude;
// with no reply in time, it prints nothing and Claude draws its dialog.
func TestPermissionReply(t *testing.T) {
	s := listen(t)
	go func() {
		m := <-s.Messages()
		if m.Err != nil || m.Reply == nil || string(m.Payload.Input) != `{"command":"rm -rf build","description":"Remove build dir"}` {
			t.Errorf("message %+v", m)
			return
		}
		m.Reply([]byte(`{"decision":"yes"}`))
	}()
	var out bytes.Buffer
	if err := Forward(strings.NewReader(permission), s.Path(), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != `{"decision":"yes"}` {
		t.Errorf("printed %q", out.String())
	}

	go func() { <-s.Messages() }() // delivered, never answered
	out.Reset()
	start := time.Now()
	if err := Forward(strings.NewReader(permission), s.Path(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || time.Since(start) < ReplyTimeout-replyMargin {
		t.Errorf("unanswered: printed %q after %v", out.String(), time.Since(start))
	}
	// Other events print nothing.
	out.Reset()
	go func() { <-s.Messages() }()
	if err := Forward(strings.NewReader(pre), s.Path(), &out); err != nil || out.Len() != 0 {
		t.Errorf("PreToolUse: %v, printed %q", err, out.String())
	}
}

// TestElicitationReply: an MCP server's Elicitation is delivered with a
// Reply, whose output the hook command prints for Claude; its schema and
// the server come through.
func TestElicitationReply(t *testing.T) {
	s := listen(t)
	msg := `{"hook_event_name":"Elicitation","session_id":"s","mcp_server_name":"demo","message":"Where?","mode":"form",` +
		`"requested_schema":{"type":"object","properties":{"env":{"type":"string","enum":["a","b"]}}}}`
	go func() {
		m := <-s.Messages()
		if m.Err != nil || m.Reply == nil || m.Payload.MCPServerName != "demo" || m.Payload.Message != "Where?" ||
			m.Payload.Mode != "form" || !strings.Contains(string(m.Payload.RequestedSchema), `"enum":["a","b"]`) {
			t.Errorf("message %+v", m)
			return
		}
		m.Reply([]byte(`{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"decline"}}`))
	}()
	var out bytes.Buffer
	if err := Forward(strings.NewReader(msg), s.Path(), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"action":"decline"`) {
		t.Errorf("printed %q", out.String())
	}
}

// TestQuestionReply: with ReplyToQuestions, a question's PreToolUse waits
// for the wrapper's answer and the hook command prints it; an answer that
// comes after the wait is refused (Reply reports false) and nothing is
// printed, so Claude draws the form.
func TestQuestionReply(t *testing.T) {
	s := listen(t)
	s.ReplyToQuestions(300 * time.Millisecond)
	go func() {
		m := <-s.Messages()
		if m.Reply == nil || !strings.Contains(string(m.Payload.Input), `"questions"`) {
			t.Errorf("message %+v", m)
			return
		}
		if !m.Reply([]byte(`{"answers":"yes"}`)) {
			t.Error("a reply in time was refused")
		}
	}()
	var out bytes.Buffer
	if err := ForwardWaiting(strings.NewReader(pre), s.Path(), &out, time.Second); err != nil || out.String() != `{"answers":"yes"}` {
		t.Fatalf("printed %q, %v", out.String(), err)
	}

	late := make(chan bool, 1)
	forwarded := make(chan struct{})
	go func() {
		m := <-s.Messages()
		<-forwarded // the person answers after the hook gave up
		late <- m.Reply([]byte(`{"answers":"late"}`))
	}()
	out.Reset()
	err := ForwardWaiting(strings.NewReader(pre), s.Path(), &out, time.Second)
	close(forwarded)
	if err != nil || out.Len() != 0 {
		t.Fatalf("late: printed %q, %v", out.String(), err)
	}
	if <-late {
		t.Error("a reply after the wait was taken")
	}
}

// TestQuestionReplyTakenIsRead: a reply the wrapper takes is one the hook
// command still reads, even when the message reached the session long after
// the hook command began waiting (a queue of hook messages before it): the
// wrapper counts its wait from the connection, not from the delivery.
func TestQuestionReplyTakenIsRead(t *testing.T) {
	s := listen(t)
	const wait = 400 * time.Millisecond
	s.ReplyToQuestions(wait)
	stop := `{"session_id":"s","hook_event_name":"Stop"}`
	for range cap(s.msgs) { // the queue full: the question waits to be delivered
		if err := Forward(strings.NewReader(stop), s.Path(), io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	type forwarded struct {
		out string
		err error
	}
	done := make(chan forwarded, 1)
	go func() {
		var out bytes.Buffer
		err := ForwardWaiting(strings.NewReader(pre), s.Path(), &out, wait)
		done <- forwarded{out.String(), err}
	}()
	// The session reads its messages only after the hook command gave up
	// (its deadline is at most dialTimeout+wait after it began).
	held := time.NewTimer(dialTimeout + wait + 300*time.Millisecond)
	<-held.C
	var taken bool
	for range cap(s.msgs) + 1 {
		m := next(t, s)
		if m.Payload.HookEventName == PreToolUse {
			taken = m.Reply([]byte(`{"answers":"yes"}`))
		}
	}
	f := <-done
	if taken != (f.out != "") {
		t.Errorf("the wrapper took the reply: %t; the hook command printed %q (%v)", taken, f.out, f.err)
	}
}

// TestWaitingHooksHoldNoSlot: hooks waiting for their replies, more of
// them than are read at once, do not keep the next hook from being taken:
// a Stop after them is acknowledged at once. Before, each held its
// reading slot for its whole wait, and the Stop's hook command gave up.
func TestWaitingHooksHoldNoSlot(t *testing.T) {
	s := listen(t)
	// Longer than next waits: a hook held back until the others' waits end
	// would fail it.
	const wait = 30 * time.Second
	s.ReplyToQuestions(wait)
	waiting := make(chan Message, maxReading+1)
	for range maxReading + 1 {
		go ForwardWaiting(strings.NewReader(pre), s.Path(), io.Discard, wait)
	}
	for range maxReading + 1 {
		waiting <- next(t, s)
	}
	go func() { <-s.Messages() }() // the Stop
	if err := Forward(strings.NewReader(`{"session_id":"s","hook_event_name":"Stop"}`), s.Path(), io.Discard); err != nil {
		t.Errorf("a Stop behind %d waiting hooks: %v", maxReading+1, err)
	}
	close(waiting)
	for m := range waiting {
		m.Reply(nil)
	}
}
