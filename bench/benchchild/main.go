// Command benchchild is the program the benchmarks run in place of Claude
// Code, or as its hook command:
//
//	benchchild [--settings JSON] stream BYTES COLS   write BYTES of TUI-like output (bench.Stream), then exit
//	benchchild [--settings JSON] echo                raw mode; echo every byte read; exit on Q
//	benchchild hook --socket PATH                    note the hook's arrival in $BENCH_HOOK_LOG, then forward it
//	benchchild --settings FILE forms N               ask N forms at once, as Claude Code would (see forms)
//
// claudewrap puts --settings before Claude's own arguments; it is skipped.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/term"

	"github.com/claudewrap/claudewrap/bench"
	"github.com/claudewrap/claudewrap/hook"
)

func main() {
	args := os.Args[1:]
	settings := ""
	if len(args) >= 2 && args[0] == "--settings" {
		settings, args = args[1], args[2:]
	}
	if len(args) == 0 {
		fail("usage: benchchild stream BYTES COLS | echo | hook --socket PATH")
	}
	switch args[0] {
	case "stream":
		if len(args) != 3 {
			fail("usage: benchchild stream BYTES COLS")
		}
		n, err1 := strconv.ParseInt(args[1], 10, 64)
		cols, err2 := strconv.Atoi(args[2])
		if err1 != nil || err2 != nil {
			fail("stream: bad BYTES or COLS")
		}
		stream(n, cols)
	case "echo":
		echo()
	case "hook":
		var wait time.Duration
		if len(args) == 5 && args[3] == "--wait" {
			d, err := time.ParseDuration(args[4])
			if err != nil {
				fail("hook: bad --wait")
			}
			wait, args = d, args[:3]
		}
		if len(args) != 3 || args[1] != "--socket" {
			fail("usage: benchchild hook --socket PATH [--wait D]")
		}
		hookShim(args[2], wait)
	case "forms":
		n, err := strconv.Atoi(args[len(args)-1])
		if len(args) != 2 || err != nil || n < 1 || settings == "" {
			fail("usage: benchchild --settings FILE forms N")
		}
		forms(settings, n)
	default:
		fail("unknown mode " + args[0])
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "benchchild:", msg)
	os.Exit(2)
}

// chunk is how much output goes into one write: frames are batched so the
// child is not the bottleneck (Claude Code writes one frame per write, far
// slower than this).
const chunk = 16 << 10

func stream(n int64, cols int) {
	frames := bench.Stream(cols, 1)
	buf := make([]byte, 0, chunk+8<<10)
	var written int64
	for written < n {
		for _, f := range frames {
			buf = append(buf, f...)
			if len(buf) >= chunk {
				if _, err := os.Stdout.Write(buf); err != nil {
					os.Exit(1)
				}
				written += int64(len(buf))
				buf = buf[:0]
				if written >= n {
					break
				}
			}
		}
	}
	// Leave the terminal as Claude would: attributes reset, cursor shown.
	os.Stdout.WriteString("\x1b[0m\x1b[?25h\r\n")
}

func echo() {
	st, err := term.MakeRaw(0)
	if err != nil {
		fail("echo: raw mode: " + err.Error())
	}
	defer term.Restore(0, st)
	os.Stdout.WriteString("ready\r\n")
	buf := make([]byte, 256)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			if i := bytes.IndexByte(buf[:n], 'Q'); i >= 0 {
				return
			}
			if _, werr := os.Stdout.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// hookShim notes when Claude Code ran the hook, then does what `claudewrap
// hook` does. The note is one JSON line: unix nanoseconds, event, tool_use_id.
func hookShim(socket string, wait time.Duration) {
	b, _ := io.ReadAll(io.LimitReader(os.Stdin, hook.MaxMessage+1))
	now := time.Now()
	if path := os.Getenv("BENCH_HOOK_LOG"); path != "" {
		var p struct {
			Event string `json:"hook_event_name"`
			ID    string `json:"tool_use_id"`
		}
		_ = json.Unmarshal(b, &p)
		line, _ := json.Marshal(map[string]any{"t": now.UnixNano(), "event": p.Event, "id": p.ID})
		if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			f.Write(append(line, '\n'))
			f.Close()
		}
	}
	_ = hook.ForwardWaiting(bytes.NewReader(b), socket, os.Stdout, wait)
}
