//go:build bench

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// TestBench measures everything side by side, prints the table and writes
// it to $BENCH_OUT (default BENCH.md at the repository root).
//
//	BENCH_ONLY         comma-separated sections: throughput, emulator, keys, answers, inbox, scale, soak (default all)
//	BENCH_BYTES        passthrough stream size (default 200000000)
//	BENCH_RUNS         passthrough runs each way, median taken (default 3)
//	BENCH_KEYS         keystroke round trips (default 2000)
//	BENCH_ANSWER_RUNS  runs per form, version and side (default 10)
//	BENCH_INBOX_SESSIONS, BENCH_INBOX_FORMS  sessions of the fake Claude and forms each holds, answered through the inbox and the local socket (default 50 and 4)
//	BENCH_SCALE_RUNS, BENCH_SCALE_VERSION  headless runs at once on the real Claude Code, and its version (default 16 and 2.1.332)
//	BENCH_SOAK         soak duration (default 30m; 0 skips it)
//	BENCH_SOAK_VERSIONS Claude Code versions to soak, one after the other (default the e2e suite's, claudetest.Versions: $CLAUDEWRAP_E2E_VERSIONS, else its two defaults)
//	BENCH_PROFILE      1: profile passthrough and the soak's heap even when their targets are met
//	BENCH_SOAK_PROFILE how long the in-process heap profile of a growing soak runs (default 5m)
func TestBench(t *testing.T) {
	root := claudetest.Root(t)
	versions := claudetest.Versions()
	r := &Results{Machine: DescribeMachine(versions), Profiles: map[string]string{}}
	claudewrap := claudetest.Claudewrap(t)
	benchchild(t)

	out := os.Getenv("BENCH_OUT")
	if out == "" {
		out = filepath.Join(root, "BENCH.md")
	}
	// The table is written after every section, so a run killed from
	// outside leaves what it measured; the random forms' figures, which
	// make stress gives, are kept as they were.
	old, _ := os.ReadFile(out)
	save := func(final bool) string {
		rr := *r
		rr.Notes = append(methodNotes(), r.Notes...)
		if !final {
			rr.Notes = append([]string{"**Partial: the run was still going when this was written.**"}, rr.Notes...)
		}
		md := WithKept(rr.Markdown(), string(old))
		if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		return md
	}

	if wanted("throughput") {
		total := int64(envInt("BENCH_BYTES", 200_000_000))
		r.Throughput = measureThroughput(t, claudewrap, total, envInt("BENCH_RUNS", 3))
		if !r.Throughput.Met() || os.Getenv("BENCH_PROFILE") == "1" {
			r.Profiles["passthrough CPU profile (ptyhost in the benchmark process, same stream; go tool pprof -top)"] =
				profilePassthrough(t, total)
		}
		save(false)
	}
	if wanted("emulator") {
		r.Emulator = measureEmulator(t)
		save(false)
	}
	if wanted("keys") {
		r.Keys = measureKeys(t, claudewrap, envInt("BENCH_KEYS", 2000))
		save(false)
	}
	if wanted("answers") {
		r.Answers = measureAnswers(t, versions, envInt("BENCH_ANSWER_RUNS", 10), &r.Notes)
		save(false)
	}
	if wanted("inbox") {
		r.Inbox = measureInbox(t, claudewrap, envInt("BENCH_INBOX_SESSIONS", 50), envInt("BENCH_INBOX_FORMS", 4))
		save(false)
	}
	if wanted("scale") {
		v := os.Getenv("BENCH_SCALE_VERSION")
		if v == "" {
			v = "2.1.332"
		}
		r.Scale = measureScale(t, claudewrap, v, envInt("BENCH_SCALE_RUNS", 16))
		save(false)
	}
	if d := envDuration("BENCH_SOAK", 30*time.Minute); d > 0 && wanted("soak") {
		vs := strings.Fields(os.Getenv("BENCH_SOAK_VERSIONS"))
		if len(vs) == 0 {
			vs = versions
		}
		prof := envDuration("BENCH_SOAK_PROFILE", 5*time.Minute)
		for i, v := range vs {
			dv := d
			if deadline, ok := t.Deadline(); ok {
				// Leave room for the heap profile and the write-up.
				left := time.Until(deadline) - prof - 2*time.Minute
				if share := left / time.Duration(len(vs)-i); share < dv {
					dv = max(share, time.Minute)
					t.Logf("soak on %s shortened to %s to end before go test's -timeout", v, dv)
				}
			}
			sk := measureSoak(t, claudewrap, v, dv, 10*time.Second)
			r.Soak = append(r.Soak, sk)
			save(false)
			if sk.Grew() || os.Getenv("BENCH_PROFILE") == "1" {
				r.Profiles["soak heap growth, Claude Code "+v+" (go tool pprof -top -sample_index=inuse_space -diff_base)"] =
					profileSoakHeap(t, v, prof)
				save(false)
			}
		}
	}

	md := save(true)
	fmt.Print("\n" + md)
	fmt.Printf("\nwritten to %s\n", out)
}

func methodNotes() []string {
	return []string{
		"How each figure is taken (bench/*_test.go):",
		"- Passthrough: bench/benchchild writes the stream (`bench.Stream`: synchronized-update frames, 256-colour and truecolour SGR, " +
			"cursor moves and column jumps, erase-line, OSC titles, CJK and emoji, whole forms; in 16 KB writes) on a PTY of 120x40; " +
			"the benchmark reads the PTY master to EOF. Bare: the child is on that PTY itself. claudewrap: the built binary runs " +
			"`claudewrap run --claude benchchild` on that PTY (stdin and stdout a terminal: passthrough) with the child on its own inner PTY. " +
			"script(1): `script -qfec 'benchchild stream …' /dev/null` on that PTY, the child on script's own PTY: the same relay through a " +
			"second PTY as claudewrap's, with no emulator, as a user's session recorder would run it. " +
			"MB/s is the stream size over the time from start to EOF; runs alternate. " +
			"The same three again with script(1) as the person's terminal (a C program reading the PTY, as a terminal emulator does, " +
			"rather than this Go process): `script -qfec CMD /dev/null` with its stdin a PTY of 120x40 and its output a pipe the benchmark " +
			"counts; CMD is the child, `claudewrap run --claude benchchild …`, or the child under a second `script -qfec`.",
		"- Emulator: `testing.Benchmark` feeding the same stream to `screen.New` (120x40) in 32 KB writes, as ptyhost's read loop does.",
		"- Keystrokes: bench/benchchild in raw mode echoes every byte; one byte is written to the terminal's master and the echo awaited, " +
			"100 warm-up round trips then N measured; bare PTY vs through `claudewrap run` in passthrough.",
		"- Answer latency: the real Claude Code, offline against fakeapi, headless at 100x40. Both sides get the same hooks through a " +
			"shim (bench/benchchild hook) that notes when Claude Code ran each hook before forwarding it; latency is PostToolUse minus " +
			"PreToolUse as the shim saw them, so hook start-up costs both sides alike. claudewrap: `session.Run` in the benchmark with rules " +
			"(database.yaml: the 3rd option, MongoDB; three.yaml: MongoDB, Auth + API, snake_case). Oracle: its own loop (hook.Listen, " +
			"hook.Settings, ptyhost.Start) that writes the whole precomputed key sequence in one write when PreToolUse arrives and looks at " +
			"nothing. A run is wrong when the tool_result Claude recorded is not the intended answer or none came within 10 s of PreToolUse " +
			"(claudewrap's also when it reported a mismatch or error). Medians are over the right answers (the oracles' wrong answers are shown apart). A second oracle, a fairer floor, writes the same single write as soon as the emulated screen (polled every 1 ms) shows the first question and the footer; a third writes, at the same moment, the options' numbers instead (database.yaml: 3; three.yaml: 3, 1, 4, Tab, 2, Enter), since claudewrap presses them too (Claude was not seen to record three.yaml from that one write); the target compares claudewrap with the fastest of the three; when no oracle ever answered right there is nothing to compare (n/a). " +
			"Runs alternate claudewrap and the oracles.",
		"- Inbox: the claudewrap binary headless (`run --on-unmatched wait --idle-timeout 0`) in each session on the fake Claude " +
			"(bench/benchchild forms: the PreToolUse hooks of its forms of one question, then each drawn in turn as fakeclaude draws Claude Code " +
			"2.1.330's, its PostToolUse once answered), all started at once; once every form waits, this process answers them one after " +
			"the other, the first of every session, then the second of every session, and so on (SQLite, verified), each " +
			"at least 1.2 s after the answer before it in its session (askflow takes no key for 200 ms on a form whose drive starts within " +
			"a second of the key that closed the one before) and 1.5 s after the last form was asked (no committing key within a second of " +
			"a form asked alongside), first through each session's local socket (remote.Answer), then " +
			"with the sessions started anew with `--inbox` on a three-node JetStream cluster in this process (natstest; `--machine` m0 to m4) " +
			"through the inbox (inbox.Conn.Answer: the form read, the claim, the run taking it). Latency is from the answer's start to the " +
			"first key the fake Claude read for that form (its note, same clock). CPU is utime+stime of each claudewrap process from " +
			"/proc/PID/stat (its children left out: the fake Claude and its hooks) once its last form is verified, the runs still going.",
		"- Scale: N runs of the claudewrap binary started at once, each `run --headless --size 100x40 --rules … --on-unmatched fail " +
			"--events … --exit-after-turn -- \"plan the project\"` on the real Claude Code in its own sandbox against fakeapi, with " +
			"three.yaml's rules (MongoDB, Auth + API, snake_case); a run is verified when it exits 0 with exactly one verified event and " +
			"the tool_result Claude recorded holds the intended answers. All the CPU the runs used: each run's rusage once reaped " +
			"(its own and every descendant's it waited for: the supervisor, Claude, the hooks and whatever else Claude ran). " +
			"claudewrap's: each run process's utime+stime from /proc/PID/stat while it is a zombie (waitid WNOWAIT: exited, times " +
			"final, not yet reaped), plus its supervisor and every `claudewrap hook` process Claude ran in the run's tree, from the " +
			"kernel's exit records (taskstats, one per thread, with its parent; per-thread times are the scheduler tick's " +
			"samples). The target applies to claudewrap's share of all the CPU the runs used; the machine's share divides by " +
			"the wall time from the first start to the last exit times the CPUs. Wall time is from the common start to each run's exit.",
		"- Soak: the claudewrap binary headless (`run --headless --rules … --events …`) on testdata/scenarios/bench-soak.yaml, where every " +
			"answer brings a new form; VmRSS of the claudewrap process from /proc every 10 s. Growth compares the mean of the last window " +
			"with the first window after warm-up; it counts as growth above 5% and 1 MiB. Wrong counts the forms with a mismatch, error or " +
			"cancelled event or a recorded tool_result other than the intended answer. A headless run has nobody to type: when claudewrap " +
			"cancels a form, Claude's turn ends and no form follows; after 60 s without a new form the soak stops and says it stalled.",
	}
}
