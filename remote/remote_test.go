package remote

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/peercred"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

type fakeHandler struct {
	mu      sync.Mutex
	answers [][]answer.Decision
	from    []string
	claude  string
}

var dbForm = Form{ToolUseID: "toolu_1", Since: time.Now().UTC(), Questions: []answer.Question{{Question: "Which database?",
	Header: "Database", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}}}

func (h *fakeHandler) Pending() []Form       { return []Form{dbForm} }
func (h *fakeHandler) ClaudeSession() string { return h.claude }
func (h *fakeHandler) Answer(ctx context.Context, id, from string, ds []answer.Decision) Outcome {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.answers = append(h.answers, ds)
	h.from = append(h.from, from)
	return Outcome{Result: "verified", Recorded: map[string]string{"Which database?": ds[0].Labels[0]}}
}

func (h *fakeHandler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.answers)
}

// self is the test process as a session sees it.
func self() Peer { return Peer{PID: os.Getpid(), Program: peercred.Program(os.Getpid())} }

// private gives the test its own sessions directory.
func private(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("XDG_RUNTIME_DIR", dir)
	return filepath.Join(dir, "claudewrap")
}

// TestRegisterPendingAnswer: a registered session is listed, says what
// waits (named by session), takes an answer and reports its outcome; once
// closed it is gone.
func TestRegisterPendingAnswer(t *testing.T) {
	dir := private(t)
	h := &fakeHandler{claude: "0f3c2a9e-1111-2222-3333-444455556666"}
	reg, err := Register(h, "/work/project", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("sessions directory %v %v", fi, err)
	}
	ctx := context.Background()
	forms, err := PendingAll(ctx)
	if err != nil || len(forms) != 1 || forms[0].Session != reg.info.ID || forms[0].Cwd != "/work/project" || forms[0].ToolUseID != "toolu_1" {
		t.Fatalf("pending %+v %v", forms, err)
	}
	for _, name := range []string{reg.info.ID, "0f3c2a9e"} {
		s, err := Find(name)
		if err != nil || s.ID != reg.info.ID {
			t.Fatalf("Find(%q) = %+v, %v", name, s, err)
		}
	}
	if _, err := Find("0f3"); err == nil {
		t.Error("a 3-character prefix named a session")
	}
	s, _ := Find(reg.info.ID)
	o, err := Answer(ctx, s, "toolu_1", FromAnswer, []answer.Decision{{Action: answer.Select, Labels: []string{"SQLite"}}})
	if err != nil || !o.OK() || o.Recorded["Which database?"] != "SQLite" {
		t.Fatalf("answer %+v %v", o, err)
	}
	reg.Close()
	if all, _ := Sessions(); len(all) != 0 {
		t.Errorf("sessions after close: %+v", all)
	}
}

// TestAnswerFrom: the session hears who sent an answer, as one short line
// safe to print; a client that does not say (one older than the field) is
// claudewrap answer.
func TestAnswerFrom(t *testing.T) {
	private(t)
	h := &fakeHandler{}
	reg, err := Register(h, "/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	s, _ := Find(reg.info.ID)
	ds, _ := json.Marshal([]answer.Decision{{Action: answer.Select, Labels: []string{"SQLite"}}})
	sel := `"answers":` + string(ds)
	long := "x" + strings.Repeat("é", maxFrom) // cut at maxFrom, mid-character
	for _, tc := range []struct{ name, request, want string }{
		{"claudewrap answer", `{"op":"answer","tool_use_id":"toolu_1",` + sel + `,"from":"claudewrap answer"}`, FromAnswer},
		{"the page", `{"op":"answer","tool_use_id":"toolu_1",` + sel + `,"from":"claudewrap serve (page) from 192.0.2.7"}`, "claudewrap serve (page) from 192.0.2.7"},
		{"an older client", `{"op":"answer","tool_use_id":"toolu_1",` + sel + `}`, FromAnswer},
		{"blank", `{"op":"answer","tool_use_id":"toolu_1",` + sel + `,"from":"  "}`, FromAnswer},
		{"controls", `{"op":"answer","tool_use_id":"toolu_1",` + sel + `,"from":"x\u001b[2J\r\nclaudewrap: verified\u202e"}`, `x\x1b[2J\r\nclaudewrap: verified\u202e`},
		{"long", `{"op":"answer","tool_use_id":"toolu_1",` + sel + `,"from":"` + long + `"}`, long[:maxFrom-1] + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("unix", s.socket)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.Write([]byte(tc.request + "\n"))
			if line, err := readLine(c, 1<<20); err != nil || !strings.Contains(string(line), `"result":"verified"`) {
				t.Fatalf("reply %q %v", line, err)
			}
			h.mu.Lock()
			got := h.from[len(h.from)-1]
			h.mu.Unlock()
			if want := tc.want + ", " + self().String(); got != want {
				t.Errorf("from %q, want %q", got, want)
			}
		})
	}
	o, err := Answer(context.Background(), s, "toolu_1", FromPage, []answer.Decision{{Action: answer.Select, Labels: []string{"SQLite"}}})
	if h.mu.Lock(); err != nil || !o.OK() || h.from[len(h.from)-1] != FromPage+", "+self().String() {
		t.Errorf("Answer from the page: %+v %v, heard from %q", o, err, h.from[len(h.from)-1])
	}
	h.mu.Unlock()
}

// TestBadRequests: garbage, an unknown op, a request cut short are refused
// with a clear reply, and nothing is answered.
func TestBadRequests(t *testing.T) {
	private(t)
	h := &fakeHandler{}
	reg, err := Register(h, "/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	s, _ := Find(reg.info.ID)
	for _, in := range []string{"not json\n", `{"op":"explode"}` + "\n", `{"op":"answer","answers":"x"}` + "\n", `{"op":"ans`} {
		c, err := net.Dial("unix", s.socket)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(in))
		if !strings.HasSuffix(in, "\n") {
			c.(*net.UnixConn).CloseWrite()
		}
		line, err := readLine(c, 1<<20)
		c.Close()
		if err != nil || !strings.Contains(string(line), `"result":"refused"`) {
			t.Errorf("%q: reply %q %v", in, line, err)
		}
	}
	if h.count() != 0 {
		t.Errorf("bad requests answered %d times", h.count())
	}
}

// TestDirRefused: a sessions directory others can enter, or a symbolic
// link in its place, is refused rather than used.
func TestDirRefused(t *testing.T) {
	dir := private(t)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(); err == nil || !strings.Contains(err.Error(), "not a private directory") {
		t.Errorf("0755: %v", err)
	}
	os.Remove(dir)
	other := t.TempDir()
	if err := os.Symlink(other, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(); err == nil {
		t.Error("a symbolic link was taken for the directory")
	}
	os.Remove(dir)
	os.Chmod(filepath.Dir(dir), 0o777) // others may replace what it holds
	if _, err := Dir(); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("in a directory anyone may change: %v", err)
	}
}

// TestSessionsSkipsAFIFO: an entry that is no regular file is passed over,
// not waited on.
func TestSessionsSkipsAFIFO(t *testing.T) {
	dir := private(t)
	if _, err := Dir(); err != nil {
		t.Fatal(err)
	}
	testkit.FIFO(t, filepath.Join(dir, strconv.Itoa(os.Getpid())+".json"))
	if err := testkit.Within(t, 5*time.Second, "Sessions", func() error { _, err := Sessions(); return err }); err != nil {
		t.Error(err)
	}
}

// TestStaleCleaned: the entry of a session whose process is gone is removed
// and not listed.
func TestStaleCleaned(t *testing.T) {
	dir := private(t)
	if _, err := Dir(); err != nil {
		t.Fatal(err)
	}
	const dead = "2147483000" // no such process
	os.WriteFile(filepath.Join(dir, dead+".json"), []byte(`{"session":"`+dead+`","pid":2147483000}`), 0o600)
	os.WriteFile(filepath.Join(dir, dead+".sock"), nil, 0o600)
	// Left alone by a session killed while it registered.
	const dead2 = "2147483001"
	os.WriteFile(filepath.Join(dir, dead2+".sock"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "."+dead2+".json.tmp"), nil, 0o600)
	// A live session's, and what is not a session's, stay.
	live := strconv.Itoa(os.Getpid())
	keep := []string{"." + live + ".json.tmp", live + ".sock", "notes.txt", "x.json", "+2147483002.json", "02147483002.sock"}
	for _, k := range keep {
		os.WriteFile(filepath.Join(dir, k), nil, 0o600)
	}
	all, err := Sessions()
	if err != nil || len(all) != 0 {
		t.Fatalf("sessions %+v %v", all, err)
	}
	for _, f := range []string{dead + ".json", dead + ".sock", dead2 + ".sock", "." + dead2 + ".json.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("stale %s left: %v", f, err)
		}
	}
	for _, k := range keep {
		if _, err := os.Stat(filepath.Join(dir, k)); err != nil {
			t.Errorf("%s removed: %v", k, err)
		}
	}
}

// TestFindWhole: a session named whole (its pid, Claude's id) is found
// though another's Claude id starts with the same characters; a prefix
// names a session only when nothing is named whole, and nothing names
// none.
func TestFindWhole(t *testing.T) {
	dir := private(t)
	if _, err := Dir(); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	for _, e := range []string{
		`{"session":"` + pid + `","pid":` + pid + `,"claude_session":"aaaa-1"}`,
		`{"session":"other","pid":` + pid + `,"claude_session":"` + pid + `0000-2"}`,
	} {
		var in Info
		json.Unmarshal([]byte(e), &in)
		os.WriteFile(filepath.Join(dir, in.ID+".json"), []byte(e), 0o600)
	}
	for name, want := range map[string]string{pid: pid, pid + "0000": "other", "aaaa": pid, "aaaa-1": pid} {
		if s, err := Find(name); err != nil || s.ID != want {
			t.Errorf("Find(%q) = %q, %v; want %q", name, s.ID, err, want)
		}
	}
	if s, err := Find(""); err == nil {
		t.Errorf("Find(\"\") = %+v", s)
	}
}

// TestMain lets the test binary dial a socket as another user.
func TestMain(m *testing.M) {
	if sock := os.Getenv("REMOTE_TEST_DIAL"); sock != "" {
		c, err := net.Dial("unix", sock)
		if err != nil {
			os.Stdout.WriteString("dial: " + err.Error())
			os.Exit(0)
		}
		c.Write([]byte(`{"op":"pending"}` + "\n"))
		line, _ := readLine(c, 1<<20)
		os.Stdout.Write(line)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestOtherUserRefused: the kernel says who connected; a process of another
// user that reaches the socket (here one put where anyone can) is refused
// and learns nothing. The sessions directory itself keeps others out (0700,
// checked by TestRegisterPendingAnswer).
func TestOtherUserRefused(t *testing.T) {
	open, err := os.MkdirTemp("", "rtopen")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(open)
	os.Chmod(open, 0o777)
	sock := filepath.Join(open, "s.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o777)
	h := &fakeHandler{}
	r := &Registration{info: Info{ID: "1"}, ln: ln, h: h, quit: make(chan struct{})}
	r.wg.Add(1)
	go r.accept()
	defer func() { close(r.quit); ln.Close(); r.wg.Wait() }()

	// A copy of the test binary that another user may run.
	self := filepath.Join(open, "remote.test")
	if exe, err := os.Executable(); err != nil {
		t.Fatal(err)
	} else if b, err := os.ReadFile(exe); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(self, b, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(uid int) string {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Dir = open
		cmd.Env = append(os.Environ(), "REMOTE_TEST_DIAL="+sock)
		if uid != os.Getuid() {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("as uid %d: %v", uid, err)
		}
		return string(out)
	}
	if got := run(os.Getuid()); !strings.Contains(got, "toolu_1") {
		t.Fatalf("the session's own user: %q", got)
	}
	if os.Getuid() != 0 {
		// Only root can start a process of another user (CI runs as
		// root); the directory's privacy is what keeps others out here.
		t.Skip("the refusal of another user is checked only as root")
	}
	got := run(65534)
	if !strings.Contains(got, `"result":"refused"`) || !strings.Contains(got, "uid 65534") || strings.Contains(got, "toolu_1") {
		t.Errorf("another user got %q", got)
	}
}

// TestRefusesClaudesTree: a process of the run's own Claude (here the test
// process stands for one: the tree's root is itself) may neither list nor
// answer the run's forms, and the run is told who tried; a process of
// another run's Claude is refused too unless the run takes answers from
// other runs. Nothing is answered.
func TestRefusesClaudesTree(t *testing.T) {
	dir := private(t)
	type refusal struct {
		who Peer
		why string
	}
	var mu sync.Mutex
	var refused []refusal
	h := &fakeHandler{}
	reg, err := Register(h, "/", Options{Tree: os.Getpid(), Refused: func(who Peer, why string) {
		mu.Lock()
		refused = append(refused, refusal{who, why})
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := Find(reg.info.ID)
	ctx := context.Background()
	if _, err := Pending(ctx, s); err == nil {
		t.Error("pending from a process of the run's Claude was answered")
	}
	o, err := Answer(ctx, s, "toolu_1", FromAnswer, []answer.Decision{{Action: answer.Select, Labels: []string{"SQLite"}}})
	if err != nil || o.Result != "refused" || !strings.Contains(o.Message, "a process of this run's Claude") || !strings.Contains(o.Message, self().String()) {
		t.Errorf("answer from a process of the run's Claude: %+v %v", o, err)
	}
	mu.Lock()
	if len(refused) != 2 || refused[0].who != self() || !strings.Contains(refused[1].why, "nothing Claude runs may read or answer") {
		t.Errorf("the run was told %+v", refused)
	}
	mu.Unlock()
	reg.Close()

	// A process below another run's Claude: its ancestor is named as a
	// run's supervisor is, whatever the sessions folder says.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, orchestrated := range []bool{false, true} {
		reg, err := Register(h, "/", Options{Tree: 999999, OtherRuns: orchestrated})
		if err != nil {
			t.Fatal(err)
		}
		c := exec.Command("bash", "-c", `exec -a claudewrap-supervisor bash -c "$0; true"`, self)
		c.Env = append(os.Environ(), "REMOTE_TEST_DIAL="+filepath.Join(dir, reg.ID()+".sock"))
		out, err := c.Output()
		reg.Close()
		switch {
		case err != nil:
			t.Fatalf("the client below a run's supervisor: %v", err)
		case orchestrated && !strings.Contains(string(out), `"tool_use_id":"toolu_1"`):
			t.Errorf("with OtherRuns: pending said %s", out)
		case !orchestrated && (!strings.Contains(string(out), "a process of another claudewrap run's Claude") || !strings.Contains(string(out), "--answers-from-runs")):
			t.Errorf("a process of another run's Claude was told %s", out)
		}
	}
}

// TestForgedEntry: a process of the user that lists itself under another
// run's name (an entry and a socket of its own, as a process of Claude's
// could) is not taken for that run: pending and answer refuse it, and the
// forms a real run lists are named by that run, whatever they claim.
func TestForgedEntry(t *testing.T) {
	private(t)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	// The entry names the test's parent; the test process serves it.
	forged := Info{ID: strconv.Itoa(os.Getppid()), PID: os.Getppid(), Cwd: "/", Started: time.Now().UTC()}
	b, _ := json.Marshal(forged)
	if err := os.WriteFile(filepath.Join(dir, forged.ID+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, forged.ID+".sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // the forger: it says a form of another session waits
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			readLine(c, 1<<20)
			lie, _ := json.Marshal([]Form{{Session: "4242", ToolUseID: "toolu_real", Questions: dbForm.Questions}})
			c.Write(append(lie, '\n'))
			c.Close()
		}
	}()
	s, err := Find(forged.ID)
	if err != nil {
		t.Fatal(err)
	}
	if forms, err := Pending(context.Background(), s); err == nil || !strings.Contains(err.Error(), "not by the run it names") {
		t.Errorf("a forged session's pending: %+v %v", forms, err)
	}
	if forms, _ := PendingAll(context.Background()); len(forms) != 0 {
		t.Errorf("pending lists a forged session's forms: %+v", forms)
	}
	// A real run's forms are its own, whatever session they name.
	h := &fakeHandler{}
	reg, err := Register(h, "/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	forms, _ := PendingAll(context.Background())
	if len(forms) != 1 || forms[0].Session != reg.ID() {
		t.Errorf("pending %+v, want the real run's form named by it", forms)
	}
}
