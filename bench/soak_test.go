//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/session"
)

const soakRules = `version: 1
rules:
  - {when: {header: '^Database$'}, answer: {select: MongoDB}}
  - {when: {header: '^Cache$'}, answer: {select: Redis}}
  - {when: {header: '^Features$'}, answer: {select: [Auth, API]}}
  - {when: {header: '^Naming$'}, answer: {select: snake_case}}
`

// soakAnswers are what Claude must record for the two forms of
// bench-soak.yaml.
var soakAnswers = []string{
	`"Which database should we use?"="MongoDB"`,
	`"Which cache should we use?"="Redis", "Which features should we build?"="Auth, API", "How should we name things?"="snake_case"`,
}

// measureSoak runs the claudewrap binary headless on bench-soak.yaml for d,
// sampling its VmRSS every interval.
func measureSoak(t *testing.T, claudewrap, version string, d, interval time.Duration) *Soak {
	s := newSandbox(t, version, "bench-soak.yaml")
	rf := filepath.Join(t.TempDir(), "rules.yaml")
	evs := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(rf, []byte(soakRules), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(claudewrap, "run", "--claude", s.claude, "--headless", "--size", "100x40",
		"--rules", rf, "--on-unmatched", "fail", "--events", evs, "--", "soak")
	cmd.Env, cmd.Dir = claudeEnv(s), s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })

	soak := &Soak{Version: version, Duration: d}
	sample := func() {
		if rss, err := vmRSS(cmd.Process.Pid); err == nil && rss > 0 {
			soak.Samples = append(soak.Samples, RSSSample{At: time.Since(start).Round(time.Second), RSS: rss})
		}
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	stop := time.NewTimer(d)
	defer stop.Stop()
	exited := false
	minute := time.Now()
	asked, lastAsk := 0, time.Now()
loop:
	for {
		select {
		case <-tick.C:
			sample()
			if n := readEvents(evs).count["question"]; n != asked {
				asked, lastAsk = n, time.Now()
			} else if time.Since(lastAsk) >= stallAfter {
				soak.Stalled = fmt.Sprintf("no new form after form %d, from %s on", asked,
					(lastAsk.Sub(start)).Round(time.Second))
				break loop
			}
			if time.Since(minute) >= time.Minute {
				minute = time.Now()
				first, last, _ := soak.RSS()
				t.Logf("soak %s on %s: RSS %s (first %s), %d forms asked", time.Since(start).Round(time.Second),
					version, mib(last), mib(first), asked)
			}
		case <-stop.C:
			sample()
			break loop
		case <-done:
			exited = true
			break loop
		}
	}
	soak.Duration = time.Since(start).Round(time.Second)
	if exited {
		soak.Exited = fmt.Sprintf("claudewrap exited early after %s: %v; %s", soak.Duration,
			cmd.ProcessState, tail(stderr.Bytes(), 500))
	} else {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
			soak.Exited = fmt.Sprintf("ended by SIGTERM, exit %d", cmd.ProcessState.ExitCode())
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			soak.Exited = "did not end on SIGTERM within 20s: killed"
		}
	}
	ev := readEvents(evs)
	soak.Forms, soak.Verified = ev.count["question"], ev.count["verified"]
	wrong := ev.failed
	for _, r := range s.api.ToolResults() {
		ok := !r.IsError
		if ok {
			ok = false
			for _, w := range soakAnswers {
				ok = ok || strings.Contains(r.Content, w)
			}
		}
		if !ok {
			wrong[r.ToolUseID] = true
			t.Logf("soak: wrong tool_result for %s: %q", r.ToolUseID, r.Content)
		}
	}
	soak.Wrong = len(wrong)
	soak.Errors = ev.errors
	for _, m := range ev.errors {
		t.Logf("soak on %s: %s", version, m)
	}
	t.Logf("soak events on %s: %v", version, ev.count)
	if soak.Wrong > 0 || os.Getenv("BENCH_KEEP") != "" {
		keep := filepath.Join(os.TempDir(), fmt.Sprintf("bench-soak-events-%s-%d.jsonl", version, time.Now().Unix()))
		if b, err := os.ReadFile(evs); err == nil && os.WriteFile(keep, b, 0o644) == nil {
			t.Logf("soak: events kept in %s", keep)
		}
	}
	return soak
}

// stallAfter is how long the soak waits for a new form before calling the
// session stalled.
const stallAfter = 60 * time.Second

type eventSummary struct {
	count  map[string]int
	failed map[string]bool // tool_use_ids with a mismatch, error or cancel
	errors []string        // the first lines of error messages
}

// readEvents summarises claudewrap's event log.
func readEvents(path string) eventSummary {
	sum := eventSummary{count: map[string]int{}, failed: map[string]bool{}}
	f, err := os.Open(path)
	if err != nil {
		return sum
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Event   string `json:"event"`
			ID      string `json:"tool_use_id"`
			Message string `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		sum.count[e.Event]++
		switch e.Event {
		case "mismatch", "error", "cancelled":
			if e.ID != "" {
				sum.failed[e.ID] = true
			}
			if e.Message != "" && len(sum.errors) < 10 {
				first, _, _ := strings.Cut(e.Message, "\n")
				sum.errors = append(sum.errors, e.ID+": "+first)
			}
		}
	}
	return sum
}

func claudeEnv(s *sandbox) []string { return s.env() }

// vmRSS reads VmRSS from /proc/PID/status, in bytes.
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb << 10, err
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// profileSoakHeap runs the soak's session in this process for d and
// returns pprof's view of what the heap gained between the end of the
// first minute and the end: where a growing RSS comes from.
func profileSoakHeap(t *testing.T, version string, d time.Duration) string {
	// Every allocation, not one per 512 KB: the growth is in small objects.
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	s := newSandbox(t, version, "bench-soak.yaml")
	rf := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(rf, []byte(soakRules), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := rules.Load(rf)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Events go to a file, as with the binary, not into this heap.
	evf, err := os.Create(filepath.Join(t.TempDir(), "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer evf.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		session.Run(ctx, session.Config{
			Host: ptyhost.Config{Path: s.claude, Args: []string{"soak"}, Env: s.env(), Dir: s.dir,
				Headless: true, Cols: 100, Rows: 40},
			Exe:     benchchild(t),
			Decider: set,
			Policy:  rules.Fail,
			Log:     events.New(evf),
		})
	}()
	dir := t.TempDir()
	var inuse []uint64
	heap := func(name string) string {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		inuse = append(inuse, ms.HeapInuse)
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
		return p
	}
	warm := min(time.Minute, d/4)
	var base string
	select {
	case <-time.After(warm):
		base = heap("base.pprof")
	case <-done:
		t.Fatal("session ended during warm-up")
	}
	baseForms := len(s.api.ToolResults())
	select {
	case <-time.After(d - warm):
	case <-done:
	}
	end := heap("end.pprof")
	forms := len(s.api.ToolResults()) - baseForms
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Log("soak profile: session did not end within 30s of cancel")
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=25", "-sample_index=inuse_space",
		"-ignore=fakeapi|net/http", "-diff_base="+base, end).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("go tool pprof failed: %v\n%s", err, out)
	}
	return fmt.Sprintf("in-process session.Run on bench-soak.yaml, Claude Code %s: heap in use after a %s warm-up %s, "+
		"%s after %s and %d more forms (%.0f bytes per form, the in-process fake API's share included); "+
		"what was gained, the fake API's stacks left out:\n\n%s",
		version, warm, mib(int64(inuse[0])), mib(int64(inuse[1])), d-warm, forms,
		float64(int64(inuse[1])-int64(inuse[0]))/float64(max(forms, 1)), out)
}
