//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/screen"
)

const (
	streamCols, streamRows = 120, 40
	// streamLimit bounds one 200 MB run; at 2 MB/s it would still end.
	streamLimit = 5 * time.Minute
)

// measureThroughput runs the stream child straight on a PTY, under
// script(1) (a relay through a second PTY, as claudewrap is, with no
// emulator: what a user's session recorder costs) and through `claudewrap
// run` in passthrough, in turn, runs times each; in each run, the same
// three also with script(1) as the person's terminal: the PTY read by a C
// program, as a terminal emulator reads it, rather than by this Go process.
func measureThroughput(t *testing.T, claudewrap string, total int64, runs int) *Throughput {
	child := benchchild(t)
	n := strconv.FormatInt(total, 10)
	cols := strconv.Itoa(streamCols)
	script, scriptErr := exec.LookPath("script")
	var direct, relayed, wrapped, termDirect, termWrapped, termRelayed []float64
	for i := range runs {
		dir, env := quietEnv(t)
		d := streamOnce(t, total, dir, env, child, "stream", n, cols)
		w := streamOnce(t, total, dir, env, claudewrap, "run", "--claude", child, "--", "stream", n, cols)
		direct = append(direct, float64(total)/d.Seconds()/1e6)
		wrapped = append(wrapped, float64(total)/w.Seconds()/1e6)
		line := fmt.Sprintf("throughput run %d: bare PTY %.1f MB/s (%s), claudewrap %.1f MB/s (%s)", i+1,
			direct[i], d.Round(time.Millisecond), wrapped[i], w.Round(time.Millisecond))
		if scriptErr == nil {
			r := streamOnce(t, total, dir, env, script, "-qfec", child+" stream "+n+" "+cols, "/dev/null")
			relayed = append(relayed, float64(total)/r.Seconds()/1e6)
			line += fmt.Sprintf(", script(1) %.1f MB/s (%s)", relayed[i], r.Round(time.Millisecond))
		}
		if scriptErr == nil {
			inner := child + " stream " + n + " " + cols
			d := underScript(t, total, dir, env, script, inner)
			w := underScript(t, total, dir, env, script, claudewrap+" run --claude "+child+" -- stream "+n+" "+cols)
			r := underScript(t, total, dir, env, script, script+" -qfec '"+inner+"' /dev/null")
			termDirect = append(termDirect, float64(total)/d.Seconds()/1e6)
			termWrapped = append(termWrapped, float64(total)/w.Seconds()/1e6)
			termRelayed = append(termRelayed, float64(total)/r.Seconds()/1e6)
			line += fmt.Sprintf("; script(1) as the terminal: bare %.1f MB/s (%s), claudewrap %.1f MB/s (%s), script(1) %.1f MB/s (%s)",
				termDirect[i], d.Round(time.Millisecond), termWrapped[i], w.Round(time.Millisecond), termRelayed[i], r.Round(time.Millisecond))
		}
		t.Log(line)
	}
	tp := &Throughput{Bytes: total, Direct: MedianFloat(direct), Wrapped: MedianFloat(wrapped), Runs: runs}
	if scriptErr == nil {
		tp.Script = MedianFloat(relayed)
		tp.TermDirect, tp.TermWrapped, tp.TermScript = MedianFloat(termDirect), MedianFloat(termWrapped), MedianFloat(termRelayed)
	} else {
		t.Logf("throughput: no script(1) to compare with: %v", scriptErr)
	}
	return tp
}

// streamOnce runs one stream of want bytes on a terminal and times it
// from start to EOF.
func streamOnce(t *testing.T, want int64, dir string, env []string, name string, args ...string) time.Duration {
	t.Helper()
	tm := startOnTerminal(t, streamCols, streamRows, dir, env, name, args...)
	n, end, err := tm.drain(streamLimit)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(name), err)
	}
	if err := tm.wait(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if tm.cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("%s %v exited %d", filepath.Base(name), args, tm.cmd.ProcessState.ExitCode())
	}
	if n < want {
		t.Fatalf("%s: read %d bytes, want at least %d", filepath.Base(name), n, want)
	}
	return end.Sub(tm.start)
}

// underScript runs inner (a shell command) under script(1) standing for
// the person's terminal: script's stdin is a PTY of the stream's size
// (script sizes inner's PTY from it and puts it in raw mode), its own
// output goes to a pipe that this process counts in 64 KB reads. It times
// script, inner in it, from start to the pipe's EOF.
func underScript(t *testing.T, want int64, dir string, env []string, script, inner string) time.Duration {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(tty, &pty.Winsize{Cols: streamCols, Rows: streamRows}); err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	cmd := exec.Command(script, "-qfec", inner, "/dev/null")
	// script runs inner with $SHELL -c: the same shell whoever runs this.
	cmd.Dir, cmd.Env = dir, append(env[:len(env):len(env)], "SHELL=/bin/sh")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGTERM}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	pw.Close()
	timer := time.AfterFunc(streamLimit, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	var n int64
	buf := make([]byte, 64<<10)
	for {
		k, err := pr.Read(buf)
		n += int64(k)
		if err != nil {
			break
		}
	}
	end := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("script -qfec %q: %v (%d bytes read)", inner, err, n)
	}
	if n < want {
		t.Fatalf("script -qfec %q: read %d bytes, want at least %d", inner, n, want)
	}
	return end.Sub(start)
}

// measureEmulator feeds the same stream to screen.New in 32 KB chunks, as
// ptyhost's Go relay reads them (with the relay thread, the emulator gets
// the queue's 64 KB buffers).
func measureEmulator(t *testing.T) *Emulator {
	stream := StreamBytes(streamCols, 1, 8<<20)
	res := testing.Benchmark(func(b *testing.B) {
		em := screen.New(screen.Options{Cols: streamCols, Rows: streamRows})
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		for b.Loop() {
			for p := stream; len(p) > 0; {
				k := min(len(p), 32<<10)
				em.Write(p[:k])
				p = p[k:]
			}
		}
	})
	kb := float64(len(stream)) / 1024
	e := &Emulator{
		MBps:        float64(res.Bytes) * float64(res.N) / res.T.Seconds() / 1e6,
		AllocsPerKB: float64(res.AllocsPerOp()) / kb,
		BytesPerKB:  float64(res.AllocedBytesPerOp()) / kb,
	}
	t.Logf("emulator: %s %s", res, res.MemString())
	return e
}

// profilePassthrough runs the same passthrough in this process (ptyhost on
// a PTY standing for the terminal, which is what `claudewrap run` does)
// under the CPU profiler, and returns pprof's top functions.
func profilePassthrough(t *testing.T, total int64) string {
	child := benchchild(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	pty.Setsize(tty, &pty.Winsize{Cols: streamCols, Rows: streamRows})
	prof := filepath.Join(t.TempDir(), "passthrough.pprof")
	f, err := os.Create(prof)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	h, err := ptyhost.Start(ptyhost.Config{Path: child, Args: []string{"stream", strconv.FormatInt(total, 10), strconv.Itoa(streamCols)},
		Stdin: tty, Stdout: tty, Screen: screen.NewFunc("")})
	if err != nil {
		pprof.StopCPUProfile()
		t.Fatal(err)
	}
	tty.Close()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		buf := make([]byte, 32<<10)
		for {
			if _, err := ptmx.Read(buf); err != nil {
				return
			}
		}
	}()
	select {
	case <-h.Done():
	case <-time.After(streamLimit):
		h.Signal(os.Kill)
		<-h.Done()
	}
	pprof.StopCPUProfile()
	f.Close()
	ptmx.Close()
	<-drained
	return pprofTop(t, prof)
}

func pprofTop(t *testing.T, prof string) string {
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=30", prof).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("go tool pprof failed: %v\n%s", err, out)
	}
	return string(out)
}
