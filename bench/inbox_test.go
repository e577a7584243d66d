//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/inbox"
	"github.com/claudewrap/claudewrap/internal/testsupport/natstest"
	"github.com/claudewrap/claudewrap/remote"
)

// measureInbox holds perSession forms in each of sessions runs of the
// claudewrap binary on the fake Claude (benchchild forms), and answers
// them all one after the other from this process: through each session's
// local socket, then, with runs started anew, through the inbox on a
// three-node cluster.
func measureInbox(t *testing.T, claudewrap string, sessions, perSession int) *Inbox {
	r := &Inbox{Sessions: sessions, Forms: sessions * perSession, Nodes: 3}
	r.Local = inboxRound(t, claudewrap, sessions, perSession, "")
	srv := natstest.Start(t, natstest.Options{Nodes: 3})
	r.Inbox = inboxRound(t, claudewrap, sessions, perSession, srv.URL())
	return r
}

// benchRun is one claudewrap run on the fake Claude.
type benchRun struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{}
}

// keysQuiet is askflow's keysQuiet, and a fifth more: a form whose drive
// starts within it of the last key to Claude is taken as guarded, and
// takes no key for its first 200 ms (askflow's formAge).
const keysQuiet = 1200 * time.Millisecond

// siblingSettle is askflow's siblingAge, and a half more.
const siblingSettle = 1500 * time.Millisecond

// roundWait bounds each wait of a round: the runs' start, an answer.
const roundWait = 2 * time.Minute

// inboxRound starts the runs (with an inbox at url, or none), waits for
// every form, answers each, and reads claudewrap's CPU per session.
func inboxRound(t *testing.T, claudewrap string, sessions, perSession int, url string) InboxSide {
	child := benchchild(t)
	runtimeDir, err := os.MkdirTemp("", "cwb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtimeDir) })
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	dir := t.TempDir()
	keyLog := filepath.Join(dir, "keys.log")
	rules := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(rules, []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var runs []*benchRun
	for s := range sessions {
		args := []string{"run", "--claude", child, "--headless", "--size", "100x40", "--on-unmatched", "wait", "--idle-timeout", "0",
			"--quiet", "--rules", rules, "--events", filepath.Join(dir, fmt.Sprintf("events-%d.jsonl", s))}
		if url != "" {
			args = append(args, "--inbox", url, "--machine", fmt.Sprintf("m%d", s%5))
		}
		br := &benchRun{cmd: exec.Command(claudewrap, append(args, "--", "forms", strconv.Itoa(perSession))...), done: make(chan struct{})}
		br.cmd.Dir = dir
		br.cmd.Env = append(os.Environ(), "BENCH_KEY_LOG="+keyLog, "XDG_RUNTIME_DIR="+runtimeDir, "XDG_CONFIG_HOME="+dir,
			"CLAUDEWRAP_INBOX=", "CLAUDEWRAP_MACHINE=")
		br.cmd.Stderr = &br.stderr
		br.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
		if err := br.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { br.cmd.Wait(); close(br.done) }()
		t.Cleanup(func() { br.cmd.Process.Kill(); <-br.done })
		runs = append(runs, br)
	}
	failed := func(format string, args ...any) {
		t.Helper()
		for _, br := range runs {
			if br.stderr.Len() > 0 {
				t.Logf("run %d said: %s", br.cmd.Process.Pid, br.stderr.String())
			}
		}
		t.Fatalf(format, args...)
	}

	// Every form waiting, then answered one after the other: the first of
	// every session, then the second of every session, and so on. A
	// session shows its next form once the one before is answered, and a
	// drive that starts within a second of the key that closed it takes
	// no key for 200 ms (askflow's guard): its answer starts once that
	// second has passed, so that what is measured is the answer's way to
	// the run.
	type waiting struct {
		session   int // claudewrap's pid
		tool      string
		n         int // the form's number in its session
		answer    func(ctx context.Context) (remote.Outcome, error)
		startedAt time.Time
	}
	var forms []*waiting
	ds := []answer.Decision{{Action: answer.Select, Labels: []string{"SQLite"}}}
	deadline := time.Now().Add(roundWait)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var c *inbox.Conn
	if url != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err = inbox.Dial(ctx, inbox.Config{URL: url, Name: "alice"})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	// Every form waits once each run said it handed it over: read from
	// the runs' events, so that waiting asks the runs nothing.
	for handedOver(t, dir) < sessions*perSession {
		if time.Now().After(deadline) {
			failed("%d forms handed over of %d within %v", handedOver(t, dir), sessions*perSession, roundWait)
		}
		<-tick.C
	}
	// Forms asked together take no key that commits until a second after
	// the last of them arrived (askflow's siblingAge): the answers start
	// once that has passed in every session, on either way.
	settled := time.NewTimer(siblingSettle)
	defer settled.Stop()
	for len(forms) < sessions*perSession {
		forms = forms[:0]
		if c != nil {
			listed, err := c.Forms(context.Background())
			for _, f := range listed {
				id := f.ID
				forms = append(forms, &waiting{session: f.PID, tool: f.ToolUseID, answer: func(ctx context.Context) (remote.Outcome, error) {
					r, err := c.Answer(ctx, id, inbox.Reply{Answers: ds, From: remote.FromAnswer}, 0)
					return r.Outcome, err
				}})
			}
			if time.Now().After(deadline) {
				failed("%d forms in the inbox of %d within %v (%v)", len(forms), sessions*perSession, roundWait, err)
			}
		} else {
			all, _ := remote.Sessions()
			for _, s := range all {
				fs, err := remote.Pending(context.Background(), s)
				if err != nil {
					continue
				}
				for _, f := range fs {
					s, tool := s, f.ToolUseID
					forms = append(forms, &waiting{session: s.PID, tool: tool, answer: func(ctx context.Context) (remote.Outcome, error) {
						return remote.Answer(ctx, s, tool, remote.FromAnswer, ds)
					}})
				}
			}
			if time.Now().After(deadline) {
				failed("%d forms waiting in the local sessions of %d within %v", len(forms), sessions*perSession, roundWait)
			}
		}
		if len(forms) < sessions*perSession {
			<-tick.C
		}
	}
	<-settled.C
	for _, f := range forms {
		f.n, _ = strconv.Atoi(f.tool[strings.LastIndex(f.tool, "_")+1:])
	}
	sort.Slice(forms, func(i, j int) bool {
		if forms[i].n != forms[j].n {
			return forms[i].n < forms[j].n
		}
		return forms[i].session < forms[j].session
	})
	side := InboxSide{}
	verified := map[int]time.Time{} // by session: when its last answer was
	for _, f := range forms {
		// Paced, not synchronised: a form whose drive starts within a second
		// of the key that closed the one before takes no key for 200 ms.
		if d := keysQuiet - time.Since(verified[f.session]); d > 0 {
			<-time.After(d)
		}
		ctx, cancel := context.WithTimeout(context.Background(), roundWait)
		f.startedAt = time.Now()
		o, err := f.answer(ctx)
		cancel()
		if err != nil || o.Result != "verified" {
			failed("answering %s of session %d: %+v, %v", f.tool, f.session, o, err)
		}
		verified[f.session] = time.Now()
		side.Verified++
	}

	// claudewrap's own CPU, each run still going (the fake Claude's turn
	// never ends): utime and stime of /proc/PID/stat, its children's left
	// out.
	var cpus []time.Duration
	for _, br := range runs {
		d, err := ownCPU(br.cmd.Process.Pid)
		if err != nil {
			failed("claudewrap's CPU: %v", err)
		}
		cpus = append(cpus, d)
	}
	for _, br := range runs {
		br.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, br := range runs {
		<-br.done
	}
	slices.Sort(cpus)
	side.CPU, side.CPUMax = Median(cpus), cpus[len(cpus)-1]

	keys, err := readKeyLog(keyLog)
	if err != nil {
		t.Fatal(err)
	}
	var lat []time.Duration
	slowest, slowAt := time.Duration(0), ""
	for i, f := range forms {
		k, ok := keys[f.tool]
		if !ok {
			failed("no key was written to %s", f.tool)
		}
		lat = append(lat, k.Sub(f.startedAt))
		if lat[i] > slowest {
			slowest, slowAt = lat[i], fmt.Sprintf("%s, answered %d of %d", f.tool, i+1, len(forms))
		}
	}
	t.Logf("inbox %q: the slowest answer to its first key: %v (%s)", url, slowest, slowAt)
	side.P50, side.P99 = Percentile(lat, 50), Percentile(lat, 99)
	return side
}

// handedOver counts the forms the runs writing events in dir handed over
// to a person.
func handedOver(t *testing.T, dir string) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "events-*.jsonl"))
	n := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		n += bytes.Count(b, []byte(`"event":"handed_over"`))
	}
	return n
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on
// Linux).
const clockTick = 10 * time.Millisecond

// ownCPU is the CPU time process pid has used itself: user and system.
func ownCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields count from
	// after its closing one.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// readKeyLog reads the fake Claude's notes of the first key each form
// read.
func readKeyLog(path string) (map[string]time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]time.Time{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		tool, ns, ok := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if ok && err == nil {
			out[tool] = time.Unix(0, n)
		}
	}
	return out, sc.Err()
}
