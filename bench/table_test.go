package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/screen"
)

func TestMarkdown(t *testing.T) {
	r := &Results{
		Machine:    Machine{CPUs: 2, CPU: "Test CPU", Memory: "1.0 GiB", Go: "go1.x", Date: time.Unix(0, 0), Claude: []string{"2.1.330"}},
		Throughput: &Throughput{Bytes: 200e6, Direct: 100, Wrapped: 95, Runs: 3, TermDirect: 80, TermWrapped: 64, TermScript: 68},
		Emulator:   &Emulator{MBps: 50, AllocsPerKB: 1.5, BytesPerKB: 300},
		Keys:       &Keys{N: 2000, DirectP50: 50 * time.Microsecond, DirectP99: 100 * time.Microsecond, WrappedP50: 120 * time.Microsecond, WrappedP99: 2 * time.Millisecond},
		Answers: []Answer{{Version: "2.1.330", Scenario: "database.yaml", Questions: 1,
			Wrap:    Side{Runs: 10, Answered: 10, Median: 300 * time.Millisecond},
			Oracle:  Side{Runs: 10, Wrong: 10},
			Gated:   Side{Runs: 10, Wrong: 3, Answered: 10, Median: 250 * time.Millisecond},
			Numbers: Side{Runs: 10, Answered: 10, Median: 200 * time.Millisecond}},
			{Version: "2.1.197", Scenario: "three.yaml", Questions: 3,
				Wrap:   Side{Runs: 10, Answered: 10, Median: 600 * time.Millisecond},
				Oracle: Side{Runs: 10, Wrong: 10, Answered: 2, Any: 90 * time.Millisecond},
				Gated:  Side{Runs: 10, Wrong: 10}}},
		Inbox: &Inbox{Sessions: 50, Forms: 200, Nodes: 3,
			Inbox: InboxSide{Verified: 200, P50: 40 * time.Millisecond, P99: 90 * time.Millisecond, CPU: 300 * time.Millisecond, CPUMax: 400 * time.Millisecond},
			Local: InboxSide{Verified: 200, P50: 10 * time.Millisecond, P99: 30 * time.Millisecond, CPU: 200 * time.Millisecond, CPUMax: 250 * time.Millisecond}},
		Scale: &Scale{Version: "2.1.332", Runs: 16, Verified: 15, CPUs: 2, Wall: 20 * time.Second, Slowest: 19500 * time.Millisecond,
			RunCPU: 500 * time.Millisecond, Total: 30 * time.Second, Counted: true,
			SupervisorCPU: 100 * time.Millisecond, HookCPU: 200 * time.Millisecond, Hooks: 80},
		Soak:     []*Soak{{Version: "2.1.330", Duration: 30 * time.Minute, Forms: 10, Verified: 10}},
		Profiles: map[string]string{"keystroke latency": "flat flat% sum%"},
	}
	for i := range 181 {
		r.Soak[0].Samples = append(r.Soak[0].Samples, RSSSample{At: time.Duration(i) * 10 * time.Second, RSS: 20 << 20})
	}
	md := r.Markdown()
	for _, want := range []string{
		"2 CPUs (`nproc`), Test CPU, 1.0 GiB RAM",
		"| 95.0 MB/s | 100.0 MB/s (bare PTY) | ratio 0.95 | ≥ 0.90 | met |",
		"+1.900 ms | added < 1 ms | **missed** |",
		"script(1) as the person's terminal (a C reader; median of 3) | 64.0 MB/s | 80.0 MB/s (the stream child straight under script -qfec) | ratio 0.80 | ≥ 0.90 | **missed** |",
		"against script(1) inside it (a second PTY, no emulator) | 64.0 MB/s | 68.0 MB/s (script -qfec) | ratio 0.94; script(1) itself 0.85 of the child straight under the terminal | (reported) | |",
		"| 300.000 ms (300.000 ms) | oracle at PreToolUse: never answered; oracle at form on screen: 250.000 ms (250.000 ms); oracle at form by numbers: 200.000 ms (200.000 ms) | 1.50× the fastest oracle's right answers | ≤ 1.2× | **missed** |",
		"| 200.000 ms (600.000 ms) | oracle at PreToolUse: never right (its wrong answers: 30.000 ms (90.000 ms)); oracle at form on screen: never answered | no oracle ever answered right: nothing to compare | ≤ 1.2× | n/a |",
		"| 0 / 10 | oracle at PreToolUse: 10 / 10; at form on screen: 3 / 10; at form by numbers: 0 / 10 |",
		"first 20.0 MiB, last 20.0 MiB, max 20.0 MiB",
		"| answer to the first key written, p99, 200 forms waiting in 50 sessions of the fake Claude, answered one after the other by one answerer | 90.000 ms (inbox, 3-node cluster) | 30.000 ms (local socket) | +60.000 ms | (reported) | |",
		"| claudewrap's CPU per session (4 forms held and answered), median (most) | 300.000 ms (400.000 ms) (inbox) | 200.000 ms (250.000 ms) (local socket) | ×1.50 | (reported) | |",
		"| 200 / 200 (inbox) | 200 / 200 (local socket) | | all | met |",
		"| claudewrap's share of the CPU, 16 concurrent headless runs (three.yaml, Claude Code 2.1.332): of all the CPU the runs used | 2.7 % (0.80 s of 30.00 s) | 2.0 % of the machine (20.00 s wall × 2 CPUs) | run processes 0.50 s, supervisors 0.10 s, 80 hooks 0.20 s | ≤ 3 % | met |",
		"| runs verified, 16 concurrent headless runs (three.yaml, Claude Code 2.1.332); the slowest run's wall time | 15 / 16 | | slowest 19.50 s | all | **missed** |",
		"(+0.0%)",
		"Not every target is met",
		"### keystroke latency",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if r.Soak[0].Grew() {
		t.Error("a flat RSS counted as growth")
	}
	r.Soak[0].Samples[180].RSS = 40 << 20
	for i := 150; i < 180; i++ {
		r.Soak[0].Samples[i].RSS = 40 << 20
	}
	if !r.Soak[0].Grew() {
		t.Error("a doubled RSS not counted as growth")
	}
}

func TestScaleMet(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Scale
		met  bool
	}{
		{"under 3 %", Scale{Runs: 16, Verified: 16, RunCPU: 290 * time.Millisecond, Total: 10 * time.Second}, true},
		{"over 3 %", Scale{Runs: 16, Verified: 16, RunCPU: 200 * time.Millisecond, HookCPU: 110 * time.Millisecond, Total: 10 * time.Second}, false},
		{"a run not verified", Scale{Runs: 16, Verified: 15, RunCPU: 100 * time.Millisecond, Total: 10 * time.Second}, false},
	} {
		if got := c.s.Met(); got != c.met {
			t.Errorf("%s: Met() = %v (share %.4f), want %v", c.name, got, c.s.Share(), c.met)
		}
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i))
	}
	if p := Percentile(ds, 50); p != 50 {
		t.Errorf("p50 = %d", p)
	}
	if p := Percentile(ds, 99); p != 99 {
		t.Errorf("p99 = %d", p)
	}
}

// TestStream checks that the benchmark stream is what it claims to be: the
// emulator draws it with its CJK, emoji and rules, and it carries the
// sequences Claude Code uses.
func TestStream(t *testing.T) {
	b := StreamBytes(100, 1, 1)
	for _, want := range []string{"\x1b[?2026h", "\x1b[?2026l", "\x1b[K", "\x1b[2K", "\x1b[38;5;", "\x1b[38;2;", "\x1b[7A", "\x1b]0;", "数据库", "🚀"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("stream lacks %q", want)
		}
	}
	if !bytes.Equal(b, StreamBytes(100, 1, 1)) {
		t.Error("the stream is not deterministic")
	}
	em := screen.New(screen.Options{Cols: 100, Rows: 40})
	em.Write(b)
	text := em.Snapshot().Text()
	for _, want := range []string{"Which database should we use for service", "❯ 1. PostgreSQL", "Enter to select"} {
		if !strings.Contains(text, want) {
			t.Errorf("screen lacks %q:\n%s", want, text)
		}
	}
}

func TestThroughputMet(t *testing.T) {
	for _, c := range []struct {
		name string
		tp   Throughput
		met  bool
		rows int // passthrough rows in the table
	}{
		{"both met", Throughput{Direct: 100, Wrapped: 95, Script: 96, TermDirect: 80, TermWrapped: 76, TermScript: 78}, true, 4},
		{"terminal missed", Throughput{Direct: 100, Wrapped: 95, Script: 96, TermDirect: 80, TermWrapped: 64, TermScript: 78}, false, 4},
		{"bare missed", Throughput{Direct: 100, Wrapped: 85, Script: 96, TermDirect: 80, TermWrapped: 76, TermScript: 78}, false, 4},
		{"no script(1)", Throughput{Direct: 100, Wrapped: 95}, true, 1},
	} {
		r := &Results{Throughput: &c.tp}
		if got := r.Met(); got != c.met {
			t.Errorf("%s: Met() = %v, want %v", c.name, got, c.met)
		}
		if got := strings.Count(r.Markdown(), "| passthrough throughput"); got != c.rows {
			t.Errorf("%s: %d passthrough rows, want %d", c.name, got, c.rows)
		}
	}
}

// TestWithKept: make bench rewrites its own figures and keeps the random
// forms' section, which make stress gives, as it was.
func TestWithKept(t *testing.T) {
	old := "# claudewrap benchmarks\n\nold figures\n\n## Random forms (`make stress`)\n\n280 forms\n\n## Random dialogs\n\n189 dialogs\n"
	got := WithKept("# claudewrap benchmarks\n\nnew figures\n", old)
	want := "# claudewrap benchmarks\n\nnew figures\n\n## Random forms (`make stress`)\n\n280 forms\n\n## Random dialogs\n\n189 dialogs\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := WithKept("new\n", "no such section\n"); got != "new\n" {
		t.Errorf("without the section: %q", got)
	}
}
