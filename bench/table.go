package bench

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Results is everything one `make bench` run measured. A nil section was
// not measured.
type Results struct {
	Machine    Machine
	Throughput *Throughput
	Emulator   *Emulator
	Keys       *Keys
	Answers    []Answer
	Inbox      *Inbox
	Scale      *Scale
	Soak       []*Soak
	// Profiles are pprof -top excerpts explaining missed targets, by title.
	Profiles map[string]string
	// Notes are free-form lines printed under the table.
	Notes []string
}

// Machine describes where the numbers were taken.
type Machine struct {
	CPUs   int
	CPU    string
	Memory string
	Go     string
	Date   time.Time
	Claude []string // Claude Code versions
	Kernel string
	Commit string
	Load   string // /proc/loadavg when the run started
}

// Throughput is passthrough of the same output stream.
type Throughput struct {
	Bytes           int64
	Direct, Wrapped float64 // MB/s (10^6 bytes per second), medians of Runs
	// Script is the same stream under script(1), 0 when it is not installed.
	Script float64
	// TermDirect, TermWrapped and TermScript are the stream child,
	// claudewrap and the child under script(1), with script(1) as the
	// person's terminal (a C reader); 0 without script(1).
	TermDirect, TermWrapped, TermScript float64
	Runs                                int
}

// Ratio is claudewrap's throughput over the bare PTY's.
func (t *Throughput) Ratio() float64 { return t.Wrapped / t.Direct }

// Met reports whether passthrough met its target (≥ 0.9 of the bare
// stream) both ways it was measured.
func (t *Throughput) Met() bool {
	return t.Ratio() >= 0.9 && (t.TermDirect == 0 || t.TermRatio() >= 0.9)
}

// TermRatio is the same ratio with script(1) as the person's terminal, 0
// when not measured.
func (t *Throughput) TermRatio() float64 {
	if t.TermDirect == 0 {
		return 0
	}
	return t.TermWrapped / t.TermDirect
}

// Emulator is the emulator alone, fed the same stream.
type Emulator struct {
	MBps        float64
	AllocsPerKB float64
	BytesPerKB  float64
}

// Keys is the echo round trip of single keystrokes.
type Keys struct {
	N                      int
	DirectP50, DirectP99   time.Duration
	WrappedP50, WrappedP99 time.Duration
}

// AddedP99 is what claudewrap adds at the 99th percentile.
func (k *Keys) AddedP99() time.Duration { return k.WrappedP99 - k.DirectP99 }

// Answer is one form answered repeatedly on one Claude Code version, by
// claudewrap and by three open-loop oracles that write the whole
// precomputed key sequence at once: one the moment PreToolUse arrives
// (Oracle), one as soon as the form is visible on the emulated screen
// (Gated), and one at the same moment pressing the options' numbers rather
// than arrows and Enter (Numbers).
type Answer struct {
	Version   string
	Scenario  string
	Questions int
	Wrap      Side
	Oracle    Side
	Gated     Side
	Numbers   Side
	// Hook is claudewrap with --answer-via hook: the answers returned by
	// the PreToolUse hook, no key pressed.
	Hook Side
}

// HookRatio is the hook strategy's median over [Answer.Reference].
func (a Answer) HookRatio() float64 {
	if a.Reference() == 0 {
		return 0
	}
	return float64(a.Hook.Median) / float64(a.Reference())
}

// Side is one way of answering, over its runs.
type Side struct {
	// Runs, and of those, the wrong answers (a recorded tool_result other
	// than intended, or none at all).
	Runs, Wrong int
	// Answered counts the runs with a PostToolUse. Median is PreToolUse →
	// PostToolUse over the right ones, Any over all answered runs, right or
	// wrong; 0 when there were none.
	Answered int
	Median   time.Duration
	Any      time.Duration
}

// PerQuestion divides a form's latency by its questions.
func (a Answer) PerQuestion(d time.Duration) time.Duration {
	return d / time.Duration(max(a.Questions, 1))
}

// Reference is the fastest of the oracles' medians over their right
// answers (0 when none ever answered right).
func (a Answer) Reference() time.Duration {
	var ref time.Duration
	for _, s := range []Side{a.Oracle, a.Gated, a.Numbers} {
		if s.Median > 0 && (ref == 0 || s.Median < ref) {
			ref = s.Median
		}
	}
	return ref
}

// Ratio is claudewrap's median over [Answer.Reference].
func (a Answer) Ratio() float64 {
	if a.Reference() == 0 {
		return 0
	}
	return float64(a.Wrap.Median) / float64(a.Reference())
}

// Met reports whether claudewrap answered right every time, within 1.2×
// the reference, the target for both answer strategies; with no oracle
// ever right there is nothing to be slower than.
func (a Answer) Met() bool {
	return a.Wrap.Wrong == 0 && (a.Reference() == 0 || a.Ratio() <= 1.2)
}

// Inbox is many forms waiting at once in sessions of the fake Claude,
// answered one after the other by one answerer through the inbox on a
// cluster, beside the same through each session's local socket, in the
// same run.
type Inbox struct {
	Sessions, Forms, Nodes int
	Local, Inbox           InboxSide
}

// InboxSide is one way the answers went.
type InboxSide struct {
	// Verified counts the answers Claude recorded as sent.
	Verified int
	// P50 and P99 are from the answer's start to the first key the fake
	// Claude read for its form.
	P50, P99 time.Duration
	// CPU is claudewrap's own CPU time (user and system, its children
	// left out) per session, from its start to its last form verified:
	// the median and the most.
	CPU, CPUMax time.Duration
}

// Scale is many headless runs of the claudewrap binary at once on the real
// Claude Code, each answering the same form by rules, and the CPU they used.
type Scale struct {
	Version        string
	Runs, Verified int
	CPUs           int
	Load, LoadEnd  string // /proc/loadavg at the start and the end
	// Wall is from the first run's start to the last one's exit; Slowest
	// is the longest run, from the start.
	Wall, Slowest time.Duration
	// RunCPU is the claudewrap run processes' own CPU (user and system),
	// read from /proc as each exited; Total is every run's rusage, its
	// own and every descendant's it waited for (Claude, its hooks, and
	// whatever else Claude ran).
	RunCPU, Total time.Duration
	// Counted says the kernel's exit records (taskstats) were read: they
	// give claudewrap's other processes, the supervisor that holds Claude
	// (with any other the run or it started) and the Hooks hook processes
	// Claude ran, and Seen, the CPU of every exit in the runs' trees,
	// SeenRun the run processes' share of it.
	Counted                bool
	SupervisorCPU, HookCPU time.Duration
	Hooks                  int
	Seen, SeenRun          time.Duration
}

// Claudewrap is the CPU claudewrap's processes used: the runs, and when
// counted their supervisors and hooks.
func (s *Scale) Claudewrap() time.Duration { return s.RunCPU + s.SupervisorCPU + s.HookCPU }

// Share is claudewrap's CPU over all the CPU the runs used.
func (s *Scale) Share() float64 { return float64(s.Claudewrap()) / float64(max(s.Total, 1)) }

// MachineShare is claudewrap's CPU over the machine's capacity while the
// runs went: their wall time times the CPUs.
func (s *Scale) MachineShare() float64 {
	return float64(s.Claudewrap()) / float64(max(s.Wall*time.Duration(max(s.CPUs, 1)), 1))
}

// Met reports whether every run was verified with claudewrap at most 3 %
// of the CPU the runs used.
func (s *Scale) Met() bool { return s.Verified == s.Runs && s.Share() <= 0.03 }

// Soak is claudewrap's resident memory over a long session.
type Soak struct {
	Version  string
	Duration time.Duration
	Samples  []RSSSample
	Forms    int // forms Claude asked (PreToolUse)
	Verified int // forms whose answer was verified
	Wrong    int // forms with a mismatch, error or cancel, or a tool_result other than intended
	// Stalled, when set, says when and why the session stopped asking (a
	// cancelled form ends Claude's turn, and nobody is there to type).
	Stalled string
	Exited  string
	// Errors are the first lines of claudewrap's error events, by form.
	Errors []string
}

// RSSSample is one reading of VmRSS.
type RSSSample struct {
	At  time.Duration // since start
	RSS int64         // bytes
}

// Window is the span means are taken over, and the warm-up skipped.
func (s *Soak) Window() (warmup, window time.Duration) {
	warmup = min(2*time.Minute, s.Duration/10)
	window = min(5*time.Minute, (s.Duration-warmup)/3)
	return warmup, window
}

// Growth compares the mean RSS of the last window with the first window
// after warm-up.
func (s *Soak) Growth() (first, last float64, ok bool) {
	warmup, window := s.Window()
	var fs, ls []float64
	end := s.Duration
	for _, x := range s.Samples {
		if x.At >= warmup && x.At < warmup+window {
			fs = append(fs, float64(x.RSS))
		}
		if x.At >= end-window && x.At <= end {
			ls = append(ls, float64(x.RSS))
		}
	}
	if len(fs) == 0 || len(ls) == 0 {
		return 0, 0, false
	}
	return mean(fs), mean(ls), true
}

// Grew reports growth of more than 5% and 1 MiB between the windows.
func (s *Soak) Grew() bool {
	f, l, ok := s.Growth()
	return ok && l-f > 0.05*f && l-f > 1<<20
}

// RSS returns the first, last and largest sample.
func (s *Soak) RSS() (first, last, most int64) {
	for i, x := range s.Samples {
		if i == 0 {
			first = x.RSS
		}
		last = x.RSS
		most = max(most, x.RSS)
	}
	return first, last, most
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Percentile returns the p-th percentile (0..100) of ds, nearest rank.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(p/100*float64(len(s))+0.5) - 1
	k = min(max(k, 0), len(s)-1)
	return s[k]
}

// Median is the 50th percentile.
func Median(ds []time.Duration) time.Duration { return Percentile(ds, 50) }

// MedianFloat is the median of v.
func MedianFloat(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// DescribeMachine reads nproc, /proc/cpuinfo, /proc/meminfo and go version.
func DescribeMachine(claude []string) Machine {
	m := Machine{CPUs: runtime.NumCPU(), Go: runtime.Version(), Date: time.Now(), Claude: claude}
	if b, err := exec.Command("nproc").Output(); err == nil {
		fmt.Sscan(string(b), &m.CPUs)
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "MemTotal:") {
				var kb int64
				fmt.Sscan(strings.TrimSpace(strings.TrimPrefix(l, "MemTotal:")), &kb)
				m.Memory = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
			}
		}
	}
	if b, err := exec.Command("go", "version").Output(); err == nil {
		m.Go = strings.TrimSpace(strings.TrimPrefix(string(b), "go version "))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.Load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	if b, err := exec.Command("uname", "-sr").Output(); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := exec.Command("git", "describe", "--always", "--dirty").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(b))
	}
	return m
}

func mark(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }

// secs formats d in seconds.
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// Met reports whether every measured target was met.
func (r *Results) Met() bool {
	ok := true
	if t := r.Throughput; t != nil {
		ok = ok && t.Met()
	}
	if k := r.Keys; k != nil {
		ok = ok && k.AddedP99() < time.Millisecond
	}
	for _, a := range r.Answers {
		ok = ok && a.Met()
	}
	for _, s := range r.Soak {
		ok = ok && !s.Grew() && s.Wrong == 0 && s.Stalled == ""
	}
	if in := r.Inbox; in != nil {
		ok = ok && in.Inbox.Verified == in.Forms && in.Local.Verified == in.Forms
	}
	if s := r.Scale; s != nil {
		ok = ok && s.Met()
	}
	return ok
}

// Markdown renders the results as BENCH.md.
func (r *Results) Markdown() string {
	var b strings.Builder
	m := r.Machine
	b.WriteString("# claudewrap benchmarks\n\n")
	b.WriteString("Written by `make bench` (bench/, see its doc.go); every figure down to the random forms comes from the same run; those, from make stress, are kept from the file as it was.\n\n")
	fmt.Fprintf(&b, "- Date: %s\n", m.Date.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Machine: %d CPUs (`nproc`), %s, %s RAM, %s\n", m.CPUs, orUnknown(m.CPU), orUnknown(m.Memory), orUnknown(m.Kernel))
	fmt.Fprintf(&b, "- Load average when the run started: %s (other work shares this machine; figures move with it)\n", orUnknown(m.Load))
	fmt.Fprintf(&b, "- Go: %s; claudewrap at %s (-dirty: the working tree, uncommitted changes included)\n", m.Go, orUnknown(m.Commit))
	fmt.Fprintf(&b, "- Claude Code: %s\n\n", strings.Join(m.Claude, ", "))
	b.WriteString("| measurement | claudewrap | baseline | result | target | |\n|---|---|---|---|---|---|\n")
	if t := r.Throughput; t != nil {
		fmt.Fprintf(&b, "| passthrough throughput, %d MB TUI stream (median of %d) | %.1f MB/s | %.1f MB/s (bare PTY) | ratio %.2f | ≥ 0.90 | %s |\n",
			t.Bytes/1e6, t.Runs, t.Wrapped, t.Direct, t.Ratio(), mark(t.Ratio() >= 0.9))
		if t.Script > 0 {
			fmt.Fprintf(&b, "| passthrough throughput, same stream, against script(1) (a second PTY, no emulator) | %.1f MB/s | %.1f MB/s (script -qfec) | ratio %.2f | (reported) | |\n",
				t.Wrapped, t.Script, t.Wrapped/t.Script)
		}
		if t.TermDirect > 0 {
			fmt.Fprintf(&b, "| passthrough throughput, same stream, script(1) as the person's terminal (a C reader; median of %d) | %.1f MB/s | %.1f MB/s (the stream child straight under script -qfec) | ratio %.2f | ≥ 0.90 | %s |\n",
				t.Runs, t.TermWrapped, t.TermDirect, t.TermRatio(), mark(t.TermRatio() >= 0.9))
			fmt.Fprintf(&b, "| passthrough throughput, same stream, script(1) as the person's terminal, against script(1) inside it (a second PTY, no emulator) | %.1f MB/s | %.1f MB/s (script -qfec) | ratio %.2f; script(1) itself %.2f of the child straight under the terminal | (reported) | |\n",
				t.TermWrapped, t.TermScript, t.TermWrapped/t.TermScript, t.TermScript/t.TermDirect)
		}
	}
	if e := r.Emulator; e != nil {
		fmt.Fprintf(&b, "| emulator throughput, same stream (screen.New, 120x40) | %.1f MB/s | | %.2f allocs/KB, %.0f B allocated/KB | (reported) | |\n",
			e.MBps, e.AllocsPerKB, e.BytesPerKB)
	}
	if k := r.Keys; k != nil {
		fmt.Fprintf(&b, "| keystroke echo round trip, p50 (N=%d) | %s | %s (bare PTY) | +%s | | |\n",
			k.N, ms(k.WrappedP50), ms(k.DirectP50), ms(k.WrappedP50-k.DirectP50))
		fmt.Fprintf(&b, "| keystroke echo round trip, p99 (N=%d) | %s | %s (bare PTY) | +%s | added < 1 ms | %s |\n",
			k.N, ms(k.WrappedP99), ms(k.DirectP99), ms(k.AddedP99()), mark(k.AddedP99() < time.Millisecond))
	}
	for _, a := range r.Answers {
		res := "no oracle ever answered right: nothing to compare"
		if a.Reference() > 0 {
			res = fmt.Sprintf("%.2f× the fastest oracle's right answers", a.Ratio())
		}
		side := func(s Side) string {
			switch {
			case s.Answered == 0:
				return "never answered"
			case s.Median == 0:
				return fmt.Sprintf("never right (its wrong answers: %s (%s))", ms(a.PerQuestion(s.Any)), ms(s.Any))
			}
			return fmt.Sprintf("%s (%s)", ms(a.PerQuestion(s.Median)), ms(s.Median))
		}
		met := mark(a.Met())
		if a.Met() && a.Reference() == 0 {
			met = "n/a"
		}
		numbers, numbersWrong := "", ""
		if a.Numbers.Runs > 0 {
			numbers = "; oracle at form by numbers: " + side(a.Numbers)
			numbersWrong = fmt.Sprintf("; at form by numbers: %d / %d", a.Numbers.Wrong, a.Numbers.Runs)
		}
		fmt.Fprintf(&b, "| answer latency, %s (%d q), Claude Code %s: median per question (per form) | %s | oracle at PreToolUse: %s; oracle at form on screen: %s%s | %s | ≤ 1.2× | %s |\n",
			a.Scenario, a.Questions, a.Version, side(a.Wrap), side(a.Oracle), side(a.Gated), numbers, res, met)
		fmt.Fprintf(&b, "| wrong answers, %s, Claude Code %s | %d / %d | oracle at PreToolUse: %d / %d; at form on screen: %d / %d%s | | claudewrap 0 | %s |\n",
			a.Scenario, a.Version, a.Wrap.Wrong, a.Wrap.Runs, a.Oracle.Wrong, a.Oracle.Runs, a.Gated.Wrong, a.Gated.Runs, numbersWrong, mark(a.Wrap.Wrong == 0))
		if a.Hook.Runs > 0 {
			hres := "no oracle ever answered right: nothing to compare"
			if a.Reference() > 0 {
				hres = fmt.Sprintf("%.2f× the fastest oracle's right answers", a.HookRatio())
			}
			hmet := mark(a.Hook.Wrong == 0 && (a.Reference() == 0 || a.HookRatio() <= 1.2))
			if a.Hook.Wrong == 0 && a.Reference() == 0 {
				hmet = "n/a"
			}
			fmt.Fprintf(&b, "| answer latency with --answer-via hook, %s (%d q), Claude Code %s: median per question (per form); wrong | %s; %d / %d wrong | the oracles above | %s | ≤ 1.2× | %s |\n",
				a.Scenario, a.Questions, a.Version, side(a.Hook), a.Hook.Wrong, a.Hook.Runs, hres, hmet)
		}
	}
	if in := r.Inbox; in != nil {
		what := fmt.Sprintf("%d forms waiting in %d sessions of the fake Claude, answered one after the other by one answerer", in.Forms, in.Sessions)
		for _, p := range []struct {
			name       string
			inbox, loc time.Duration
		}{{"p50", in.Inbox.P50, in.Local.P50}, {"p99", in.Inbox.P99, in.Local.P99}} {
			fmt.Fprintf(&b, "| answer to the first key written, %s, %s | %s (inbox, %d-node cluster) | %s (local socket) | %+.3f ms | (reported) | |\n",
				p.name, what, ms(p.inbox), in.Nodes, ms(p.loc), float64(p.inbox-p.loc)/float64(time.Millisecond))
		}
		fmt.Fprintf(&b, "| claudewrap's CPU per session (%d forms held and answered), median (most) | %s (%s) (inbox) | %s (%s) (local socket) | ×%.2f | (reported) | |\n",
			in.Forms/max(in.Sessions, 1), ms(in.Inbox.CPU), ms(in.Inbox.CPUMax), ms(in.Local.CPU), ms(in.Local.CPUMax),
			float64(in.Inbox.CPU)/float64(max(in.Local.CPU, 1)))
		fmt.Fprintf(&b, "| forms verified, %s | %d / %d (inbox) | %d / %d (local socket) | | all | %s |\n",
			what, in.Inbox.Verified, in.Forms, in.Local.Verified, in.Forms, mark(in.Inbox.Verified == in.Forms && in.Local.Verified == in.Forms))
	}
	if s := r.Scale; s != nil {
		what := fmt.Sprintf("%d concurrent headless runs (three.yaml, Claude Code %s)", s.Runs, s.Version)
		parts := fmt.Sprintf("run processes %s", secs(s.RunCPU))
		if s.Counted {
			parts += fmt.Sprintf(", supervisors %s, %d hooks %s", secs(s.SupervisorCPU), s.Hooks, secs(s.HookCPU))
		} else {
			parts += "; supervisors and hooks not counted"
		}
		fmt.Fprintf(&b, "| claudewrap's share of the CPU, %s: of all the CPU the runs used | %.1f %% (%s of %s) | %.1f %% of the machine (%s wall × %d CPUs) | %s | ≤ 3 %% | %s |\n",
			what, 100*s.Share(), secs(s.Claudewrap()), secs(s.Total), 100*s.MachineShare(), secs(s.Wall), s.CPUs, parts, mark(s.Share() <= 0.03))
		fmt.Fprintf(&b, "| runs verified, %s; the slowest run's wall time | %d / %d | | slowest %s | all | %s |\n",
			what, s.Verified, s.Runs, secs(s.Slowest), mark(s.Verified == s.Runs))
	}
	for _, s := range r.Soak {
		first, last, most := s.RSS()
		f, l, ok := s.Growth()
		growth := "too short to compare"
		if ok {
			warmup, window := s.Window()
			growth = fmt.Sprintf("mean %s in the first %s after %s warm-up, %s in the last %s (%+.1f%%)",
				mib(int64(f)), window, warmup, mib(int64(l)), window, 100*(l-f)/f)
		}
		fmt.Fprintf(&b, "| claudewrap RSS over %s (headless, Claude Code %s, %d samples) | first %s, last %s, max %s | | %s | no growth | %s |\n",
			s.Duration, s.Version, len(s.Samples), mib(first), mib(last), mib(most), growth, mark(ok && !s.Grew()))
		end := orUnknown(s.Exited)
		if s.Stalled != "" {
			end = "**stalled**: " + s.Stalled + "; " + end
		}
		fmt.Fprintf(&b, "| forms in that session (Claude Code %s): asked / verified / wrong | %d / %d / %d | | %s | 0 wrong, no stall | %s |\n",
			s.Version, s.Forms, s.Verified, s.Wrong, end, mark(s.Wrong == 0 && s.Stalled == ""))
	}
	for _, s := range r.Soak {
		if len(s.Errors) > 0 {
			fmt.Fprintf(&b, "\nclaudewrap's errors in the soak on Claude Code %s:\n", s.Version)
			for _, e := range s.Errors {
				fmt.Fprintf(&b, "- `%s`\n", e)
			}
		}
	}
	b.WriteString("\n")
	if r.Met() {
		b.WriteString("Every target measured above is met.\n")
	} else {
		b.WriteString("Not every target is met; see below.\n")
	}
	for _, n := range r.Notes {
		b.WriteString("\n" + n + "\n")
	}
	var titles []string
	for t := range r.Profiles {
		titles = append(titles, t)
	}
	sort.Strings(titles)
	for _, t := range titles {
		fmt.Fprintf(&b, "\n### %s\n\n```\n%s\n```\n", t, strings.TrimRight(r.Profiles[t], "\n"))
	}
	return b.String()
}

// keptFrom starts the part of BENCH.md that make bench does not measure:
// the random forms and dialogs of make stress, written from its report.
const keptFrom = "\n## Random forms"

// WithKept is md, a new BENCH.md, followed by the part of old, the file as
// it was, from keptFrom on, so that a run of make bench keeps it.
func WithKept(md, old string) string {
	i := strings.Index(old, keptFrom)
	if i < 0 {
		return md
	}
	return strings.TrimRight(md, "\n") + "\n" + old[i:]
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
