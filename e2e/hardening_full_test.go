//go:build e2e && full

package e2e

// Hardening: what real terminals, real processes and a busy machine do to a
// run (issue 7). Every test runs against each pinned Claude Code version.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/session"
	"github.com/claudewrap/claudewrap/vt"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

// waitFile waits until the file contains want.
func waitFile(t *testing.T, path, want string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		b, _ := os.ReadFile(path)
		if bytes.Contains(b, []byte(want)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never contained %q; it holds:\n%s", path, want, b)
		}
		time.Sleep(10 * time.Millisecond) // polling a file under a deadline
	}
}

// children lists the PIDs of pid's children, from every thread.
func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// claudeOf is the pid of the Claude that claudewrap (pid) runs: the first
// child of claudewrap's one child, the supervisor (see ptyhost). A process
// Claude started and left (its background daemon) becomes the
// supervisor's child too, as its subreaper, and was started after Claude.
func claudeOf(t *testing.T, pid int) int {
	t.Helper()
	kids := children(pid)
	if len(kids) != 1 {
		t.Fatalf("claudewrap's children %v, want its supervisor alone", kids)
	}
	claude, first := 0, uint64(0)
	for _, k := range children(kids[0]) {
		st, ok := procStat(k)
		if !ok || len(st) < 20 {
			continue
		}
		started, err := strconv.ParseUint(st[19], 10, 64)
		if err == nil && (claude == 0 || started < first) {
			claude, first = k, started
		}
	}
	if claude == 0 {
		t.Fatalf("the supervisor (pid %d) has no child", kids[0])
	}
	return claude
}

// inSession lists the live processes whose session id is sid.
func inSession(sid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		if st, ok := procStat(pid); ok && len(st) > 3 && st[3] == strconv.Itoa(sid) && st[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// TestHardSIGTERMMidForm: claudewrap runs Claude on the person's terminal
// and is sent SIGTERM while a form is on the screen — once while claudewrap
// is answering it by rule, once while it is left to the person. The person's
// terminal comes back exactly as it was (termios, cursor shown, keyboard
// modes reset), Claude and everything in its session are gone, the events
// end with an exit event, the status is 128+15, and no wrong answer reached
// Claude.
func TestHardSIGTERMMidForm(t *testing.T) {
	for _, tc := range []struct {
		name, rules, when string
	}{
		{"answering", "  - answer: {select: MongoDB}\n", `"event":"key"`},
		{"left to the person", "  - {when: {header: Nope}, answer: {select: MongoDB}}\n", `"event":"handed_over"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forVersions(t, func(t *testing.T, version string) {
				var before *unix.Termios
				tr, tty := startOnTTY(t, version, "testdata/scenarios/database.yaml", "pick a database",
					func(tty *os.File, _ *claudetest.Sandbox) {
						// A terminal set up unlike the default, so that
						// "restored" cannot pass by chance.
						tio, err := testkit.Termios(tty)
						if err != nil {
							t.Fatal(err)
						}
						tio.Cc[unix.VERASE] = 0x08
						tio.Lflag &^= unix.ECHOCTL
						if err := testkit.SetTermios(tty, tio); err != nil {
							t.Fatal(err)
						}
						before, _ = testkit.Termios(tty)
					},
					"--rules", writeRules(t, tc.rules), "--on-unmatched", "passthrough")
				waitText(t, tr.screen, 60*time.Second, "Which database should we use?", "Enter to select")
				waitFile(t, tr.events, tc.when, 30*time.Second)

				claude := claudeOf(t, tr.cmd.Process.Pid)
				st, _ := procStat(claude)
				started := st[19]
				raw, _ := testkit.Termios(tty)
				if *raw == *before {
					t.Fatalf("the terminal was not put in raw mode")
				}
				mark := len(tr.text())
				tr.cmd.Process.Signal(syscall.SIGTERM)
				r := tr.wait(t)

				after, err := testkit.Termios(tty)
				if err != nil {
					t.Fatal(err)
				}
				if *after != *before {
					t.Errorf("termios not restored:\n before %+v\n after  %+v", *before, *after)
				}
				// claudewrap's reset is the last thing the person's terminal
				// got but for claudewrap's own summary lines, plain text
				// (read it through: claudewrap has exited, but the test may
				// not have read all it wrote yet).
				resets := []string{"\x1b[?25h", "\x1b[?2004l", "\x1b[?1004l", "\x1b[<99u", "\x1b[>4m"}
				reset := func() bool {
					out := tr.text()[mark:]
					if i := strings.LastIndex(out, "\x1b"); i >= 0 {
						if j := strings.Index(out[i:], "claudewrap: "); j >= 0 {
							out = out[:i+j] // claudewrap's lines, after the last escape
						}
					}
					last := tail(out, 120)
					for _, seq := range resets {
						if !strings.Contains(last, seq) {
							return false
						}
					}
					return true
				}
				for deadline := time.Now().Add(5 * time.Second); !reset(); {
					if time.Now().After(deadline) {
						t.Errorf("the terminal's last output %q lacks one of %q", tail(tr.text()[mark:], 300), resets)
						break
					}
					time.Sleep(10 * time.Millisecond) // polling a buffer under a deadline
				}
				if !tr.screen.Snapshot().CursorVisible {
					t.Errorf("the cursor is hidden on the person's terminal")
				}
				if st, ok := procStat(claude); ok && st[19] == started {
					t.Errorf("Claude (pid %d) still exists, state %s", claude, st[0])
				}
				if left := inSession(claude); len(left) > 0 {
					t.Errorf("processes of Claude's session still run: %v", left)
				}
				if len(r.events) == 0 || r.events[len(r.events)-1].name() != "exit" {
					t.Fatalf("the events do not end with exit\n%s", r)
				}
				exit := r.events[len(r.events)-1]
				if r.code != 143 || exit["code"] != float64(143) {
					t.Errorf("exit status %d (event %v), want 143\n%s", r.code, exit["code"], r)
				}
				for _, res := range r.sb.API.ToolResults() {
					if !res.IsError && !strings.Contains(res.Content, `="MongoDB"`) {
						t.Errorf("Claude recorded %q", res.Content)
					}
				}
				how := fmt.Sprintf("Claude exited %v itself", exit["claude_code"])
				if sig, ok := exit["signal"]; ok {
					how = fmt.Sprintf("Claude died of %v", sig)
				}
				if len(r.find("submitted")) > 0 {
					how += "; the form was submitted before the signal landed"
				}
				report("Claude Code %s: SIGTERM mid-form (%s): terminal restored, Claude and its session gone, events end with exit %d (%s)",
					version, tc.name, r.code, how)
			})
		})
	}
}

// TestHardHookNeverBlocks: the hook command Claude runs returns at once and
// succeeds, whatever the socket does: no socket at all, a socket that
// accepts and never reads (a small message and one larger than the socket
// buffer), and a socket nobody accepts on.
func TestHardHookNeverBlocks(t *testing.T) {
	bin := claudetest.Claudewrap(t)
	dir := t.TempDir()
	small := []byte(`{"session_id":"s","hook_event_name":"Stop"}`)
	large := append([]byte(`{"session_id":"s","hook_event_name":"Stop","x":"`), bytes.Repeat([]byte("x"), 3<<20)...)
	large = append(large, `"}`...)

	deaf := filepath.Join(dir, "deaf.sock")
	ln, err := net.Listen("unix", deaf)
	if err != nil {
		t.Fatal(err)
	}
	var (
		heldMu sync.Mutex
		held   []net.Conn // accepted, never read
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			heldMu.Lock()
			held = append(held, c)
			heldMu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		heldMu.Lock()
		defer heldMu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})

	// A listener that never accepts, its backlog filled by the test.
	unaccepted := filepath.Join(dir, "full.sock")
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(fd) // kept out of the processes tests start (no SOCK_CLOEXEC on darwin)
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: unaccepted}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	var filler []net.Conn
	t.Cleanup(func() {
		for _, c := range filler {
			c.Close()
		}
	})
	for range 4 {
		d := net.Dialer{Timeout: 100 * time.Millisecond}
		if c, err := d.Dial("unix", unaccepted); err == nil {
			filler = append(filler, c)
		}
	}

	for _, tc := range []struct {
		name, socket string
		payload      []byte
	}{
		{"no socket", "/nonexistent/claudewrap.sock", small},
		{"not a socket", dir, small},
		{"accepts, never reads", deaf, small},
		{"accepts, never reads, 3 MB", deaf, large},
		{"never accepts", unaccepted, small},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "hook", "--socket", tc.socket)
			cmd.Stdin = bytes.NewReader(tc.payload)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			if err != nil || stdout.Len() != 0 || took > time.Second {
				t.Errorf("hook: %v after %v, stdout %q, stderr %q; want exit 0 within 1s and nothing on stdout",
					err, took, stdout.String(), stderr.String())
			}
			report("hook command, %s: exit 0 in %v, nothing on stdout (stderr %q)", tc.name, took.Round(time.Millisecond), strings.TrimSpace(stderr.String()))
		})
	}
}

// gate is a reverse proxy in front of the fake API that holds Claude's
// requests until it is opened, so a test can act while Claude is up and
// before it asks anything.
type gate struct {
	proxy   *httptest.Server
	arrived chan struct{} // closed at the first request
	open    chan struct{}
	once    sync.Once
}

func newGate(t *testing.T, target string) *gate {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{arrived: make(chan struct{}), open: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // stream the replies as they come
	g.proxy = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.once.Do(func() { close(g.arrived) })
		select {
		case <-g.open:
		case <-r.Context().Done():
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		select {
		case <-g.open:
		default:
			close(g.open)
		}
		g.proxy.Close()
	})
	return g
}

// headless is a headless claudewrap run the test starts and then waits for.
type headless struct {
	cmd    *exec.Cmd
	r      *run
	evPath string
	stderr bytes.Buffer
	cancel context.CancelFunc
	once   sync.Once
	err    error
}

// startHeadless starts `claudewrap run --headless` on the sandbox; env
// replaces the sandbox's environment when not nil. It is runUntil split in
// two, for runs that must overlap.
func startHeadless(t *testing.T, sb *claudetest.Sandbox, env []string, prompt string, args ...string) *headless {
	t.Helper()
	dir := t.TempDir()
	h := &headless{r: &run{sb: sb, cast: filepath.Join(dir, "run.cast")}, evPath: filepath.Join(dir, "events.jsonl")}
	full := append([]string{"run", "--claude", sb.Claude, "--headless", "--events", h.evPath, "--record", h.r.cast}, args...)
	full = append(full, "--", prompt)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	h.cancel = cancel
	h.cmd = exec.CommandContext(ctx, claudetest.Claudewrap(t), full...)
	h.cmd.Env, h.cmd.Dir = sb.Env(), sb.Dir
	if env != nil {
		h.cmd.Env = env
	}
	h.cmd.Stderr = &h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); h.wait() })
	return h
}

// wait waits for the run to end; safe from any goroutine, and more than
// once.
func (h *headless) wait() {
	h.once.Do(func() {
		h.err = h.cmd.Wait()
		h.cancel()
	})
}

// finish reads what the run left, from the test's goroutine.
func (h *headless) finish(t *testing.T) *run {
	t.Helper()
	h.r.stderr = h.stderr.String()
	h.r.readEvents(t, h.evPath)
	var ee *exec.ExitError
	switch {
	case h.err == nil:
	case errors.As(h.err, &ee) && ee.ExitCode() >= 0:
		h.r.code = ee.ExitCode()
	default:
		t.Fatalf("claudewrap did not exit in time: %v\n%s", h.err, h.r)
	}
	return h.r
}

const hardRules = "  - {name: sqlite, when: {header: Database}, answer: {select: SQLite}}\n"

// yamlPos is where a rules error says it is.
var yamlPos = regexp.MustCompile(`rules\.yaml:(\d+):(\d+): \S`)

// TestHardRulesEditedWhileRunning: rules are read once, at start. The rules
// file rewritten while Claude is up and before it asks (its first API
// request is held meanwhile) — first cut short (invalid YAML), then
// rewritten in place a byte at a time with a rule for another answer —
// changes nothing: the answer given and verified is the one the file held
// at start.
func TestHardRulesEditedWhileRunning(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
		g := newGate(t, sb.API.URL())
		env := claudetest.Env(sb.Home, g.proxy.URL)
		path := writeRules(t, hardRules)
		h := startHeadless(t, sb, env, "pick a database", "--rules", path, "--exit-after-turn")
		ended := make(chan struct{})
		go func() { h.wait(); close(ended) }()
		select {
		case <-g.arrived:
		case <-ended:
			t.Fatalf("claudewrap ended before Claude asked the API\n%s", h.finish(t))
		case <-time.After(60 * time.Second):
			t.Fatal("Claude never called the API")
		}
		// Claude runs and has asked nothing yet: edit the rules under it.
		full, _ := os.ReadFile(path)
		if err := os.WriteFile(path, full[:len(full)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		mongo := "version: 1\nrules:\n  - {name: mongo, answer: {select: MongoDB}}\n"
		for i := range len(mongo) {
			f.Write([]byte{mongo[i]}) // an editor that writes in place, a byte at a time
		}
		f.Close()
		if b, _ := os.ReadFile(h.evPath); bytes.Contains(b, []byte(`"event":"question"`)) {
			t.Fatalf("the form was asked before the rules were edited: the test proves nothing")
		}
		close(g.open)
		<-ended
		r := h.finish(t)
		res := r.toolResult(t, "toolu_01database")
		ds := r.find("decision")
		if !strings.Contains(res.Content, sqliteAnswer) || len(r.find("verified")) != 1 || r.code != 0 ||
			len(ds) != 1 || ds[0]["rule"] != "sqlite" {
			t.Fatalf("tool_result %q: want the start-time rule's SQLite, verified, exit 0\n%s", res.Content, r)
		}
		report("Claude Code %s: rules file cut short and rewritten while running: start-time rule used, SQLite verified", version)
	})
}

// TestHardRulesHalfWritten: a rules file caught half-written when claudewrap
// starts. Every prefix of a rules file is either refused — exit status 2,
// file:line:col on stderr, Claude never started — or is itself a complete,
// valid rules file. Then, on the real Claude Code, a file still being written
// (truncated, then written slowly by another goroutine) when claudewrap
// starts: refused, and Claude's API is never called.
func TestHardRulesHalfWritten(t *testing.T) {
	bin := claudetest.Claudewrap(t)
	content := "version: 1\ndefaults:\n  on_unmatched: fail\n  fallback: {type: \"use your judgment\"}\nrules:\n" +
		"  - name: database\n    when:\n      header: \"^Database$\"\n      options: [PostgreSQL, SQLite]\n    answer:\n      select: SQLite\n" +
		"  - name: features\n    when: {question: \"(?i)which features\"}\n    answer: {select: [Auth, API]}\n"
	t.Run("every prefix", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "rules.yaml")
		// A stand-in for Claude that leaves a mark when started.
		mark := filepath.Join(dir, "started")
		fake := filepath.Join(dir, "claude")
		os.WriteFile(fake, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755)
		var refused, loaded int
		for n := range len(content) {
			prefix := content[:n]
			os.WriteFile(path, []byte(prefix), 0o644)
			os.Remove(mark)
			cmd := exec.Command(bin, "run", "--claude", fake, "--headless", "--events", filepath.Join(dir, "ev.jsonl"), "--rules", path)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			_, started := os.Stat(mark)
			var ee *exec.ExitError
			switch {
			case err == nil:
				loaded++
				if check := exec.Command(bin, "rules", "check", path); check.Run() != nil || started != nil {
					t.Errorf("prefix %d loaded but is not a valid rules file (or Claude did not start)", n)
				}
			case errors.As(err, &ee) && ee.ExitCode() == 2:
				refused++
				m := yamlPos.FindStringSubmatch(stderr.String())
				if m == nil || !strings.HasPrefix(stderr.String(), "claudewrap: "+path+":") {
					t.Errorf("prefix %d (%q): error %q has no file:line:col", n, tail(prefix, 20), stderr.String())
					continue
				}
				if line, _ := strconv.Atoi(m[1]); line < 1 || line > strings.Count(prefix, "\n")+1 {
					t.Errorf("prefix %d: error %q points past the file's %d lines", n, stderr.String(), strings.Count(prefix, "\n")+1)
				}
				if started == nil {
					t.Errorf("prefix %d: refused, but Claude was started", n)
				}
			default:
				t.Errorf("prefix %d (%q): %v, want exit 2 or a valid file\n%s", n, tail(prefix, 20), err, stderr.String())
			}
		}
		report("rules file half-written at each of its %d bytes: %d prefixes refused with file:line:col and exit 2, %d complete files", len(content), refused, loaded)
	})
	forVersions(t, func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
		path := filepath.Join(t.TempDir(), "rules.yaml")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		// The writer has got as far as the middle of the first rule.
		cut := strings.Index(content, "options:")
		f.WriteString(content[:cut])
		h := startHeadless(t, sb, nil, "pick a database", "--rules", path, "--exit-after-turn")
		ended := make(chan struct{})
		go func() { h.wait(); close(ended) }()
		// ... and goes on writing slowly, in place, after claudewrap started.
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer f.Close()
			for i := cut; i < len(content); i++ {
				select {
				case <-ended:
					return
				case <-time.After(100 * time.Millisecond): // a slow writer, not synchronisation
				}
				f.WriteString(content[i : i+1])
			}
		}()
		<-ended
		wg.Wait()
		r := h.finish(t)
		if r.code != 2 || !yamlPos.MatchString(r.stderr) || len(sb.API.Requests()) != 0 {
			t.Fatalf("want exit 2 with file:line:col and Claude never started; API requests %d\n%s", len(sb.API.Requests()), r)
		}
		report("Claude Code %s: rules file being written at start: refused (%s), exit 2, Claude not started",
			version, strings.TrimSpace(strings.TrimPrefix(r.stderr, "claudewrap: "+filepath.Dir(path)+"/")))
	})
}

// repainted reports whether Claude has drawn the screen for a width of
// cols: a horizontal rule (above the form and the prompt) spans it exactly.
func repainted(s vt.Snapshot, cols int) bool {
	if s.Cols != cols {
		return false
	}
	rule := strings.Repeat("─", cols)
	for _, line := range strings.Split(s.Text(), "\n") {
		if strings.TrimRight(line, " ") == rule {
			return true
		}
	}
	return false
}

// TestHardResizeStorm: the person's window is resized 100 times, between 60
// and 140 columns, while claudewrap answers a three-question form. Each
// resize waits for Claude to repaint at the new width (or a short deadline).
//
// Between keys: the resizes come in bursts of six just before each of
// askflow's keys goes out, so the form rewraps under the wrapper again and
// again, but Claude has settled before each key. The answer must be verified
// on every version.
//
// Concurrent: the resizes run on their own while askflow answers (key n
// waits for 5n resizes, so the storm spans the whole answer). A resize that
// lands while Claude is drawing leaves that frame drawn for the wrong width
// (a real terminal shows the same), and askflow may read such a frame. The
// answer is verified, or claudewrap gives up safely: Claude never records a
// wrong answer, and the failure is reported and the form cancelled.
func TestHardResizeStorm(t *testing.T) {
	const storm = 100
	answer := "  - {when: {header: Database}, answer: {select: MongoDB}}\n" +
		"  - {when: {header: Features}, answer: {select: [Search, Auth]}}\n" +
		"  - {when: {header: Naming}, answer: {type: kebab-case everywhere}}\n"
	const want = `"Which database should we use?"="MongoDB", "Which features should we build?"="Search, Auth", "How should we name things?"="kebab-case everywhere"`
	for _, concurrent := range []bool{false, true} {
		name := "between keys"
		if concurrent {
			name = "concurrent"
		}
		t.Run(name, func(t *testing.T) {
			forVersions(t, func(t *testing.T, version string) {
				var (
					stormMu               sync.Mutex
					resizes, duringAnswer int
					stormErr              string
					first                 = make(chan struct{})
					once                  sync.Once
					stormDone             = make(chan struct{})
				)
				count := func() int {
					stormMu.Lock()
					defer stormMu.Unlock()
					return resizes
				}
				// resize makes the next resize of the storm and gives
				// Claude a moment to repaint; false once the storm is over
				// or Claude has gone.
				resize := func(r *faultRun) bool {
					stormMu.Lock()
					i := resizes
					stormMu.Unlock()
					if i >= storm {
						return false
					}
					cols := 60 + (i*37)%81 // 60..140, jumping about
					if err := r.host.Resize(cols, 40); err != nil {
						stormMu.Lock()
						stormErr = err.Error()
						stormMu.Unlock()
						return false
					}
					submitted := len(r.find(t, "submitted")) > 0
					stormMu.Lock()
					resizes++
					if !submitted {
						duringAnswer++
					}
					stormMu.Unlock()
					// After the resize itself: a rule cut to the new width
					// is not a repaint.
					seq := r.host.Screen().Snapshot().Seq
					ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
					defer cancel()
					r.host.Screen().Wait(ctx, func(s vt.Snapshot) bool { return s.Seq > seq && repainted(s, cols) })
					return true
				}
				var run *faultRun
				var runMu sync.Mutex
				r := runSession(t, version, "testdata/scenarios/three.yaml", "plan the project", answer,
					func(n int, key []byte, h *ptyhost.Host) bool {
						once.Do(func() { close(first) })
						if !concurrent {
							runMu.Lock()
							r := run
							runMu.Unlock()
							for range 6 {
								if !resize(r) {
									break
								}
							}
							return true
						}
						// Key n goes out once the storm has done 5n resizes.
						for deadline := time.Now().Add(5 * time.Second); count() < min(storm, 5*n) && time.Now().Before(deadline); {
							time.Sleep(5 * time.Millisecond) // polling a counter under a deadline
						}
						return true
					},
					func(r *faultRun) {
						runMu.Lock()
						run = r
						runMu.Unlock()
						go func() {
							defer close(stormDone)
							select {
							case <-first:
							case <-r.host.Done():
								return
							}
							if concurrent {
								for resize(r) {
								}
							}
							// Once the form's fate is known, finish the storm
							// (between keys: any resizes left after the last
							// key) and end Claude.
							for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
								if len(r.find(t, "verified"))+len(r.find(t, "cancelled"))+len(r.find(t, "mismatch")) > 0 {
									break
								}
								time.Sleep(20 * time.Millisecond) // polling the log under a deadline
							}
							for resize(r) {
							}
							r.host.Signal(syscall.SIGTERM)
						}()
					},
					func(c *session.Config) { c.ExitAfterTurn = false })
				<-stormDone
				ok := len(r.find(t, "verified")) == 1
				noWrongAnswer(t, r, want)
				if len(r.find(t, "mismatch")) != 0 || r.report.Mismatch {
					t.Errorf("a mismatch under resizes\n%s", r)
				}
				switch {
				case !concurrent && !ok:
					t.Errorf("want the answer verified with resizes between keys\n%s", r)
				case !ok && (!r.report.Navigation || len(r.find(t, "cancelled")) == 0):
					t.Errorf("neither verified nor a reported navigation failure\n%s", r)
				}
				if resizes != storm {
					t.Errorf("only %d resizes (%s)\n%s", resizes, stormErr, r)
				}
				outcome := "verified"
				if !ok {
					var steps []string
					for _, e := range r.find(t, "error") {
						steps = append(steps, fmt.Sprintf("%v: %v", e["step"], e["reason"]))
					}
					outcome = fmt.Sprintf("gave up safely, form cancelled, nothing recorded (%s)", strings.Join(steps, "; "))
				}
				report("Claude Code %s: %d resizes 60..140 cols %s (%d before the submit, %d keys): %s",
					version, resizes, name, duringAnswer, len(r.find(t, "key")), outcome)
			})
		})
	}
}

// TestHardSocketAbuse: while Claude's real hooks come and go and a form is
// answered, the hook socket takes abuse: a megabyte of garbage over 256
// connections (random bytes, cut-off JSON, hook JSON for other events and
// tools, a form with too many questions), one 5 MB message, slow-loris
// connections that trickle a byte now and then and never finish (kept open
// throughout), and a PostToolUse for an unknown tool_use_id whose answers
// would be a mismatch. Every bad message is refused and reported as an
// error event; the unknown PostToolUse is reported and sets nothing; the
// real PreToolUse and PostToolUse still get through and the form is
// verified. Then Claude exits while the flood and the slow connections go
// on: the session still ends at once.
func TestHardSocketAbuse(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		const conns, chunk = 256, 4 << 10
		kinds := [][]byte{
			[]byte("\x00\xff\xfe garbage \x1b[31m"),
			[]byte(`{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_cut","tool_input":{"questions":[{"quest`),
			[]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_bash","tool_input":{"command":"rm -rf /"}}`),
			[]byte(`{"hook_event_name":"Notification","message":"hi"}`),
			[]byte(`{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_five","tool_input":{"questions":[` +
				strings.Repeat(`{"question":"Q?","header":"H","options":[{"label":"a"},{"label":"b"}]},`, 4) +
				`{"question":"Q?","header":"H","options":[{"label":"a"},{"label":"b"}]}]}}`),
			[]byte(`[1,2,3]`),
		}
		const bashKind = 2 // kinds[bashKind] is a well-formed PreToolUse of another tool
		unknown := []byte(`{"hook_event_name":"PostToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_nobody",` +
			`"tool_input":{"questions":[{"question":"Which database should we use?","header":"Database",` +
			`"options":[{"label":"PostgreSQL"},{"label":"SQLite"},{"label":"MongoDB"}]}]},` +
			`"tool_response":{"answers":{"Which database should we use?":"MongoDB"}}}`)

		var (
			sent, flooded, lorisOpened int
			claudeGone                 time.Time
			mu                         sync.Mutex
			wg                         sync.WaitGroup
			stop                       = make(chan struct{})
			abuseErr                   = make(chan string, 1)
		)
		r := runSession(t, version, "testdata/scenarios/database.yaml", "pick a database", sqliteRule, nil,
			func(r *faultRun) {
				dial := func() net.Conn {
					c, err := net.DialTimeout("unix", r.socket, time.Second)
					if err != nil {
						return nil // the session has ended
					}
					return c
				}
				send := func(b []byte) bool {
					c := dial()
					if c == nil {
						return false
					}
					c.Write(b)
					c.Close()
					return true
				}
				// Slow loris: four connections that never finish, reopened
				// whenever the server gives up on one, until the test ends.
				for range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							c := dial()
							if c == nil {
								return
							}
							mu.Lock()
							lorisOpened++
							mu.Unlock()
							c.Write([]byte(`{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_loris"`))
						trickle:
							for {
								select {
								case <-stop:
									c.Close()
									return
								case <-time.After(200 * time.Millisecond): // trickling, not synchronisation
								}
								if _, err := c.Write([]byte(" ")); err != nil {
									break trickle
								}
							}
							c.Close()
						}
					}()
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					fail := func(msg string) {
						select {
						case abuseErr <- msg:
						default:
						}
						r.host.Signal(syscall.SIGKILL)
					}
					// The flood, from Claude's start through the form, 16
					// connections at a time.
					sem := make(chan struct{}, 16)
					var fw sync.WaitGroup
					for i := range conns {
						if i == conns/2 {
							// Half-way: wait for the form, go on over it.
							ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
							_, err := r.host.Screen().Wait(ctx, func(s vt.Snapshot) bool {
								return strings.Contains(s.Text(), "Which database should we use?")
							})
							cancel()
							if err != nil {
								fail("the form never showed: " + err.Error())
								return
							}
						}
						// Each message is one 4 KB chunk: garbage repeated, or
						// JSON after leading white space (still one document).
						k := kinds[i%len(kinds)]
						b := bytes.Repeat(k, chunk/len(k)+1)[:chunk]
						if i%len(kinds) != 0 {
							b = append(bytes.Repeat([]byte(" "), chunk-len(k)), k...)
						}
						sem <- struct{}{}
						fw.Add(1)
						go func() {
							defer fw.Done()
							defer func() { <-sem }()
							send(b)
						}()
						sent += len(b)
					}
					fw.Wait()
					// One message far over the limit, and a PostToolUse for a
					// form nobody asked, answered other than the rule would.
					send(bytes.Repeat([]byte(`{"a":`), 1<<20))
					// With the session's id, or it is refused for that
					// before its tool_use_id is looked at (TestForgedHooks).
					send(bytes.Replace(unknown, []byte(`{"hook_event_name"`),
						[]byte(`{"session_id":"`+sessionOf(r.log.String())+`","hook_event_name"`), 1))
					deadline := time.Now().Add(60 * time.Second)
					for len(r.find(t, "verified")) == 0 || !strings.Contains(r.log.String(), `"toolu_nobody"`) {
						if time.Now().After(deadline) {
							fail("no verified event, or toolu_nobody not reported")
							return
						}
						time.Sleep(20 * time.Millisecond) // polling the log under a deadline
					}
					// Claude exits while a flood goes on.
					for range 16 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for send(kinds[0]) {
								mu.Lock()
								flooded++
								mu.Unlock()
							}
						}()
					}
					r.host.Signal(syscall.SIGTERM)
					<-r.host.Done()
					mu.Lock()
					claudeGone = time.Now()
					mu.Unlock()
				}()
			},
			func(c *session.Config) { c.ExitAfterTurn = false })
		ended := time.Now()
		close(stop)
		wg.Wait()
		select {
		case msg := <-abuseErr:
			t.Fatalf("%s\n%s", msg, r)
		default:
		}

		var refused, unknownReported int
		for _, e := range r.find(t, "error") {
			switch {
			case e["tool_use_id"] == "toolu_nobody" && strings.Contains(fmt.Sprint(e["message"]), "unknown tool_use_id"):
				unknownReported++
			case e["tool_use_id"] == nil:
				refused++
			}
		}
		if len(r.find(t, "verified")) != 1 || len(r.find(t, "mismatch")) != 0 || r.report.Mismatch || r.report.Navigation {
			t.Errorf("want the real form verified, no mismatch\n%s", r)
		}
		// A Bash PreToolUse is no refusal: every tool's PreToolUse goes to
		// the deny rules (none here), quietly for a session not Claude's.
		want := conns + 1 - (conns+len(kinds)-1-bashKind)/len(kinds)
		if refused < want || unknownReported != 1 {
			t.Errorf("%d refusals (want at least %d) and %d reports of the unknown id (want 1)\n%s", refused, want, unknownReported, r)
		}
		if qs := r.find(t, "question"); len(qs) != 1 || qs[0]["tool_use_id"] != "toolu_01database" {
			t.Errorf("want only the real form asked, got %v", qs)
		}
		noWrongAnswer(t, r, sqliteAnswer)
		mu.Lock()
		lag := ended.Sub(claudeGone)
		mu.Unlock()
		if lag > 2*time.Second {
			t.Errorf("the session took %v to end after Claude exited, under a flood and slow connections", lag)
		}
		report("Claude Code %s: hook socket abuse (%d KB garbage over %d connections, 5 MB message, %d slow-loris connections, unknown PostToolUse): %d refusals reported, form verified; session ended %v after Claude under a flood of %d more",
			version, sent>>10, conns, lorisOpened, refused, lag.Round(time.Millisecond), flooded)
	})
}

// TestHardConcurrentRuns: eight headless runs at once on this two-core
// machine, four per pinned version (all eight on one version when only one
// is pinned), each answering the three-question form. Every run exits 0 with
// one verified event and Claude recorded exactly the intended answers.
func TestHardConcurrentRuns(t *testing.T) {
	const total = 8
	versions := claudetest.Versions()
	rulesFile := abs(t, "testdata/rules/three.yaml")
	const want = `"Which database should we use?"="SQLite", "Which features should we build?"="Auth, API", ` +
		`"How should we name things?"="snake_case, like the rest of the repo"`
	type one struct {
		version string
		h       *headless
		took    time.Duration
	}
	runs := make([]*one, total)
	start := time.Now()
	for i := range runs {
		v := versions[i%len(versions)]
		sb := claudetest.New(t, v, "testdata/scenarios/three.yaml")
		runs[i] = &one{version: v, h: startHeadless(t, sb, nil, "plan the project", "--rules", rulesFile, "--exit-after-turn")}
	}
	var wg sync.WaitGroup
	for _, o := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.h.wait()
			o.took = time.Since(start)
		}()
	}
	wg.Wait()
	var slowest time.Duration
	perVersion := map[string]int{}
	for i, o := range runs {
		r := o.h.finish(t)
		res := r.toolResult(t, "toolu_01three")
		if res.IsError || !strings.Contains(res.Content, want) || len(r.find("verified")) != 1 || r.code != 0 {
			t.Errorf("run %d (Claude Code %s): tool_result %q, want %s verified and exit 0\n%s", i, o.version, res.Content, want, r)
			continue
		}
		perVersion[o.version]++
		slowest = max(slowest, o.took)
	}
	var counts []string
	for _, v := range versions {
		counts = append(counts, fmt.Sprintf("%d on %s", perVersion[v], v))
	}
	report("%d concurrent headless runs (%s) on %d cores: all verified, exit 0; the slowest took %v",
		total, strings.Join(counts, ", "), runtime.NumCPU(), slowest.Round(100*time.Millisecond))
}
