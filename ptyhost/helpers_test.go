package ptyhost

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/vt"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// TestMain turns the test binary into a helper child when asked to, so tests
// run real processes in a real PTY without outside programs.
func TestMain(m *testing.M) {
	if mode := os.Getenv("PTYHOST_HELPER"); mode != "" {
		os.Exit(helperChild(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// burstSize is the size of the "burst" helper's output.
const burstSize = 10 << 20

// burst is the "burst" helper's output, burstSize bytes: numbered lines
// (so that a run of them shows where in the burst it was cut) of ASCII
// and multi-byte characters whose bytes the writes below split at odd
// places.
func burst() []byte {
	var b []byte
	for i := 0; len(b) < burstSize; i++ {
		b = fmt.Appendf(b, "line %07d ✔ 数据库 🚀 \x1b[31mred\x1b[0m end\r\n", i)
	}
	return b[:burstSize]
}

func helperChild(mode string, args []string) int {
	// Raw mode, so the child's PTY passes bytes through unchanged.
	if st, err := term.MakeRaw(0); err == nil {
		defer term.Restore(0, st)
	}
	switch mode {
	case "term":
		fmt.Printf("TERM=%s NO_COLOR=%s FORCE_COLOR=%s", os.Getenv("TERM"), os.Getenv("NO_COLOR"), os.Getenv("FORCE_COLOR"))
		return 0
	case "burst":
		// Writes of odd sizes split multi-byte characters and escape
		// sequences across writes: 7 bytes at first, then 4093.
		all := burst()
		for i := 0; i < len(all); {
			n := 4093
			if i < 64<<10 {
				n = 7
			}
			end := min(i+n, len(all))
			if _, err := os.Stdout.Write(all[i:end]); err != nil {
				return 1
			}
			i = end
		}
		return 0
	case "alt":
		// Draws on the alternate screen, as Claude Code's fullscreen
		// renderer does; then "leave" leaves it and exits, "kill" dies
		// there.
		fmt.Print("\x1b[?1049hfullscreen\r\n")
		if args[0] == "leave" {
			fmt.Print("\x1b[?1049l")
			return 0
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case "altburst":
		// The burst with a switch to the alternate screen deep inside it,
		// then death there.
		all := burst()
		at := 8<<20 + bytes.Index(all[8<<20:], []byte("\r\n")) + 2
		all = slices.Concat(all[:at], []byte("\x1b[?1049h"), all[at:])
		for i := 0; i < len(all); i += 64 << 10 {
			if _, err := os.Stdout.Write(all[i:min(i+64<<10, len(all))]); err != nil {
				return 1
			}
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case "setdie":
		// Sets the modes args[0] holds, and dies with them set.
		fmt.Print("modes\r\n" + args[0])
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case "exit":
		n, _ := strconv.Atoi(args[0])
		fmt.Print("bye\r\n")
		return n
	case "signal":
		n, _ := strconv.Atoi(args[0])
		fmt.Print("dying\r\n")
		syscall.Kill(os.Getpid(), syscall.Signal(n))
		select {}
	case "echo", "slowecho":
		// Prints each line read, and the size on SIGWINCH (slowecho:
		// 150 ms after it, as a busy program redraws late).
		winch := make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		slow := mode == "slowecho"
		go func() {
			for range winch {
				if slow {
					time.Sleep(150 * time.Millisecond) // the late redraw this mode is for
				}
				r, c, _ := pty.Getsize(os.Stdin)
				fmt.Printf("size %dx%d\r\n", c, r)
			}
		}()
		fmt.Print("ready\r\n")
		rd := bufio.NewReader(os.Stdin)
		for {
			line, err := rd.ReadString('\r')
			if err != nil {
				return 0
			}
			line = strings.TrimSuffix(line, "\r")
			if line == "quit" {
				return 0
			}
			fmt.Printf("got %q\r\n", line)
		}
	case "da1":
		// Asks like Claude does and waits for the reply.
		os.Stdout.WriteString("\x1b[c")
		rd := bufio.NewReader(os.Stdin)
		got := make(chan string, 1)
		go func() {
			s, _ := rd.ReadString('c')
			got <- s
		}()
		select {
		case s := <-got:
			fmt.Printf("DA1 %q\r\n", s)
			return 0
		case <-time.After(5 * time.Second):
			fmt.Print("no DA1 reply\r\n")
			return 1
		}
	case "sleep":
		fmt.Print("sleeping\r\n")
		select {}
	case "orphan":
		// Leaves a grandchild that ignores SIGHUP holding the PTY, and exits.
		pid, err := startHolder(false)
		if err != nil {
			return 1
		}
		fmt.Printf("orphaned %d\r\n", pid)
		return 0
	case "daemon":
		// Leaves a daemon as `nohup setsid sleep 1000 &` would; then exits
		// ("exit") or stays ("stay").
		pid, err := startHolder(true)
		if err != nil {
			return 1
		}
		fmt.Printf("daemon %d of %d\r\n", pid, os.Getpid())
		if args[0] == "exit" {
			return 0
		}
		select {}
	case "hold":
		// The grandchild: the hang-up does not end it.
		signal.Ignore(syscall.SIGHUP)
		ready := os.NewFile(3, "ready")
		ready.WriteString("ready\n")
		ready.Close()
		time.Sleep(30 * time.Second)
		return 0
	case "host":
		// A claudewrap: runs "daemon stay" headless, says the processes'
		// ids on stdout, and waits to be killed.
		self, _ := os.Executable()
		h, err := Start(Config{Path: self, Args: []string{"stay"}, Env: append(os.Environ(), "PTYHOST_HELPER=daemon"), Headless: true})
		if err != nil {
			fmt.Println(err)
			return 1
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		snap, err := h.Screen().Wait(ctx, func(s vt.Snapshot) bool { return strings.Contains(s.Text(), "daemon") })
		if err != nil {
			fmt.Println(err)
			return 1
		}
		var daemon, child int
		text := snap.Text()
		fmt.Sscanf(text[strings.Index(text, "daemon"):], "daemon %d of %d", &daemon, &child)
		fmt.Printf("daemon %d child %d wrapper %d\n", daemon, child, h.child.cmd.Process.Pid)
		h.Wait()
		return 0
	case "burstredraw":
		// The burst, then, on every size change, the whole screen drawn
		// again from the top-left corner, as Claude Code does.
		winch := make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		all := burst()
		for i := 0; i < len(all); i += 64 << 10 {
			if _, err := os.Stdout.Write(all[i:min(i+64<<10, len(all))]); err != nil {
				return 1
			}
		}
		for {
			select {
			case <-winch:
				ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
				if err != nil {
					return 1
				}
				fmt.Printf("\x1b[H\x1b[2Jredrawn at %dx%d", ws.Col, ws.Row)
			case <-time.After(20 * time.Second):
				return 0
			}
		}
	case "flood":
		// Asks for the cursor position over and over and never reads the
		// replies.
		q := []byte(strings.Repeat("\x1b[6n", 4096))
		for range 500 {
			if _, err := os.Stdout.Write(q); err != nil {
				return 1
			}
		}
		fmt.Print("flooded\r\n")
		return 0
	}
	return 2
}

// startHolder starts the helper "hold" as a grandchild, on the child's
// terminal or (detach) as `nohup setsid` leaves one, in a session of its
// own with no terminal, and waits until it ignores the hang-up.
func startHolder(detach bool) (pid int, err error) {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "PTYHOST_HELPER=hold")
	if detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	cmd.ExtraFiles = []*os.File{w} // fd 3: says when the hang-up is ignored
	err = cmd.Start()
	w.Close()
	if err != nil {
		return 0, err
	}
	bufio.NewReader(r).ReadString('\n') // exiting before then would hang it up
	return cmd.Process.Pid, nil
}

// helperConfig returns a config that runs the test binary as a helper.
func helperConfig(t *testing.T, mode string, args ...string) Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Path:     exe,
		Args:     args,
		Env:      append(os.Environ(), "PTYHOST_HELPER="+mode),
		Headless: true,
		Cols:     80,
		Rows:     24,
	}
}

// startHost starts a host and makes sure the child is gone when the test ends.
func startHost(t *testing.T, cfg Config) *Host {
	t.Helper()
	h, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = h.Signal(syscall.SIGKILL)
		<-h.Done()
	})
	return h
}

// waitScreen waits until the screen holds want, failing with the last screen.
func waitScreen(t *testing.T, em vt.Emulator, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := em.Wait(ctx, func(s vt.Snapshot) bool { return strings.Contains(s.Text(), want) }); err != nil {
		t.Fatalf("waiting for %q: %v", want, err)
	}
}

// waitDone waits for the host to end, with a deadline.
func waitDone(t *testing.T, h *Host) Status {
	t.Helper()
	return waitDoneWithin(t, h, 10*time.Second)
}

// waitDoneWithin is waitDone for a child that may take up to d.
func waitDoneWithin(t *testing.T, h *Host, d time.Duration) Status {
	t.Helper()
	select {
	case <-h.Done():
	case <-time.After(d):
		t.Fatalf("child did not exit; screen:\n%s", h.Screen().Snapshot().Text())
	}
	st, err := h.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return st
}
