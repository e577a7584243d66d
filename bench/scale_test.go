//go:build bench

package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// scaleLimit bounds the whole scale measurement: every run started at once
// to the last one's exit.
const scaleLimit = 10 * time.Minute

// scaleRun is one headless run of the claudewrap binary in its sandbox.
type scaleRun struct {
	s      *sandbox
	events string
	cmd    *exec.Cmd
	out    bytes.Buffer
	ended  time.Time
	own    time.Duration // the run process's own CPU, read as it exited
	total  time.Duration // its rusage: its own and every waited-for descendant's
	err    error
}

// measureScale starts n headless runs of the claudewrap binary at once on
// Claude Code version, each answering three.yaml's form by rules, checks
// each, and accounts for the CPU they used.
func measureScale(t *testing.T, claudewrap, version string, n int) *Scale {
	f := forms[1]
	if f.scenario != "three.yaml" {
		t.Fatalf("forms[1] is %s, not three.yaml", f.scenario)
	}
	rf := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(rf, []byte("version: 1\nrules:\n"+f.rules), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := make([]*scaleRun, n)
	for i := range runs {
		runs[i] = &scaleRun{s: newSandbox(t, version, f.scenario), events: filepath.Join(t.TempDir(), "events.jsonl")}
	}
	sc := &Scale{Version: version, Runs: n, CPUs: runtime.NumCPU(), Load: loadAvg()}
	watch, err := watchExits()
	if err != nil {
		t.Logf("scale: no taskstats (%v): claudewrap's CPU is its run processes' alone", err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i, r := range runs {
		r.cmd = exec.Command(claudewrap, "run", "--claude", r.s.claude, "--headless", "--size", "100x40",
			"--rules", rf, "--on-unmatched", "fail", "--events", r.events, "--exit-after-turn", "--", f.prompt)
		r.cmd.Env, r.cmd.Dir = r.s.env(), r.s.dir
		r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
		r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
		if err := r.cmd.Start(); err != nil {
			for _, r := range runs[:i] {
				r.cmd.Process.Kill()
			}
			wg.Wait()
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); r.wait() }()
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(scaleLimit):
		for _, r := range runs {
			r.cmd.Process.Kill()
		}
		<-all
		t.Errorf("scale: the runs did not all end within %v", scaleLimit)
	}
	var last time.Time
	for i, r := range runs {
		if r.ended.After(last) {
			last = r.ended
		}
		sc.Slowest = max(sc.Slowest, r.ended.Sub(start))
		sc.RunCPU += r.own
		sc.Total += r.total
		if why := r.check(f); why != "" {
			t.Logf("scale: run %d (pid %d): %s\n%s", i, r.cmd.Process.Pid, why, tail(r.out.Bytes(), 2000))
			continue
		}
		sc.Verified++
	}
	sc.Wall = last.Sub(start)
	sc.LoadEnd = loadAvg()
	if watch != nil {
		recs, err := watch.close()
		if err != nil {
			t.Errorf("scale: taskstats: %v (its figures may miss exits)", err)
		}
		var st unix.Stat_t
		if err := unix.Stat(claudewrap, &st); err != nil {
			t.Fatal(err)
		}
		sc.account(recs, runs, [2]uint64{st.Dev, st.Ino})
	}
	t.Logf("scale: %d/%d verified in %v (slowest %v), load %s → %s; CPU: runs' rusage %v, run processes %v "+
		"(taskstats %v), supervisors %v, %d hooks %v; taskstats saw %v in the trees",
		sc.Verified, sc.Runs, sc.Wall, sc.Slowest, sc.Load, sc.LoadEnd, sc.Total, sc.RunCPU, sc.SeenRun,
		sc.SupervisorCPU, sc.Hooks, sc.HookCPU, sc.Seen)
	return sc
}

// wait waits for the run to exit, reads its own CPU from /proc while it is
// a zombie (exited, not yet reaped: utime and stime are final), then reaps
// it.
func (r *scaleRun) wait() {
	pid := r.cmd.Process.Pid
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
	for errors.Is(err, unix.EINTR) {
		err = unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
	}
	r.ended = time.Now()
	if err == nil {
		r.own, r.err = ownCPU(pid)
	}
	if werr := r.cmd.Wait(); werr != nil && r.err == nil {
		r.err = werr
	}
	if st := r.cmd.ProcessState; st != nil {
		r.total = st.UserTime() + st.SystemTime()
	}
}

// check says what is wrong with the run: its exit, its events, or what
// Claude recorded; "" when it was right.
func (r *scaleRun) check(f form) string {
	var why []string
	if r.err != nil {
		why = append(why, r.err.Error())
	}
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		why = append(why, "exit "+strconv.Itoa(code))
	}
	ev := readEvents(r.events)
	if v := ev.count["verified"]; v != 1 {
		why = append(why, fmt.Sprintf("%d verified events (%v)", v, ev.count))
	}
	var got []string
	for _, res := range r.s.api.ToolResults() {
		if res.ToolUseID == f.id {
			got = append(got, res.Content)
			if res.IsError || !strings.Contains(res.Content, f.want) {
				why = append(why, fmt.Sprintf("recorded %q", res.Content))
			}
		}
	}
	if len(got) != 1 {
		why = append(why, fmt.Sprintf("%d tool_results for %s", len(got), f.id))
	}
	return strings.Join(why, "; ")
}

// account splits the exits taskstats saw in the runs' process trees into
// claudewrap's, every process running the binary exe whatever its name
// (the run; the supervisor and any other it started; the hooks Claude
// ran), and the rest.
func (sc *Scale) account(recs []exitRecord, runs []*scaleRun, exe [2]uint64) {
	parent := map[int]int{}
	ours := map[int]bool{} // claudewrap's processes
	for _, r := range recs {
		parent[r.tgid] = r.ppid
		if r.exe == exe {
			ours[r.tgid] = true
		}
	}
	root := map[int]bool{}
	for _, r := range runs {
		root[r.cmd.Process.Pid] = true
	}
	in := map[int]bool{}
	inTree := func(pid int) bool {
		if v, ok := in[pid]; ok {
			return v
		}
		p, ok := pid, false
		for range 64 {
			if root[p] {
				ok = true
				break
			}
			next, known := parent[p]
			if !known || next <= 1 {
				break
			}
			p = next
		}
		in[pid] = ok
		return ok
	}
	hooks := map[int]bool{}
	for _, r := range recs {
		if !inTree(r.tgid) {
			continue
		}
		sc.Seen += r.cpu
		switch {
		case !ours[r.tgid]:
		case root[r.tgid]:
			sc.SeenRun += r.cpu
		case ours[parent[r.tgid]]:
			sc.SupervisorCPU += r.cpu
		default: // started by Claude or a shell of Claude's
			sc.HookCPU += r.cpu
			hooks[r.tgid] = true
		}
	}
	sc.Hooks = len(hooks)
	sc.Counted = true
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
