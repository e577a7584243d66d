package stress

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

// childEnv makes the test binary the process on a test's terminal (see
// terminalChild); its value is the size the child waits for.
const childEnv = "STRESS_TERMINAL_CHILD"

func TestMain(m *testing.M) {
	if want := os.Getenv(childEnv); want != "" {
		terminalChild(want)
		return
	}
	os.Exit(m.Run())
}

// terminalChild stands in for claudewrap on the terminal: it asks the
// terminal for its device attributes (DA1) and prints the reply, prints
// the terminal's size on every SIGWINCH and what it reads after the reply
// (the person's keys), and exits once the size is want (status 3 if it
// never is within 10 s).
func terminalChild(want string) {
	winch := make(chan os.Signal, 8)
	signal.Notify(winch, syscall.SIGWINCH)
	if _, err := term.MakeRaw(0); err != nil {
		fmt.Printf("raw: %v\r\n", err)
		os.Exit(2)
	}
	fmt.Print("\x1b[c")
	reply := make([]byte, 64)
	n, _ := os.Stdin.Read(reply)
	fmt.Printf("reply %q\r\nready\r\n", reply[:n])
	keys := make(chan string)
	go func() {
		for {
			b := make([]byte, 64)
			n, err := os.Stdin.Read(b)
			if err != nil {
				return
			}
			keys <- string(b[:n])
		}
	}()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case k := <-keys:
			fmt.Printf("key %q\r\n", k)
		case <-winch:
			rows, cols, err := pty.Getsize(os.Stdin)
			if err != nil {
				fmt.Printf("getsize: %v\r\n", err)
				os.Exit(2)
			}
			got := fmt.Sprintf("%dx%d", cols, rows)
			fmt.Printf("size %s\r\n", got)
			if got == want {
				os.Exit(0)
			}
		case <-deadline:
			os.Exit(3)
		}
	}
}

// waitFor polls cond under a deadline, and says what it last saw.
func waitFor(t *testing.T, what string, cond func() bool, seen func() string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s; last seen:\n%s", what, seen())
		}
		time.Sleep(5 * time.Millisecond) // polling under a deadline
	}
}

// TestTerminal: a process on the terminal (its session leader, as
// claudewrap is) gets the terminal's replies to its queries and is told of
// each resize; a form's resizes begin at its first key, not at its
// question, and go in order, two due at once too; another form's wait for
// its own first key, and so does the person's key (Case.Person); the
// drain ends when the process exits; the events are read a last time on
// close; the resizes made while a form was open are counted.
func TestTerminal(t *testing.T) {
	dir := t.TempDir()
	tm, err := openTerminal(80, 24, filepath.Join(dir, "terminal.out"), Kitty, false)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			tm.close(filepath.Join(dir, "resizes.txt"))
		}
	})
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), childEnv+"=61x25")
	child.Stdin, child.Stdout, child.Stderr = tm.tty, tm.tty, tm.tty
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	tm.started()
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	t.Cleanup(func() {
		child.Process.Kill()
		<-exited
	})
	shown := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "terminal.out"))
		return string(b)
	}
	waitFor(t, "the child ready", func() bool { return strings.Contains(shown(), "ready") }, shown)
	if want := `reply "\x1b[?62;c"`; !strings.Contains(shown(), want) {
		t.Fatalf("the child's query not answered as a kitty would (%s):\n%q", want, shown())
	}

	events := filepath.Join(dir, "events.jsonl")
	write := func(lines ...string) {
		f, err := os.OpenFile(events, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.WriteString(strings.Join(lines, "\n") + "\n")
	}
	handed := 0
	tm.follow(events, map[string]Case{
		"toolu_a": {Resizes: []Resize{{Cols: 100, Rows: 30}, {Cols: 120, Rows: 40, After: 50 * time.Millisecond},
			{Cols: 90, Rows: 35, After: 50 * time.Millisecond}}},
		"toolu_b": {Resizes: []Resize{{Cols: 61, Rows: 25, After: 200 * time.Millisecond}}, Person: &Keypress{Keys: "\x1b[B"}},
	}, func() { handed++ })
	write(`{"event":"question","tool_use_id":"toolu_a"}`, `{"event":"question","tool_use_id":"toolu_b"}`)
	write(`{"event":"key","tool_use_id":"toolu_a"}`)
	waitFor(t, "resized to 90x35", func() bool { return strings.Contains(shown(), "size 90x35") }, shown)
	if strings.Contains(shown(), "61x25") || strings.Contains(shown(), "key") {
		t.Fatal("toolu_b resized, or the person typed, before its first key")
	}
	write(`{"event":"key","tool_use_id":"toolu_a"}`, `{"event":"submitted","tool_use_id":"toolu_a"}`,
		`{"event":"key","tool_use_id":"toolu_b"}`)
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("the child: %v\n%s", err, shown())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the child never saw 61x25:\n%s", shown())
	}
	select {
	case <-tm.drained:
	case <-time.After(5 * time.Second):
		t.Fatal("the drain did not end when the process on the terminal exited")
	}
	// Written as claudewrap exits: the last read on close sees it.
	write(`{"event":"handed_over","tool_use_id":"toolu_b","reason":"the person typed"}`)
	end := tm.close(filepath.Join(dir, "resizes.txt"))
	closed = true
	if end.handed["toolu_b"] != "the person typed" || handed != 1 {
		t.Errorf("handed over %v, the run ended %d times", end.handed, handed)
	}
	if end.landed["toolu_a"] != 3 || end.landed["toolu_b"] != 1 {
		t.Errorf("landed while open %v", end.landed)
	}
	if k, size := strings.Index(shown(), `key "\x1b[B"`), strings.Index(shown(), "size 61x25"); !end.afterKey["toolu_b"] || k < 0 || k > size {
		t.Errorf("the person's Down: handed over after it %v, shown at %d, the resize after it at %d:\n%s", end.afterKey, k, size, shown())
	}
	log, err := os.ReadFile(filepath.Join(dir, "resizes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(lines) != 5 || !strings.HasSuffix(lines[0], "toolu_a +0s: 100x30") || !strings.HasSuffix(lines[1], "toolu_a +50ms: 120x40") ||
		!strings.HasSuffix(lines[2], "toolu_a +50ms: 90x35") || !strings.HasSuffix(lines[3], `toolu_b +0s: the person pressed "\x1b[B"`) ||
		!strings.HasSuffix(lines[4], "toolu_b +200ms: 61x25") {
		t.Errorf("the resizes and keys written, in order:\n%s", log)
	}
}

// TestTerminalFeed: a line still being written waits for the next read, and
// a form handed to the person ends the run once, however often it and
// others are reported; a dialog is named; a form claudewrap gave up on
// counts as handed over, another error does not; a hand-over read after
// the person's key is noted so.
func TestTerminalFeed(t *testing.T) {
	tm, err := openTerminal(80, 24, filepath.Join(t.TempDir(), "terminal.out"), "", false)
	if err != nil {
		t.Fatal(err)
	}
	defer tm.close(filepath.Join(t.TempDir(), "resizes.txt"))
	half := `{"event":"question","tool_use`
	if rest := tm.feed([]byte(`{"event":"start"}`+"\n"+half), nil, nil); string(rest) != half {
		t.Fatalf("fed a line and a half, %q left", rest)
	}
	ended := 0
	rest := tm.feed([]byte(`{"event":"handed_over","tool_use_id":"toolu_b","reason":"navigation failed"}`+"\n"+
		`{"event":"handed_over","tool_use_id":"toolu_b","reason":"the person typed"}`+"\n"+
		`{"event":"handed_over","dialog":"trust","reason":"the person typed"}`+"\n"+
		`{"event":"error","tool_use_id":"toolu_c","message":"unknown tool_use_id"}`+"\n"+
		`{"event":"error","tool_use_id":"toolu_d","step":"record","message":"submitted, but Claude recorded no answer within 30s"}`+"\n"),
		nil, func() { ended++ })
	if len(rest) != 0 || ended != 1 {
		t.Errorf("%q left, the run ended %d times", rest, ended)
	}
	want := map[string]string{"toolu_b": "navigation failed", "": "trust dialog: the person typed",
		"toolu_d": "claudewrap gave up at record: submitted, but Claude recorded no answer within 30s"}
	if fmt.Sprint(tm.handed) != fmt.Sprint(want) {
		t.Errorf("handed over: %v, want %v", tm.handed, want)
	}
	// Only a hand-over read after the person's key, of a form asked or
	// open when it was pressed, is theirs: toolu_g was asked after it.
	tm.feed([]byte(`{"event":"question","tool_use_id":"toolu_e"}`+"\n"+`{"event":"question","tool_use_id":"toolu_f"}`+"\n"+
		`{"event":"verified","tool_use_id":"toolu_f"}`+"\n"), nil, func() {})
	tm.press(&Keypress{Keys: "x"}, "toolu_e")
	tm.feed([]byte(`{"event":"question","tool_use_id":"toolu_g"}`+"\n"+
		`{"event":"handed_over","tool_use_id":"toolu_e","reason":"the person typed"}`+"\n"+
		`{"event":"handed_over","tool_use_id":"toolu_g","reason":"the person typed"}`+"\n"), nil, func() {})
	// A form asked before the key, by its event's time, but read after
	// it: theirs too.
	asked := tm.keyAt.Add(-4 * time.Millisecond).Format(time.RFC3339Nano)
	tm.feed([]byte(`{"event":"question","tool_use_id":"toolu_i","ts":"`+asked+`"}`+"\n"+
		`{"event":"handed_over","tool_use_id":"toolu_i","reason":"the person typed"}`+"\n"), nil, func() {})
	// A chat message handed over after the key, its form done before it.
	tm.feed([]byte(`{"event":"handed_over","tool_use_id":"toolu_h","chat_message":"why?","reason":"the person typed"}`+"\n"), nil, func() {})
	// A form asked after the key, handed over as Claude's sessions view
	// showed instead: theirs only after their ←, which moves the
	// conversation to the background (this key was x).
	away := `{"event":"handed_over","tool_use_id":"toolu_j","reason":"Claude's conversation is in the background (its sessions view): the form waits there for you (enter opens it)"}` + "\n"
	tm.feed([]byte(`{"event":"question","tool_use_id":"toolu_j"}`+"\n"+away), nil, func() {})
	if fmt.Sprint(tm.afterKey) != "map[:false toolu_b:false toolu_d:false toolu_e:true toolu_g:false toolu_h:true toolu_i:true toolu_j:false]" {
		t.Errorf("handed over after the person's key: %v", tm.afterKey)
	}
	left, err := openTerminal(80, 24, filepath.Join(t.TempDir(), "terminal.out"), "", false)
	if err != nil {
		t.Fatal(err)
	}
	defer left.close(filepath.Join(t.TempDir(), "resizes.txt"))
	left.press(&Keypress{Keys: "\x1b[D"}, "toolu_a")
	left.feed([]byte(`{"event":"question","tool_use_id":"toolu_j"}`+"\n"+away), nil, func() {})
	if !left.afterKey["toolu_j"] {
		t.Errorf("a form handed over for the sessions view after the person's ← is not theirs: %v", left.afterKey)
	}
}

// TestTerminalPersonEsc: the person's Esc goes as the terminal sends it, a
// bare Esc, or CSI 27 u from a kitty once Claude pushed its flags (popped,
// bare again). After it the harness leaves the run's end to claudewrap
// when it reported the cancel, else ends it once, escGrace after the key
// and once no form asked after the key is being answered, or at once when a
// form was handed over before it. The person's cancel is told from
// claudewrap's own.
func TestTerminalPersonEsc(t *testing.T) {
	for _, tc := range []struct {
		replies Term
		shown   string
		want    string
	}{
		{Mute, "\x1b[>1u", "\x1b"},
		{Xterm, "\x1b[>1u", "\x1b"},
		{Kitty, "", "\x1b"},
		{Kitty, "\x1b[>1u", "\x1b[27u"},
		{Kitty, "\x1b[>1u\x1b[<u", "\x1b"},
	} {
		tm, err := openTerminal(80, 24, filepath.Join(t.TempDir(), "terminal.out"), tc.replies, false)
		if err != nil {
			t.Fatal(err)
		}
		// Raw, as claudewrap keeps the person's side: a lone Esc is read.
		if err := testkit.Raw(tm.tty); err != nil {
			t.Fatal(err)
		}
		tm.answers.Answer([]byte(tc.shown)) // as the drain does with what claudewrap shows
		tm.press(&Keypress{Keys: escKey}, "toolu_a")
		got := make([]byte, 16)
		tm.tty.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := tm.tty.Read(got)
		if err != nil || string(got[:n]) != tc.want || !tm.esc {
			t.Errorf("%q after %q: the person's Esc went as %q (%v), want %q; esc noted: %t", tc.replies, tc.shown, got[:n], err, tc.want, tm.esc)
		}
		tm.close(filepath.Join(t.TempDir(), "resizes.txt"))
	}

	for _, tc := range []struct {
		name   string
		before string // events before the Esc
		after  string // events after it
		later  string // events once its escGrace has passed
		ends   int    // how often the harness ends the run: at most once
	}{
		{"reported: claudewrap ends the run", `{"event":"question","tool_use_id":"toolu_a"}`,
			`{"event":"handed_over","tool_use_id":"toolu_a","reason":"the person typed"}` + "\n" +
				`{"event":"cancelled","tool_use_id":"toolu_a","by":"person","reason":"the person pressed Esc"}`, "", 0},
		{"not reported", `{"event":"question","tool_use_id":"toolu_a"}`,
			`{"event":"handed_over","tool_use_id":"toolu_a","reason":"the person typed"}`, "", 1},
		{"between forms", `{"event":"question","tool_use_id":"toolu_a"}` + "\n" + `{"event":"verified","tool_use_id":"toolu_a"}`, "", "", 1},
		// A form asked after the Esc is answered before the run ends.
		{"a form asked after it", `{"event":"question","tool_use_id":"toolu_a"}` + "\n" + `{"event":"verified","tool_use_id":"toolu_a"}`,
			`{"event":"question","tool_use_id":"toolu_b"}`, `{"event":"verified","tool_use_id":"toolu_b"}`, 1},
		// Asked just after the Esc: claudewrap hands it over unpressed.
		// ("NOW" is the time the events are fed, after the key.)
		{"a form asked just after it", `{"event":"question","tool_use_id":"toolu_a"}` + "\n" + `{"event":"verified","tool_use_id":"toolu_a"}`,
			`{"event":"question","tool_use_id":"toolu_b","ts":"NOW"}` + "\n" +
				`{"event":"handed_over","tool_use_id":"toolu_b","reason":"` + escAsked + `"}`, "", 1},
		{"a form asked just after it, reported", `{"event":"question","tool_use_id":"toolu_a"}` + "\n" + `{"event":"verified","tool_use_id":"toolu_a"}`,
			`{"event":"question","tool_use_id":"toolu_b","ts":"NOW"}` + "\n" +
				`{"event":"handed_over","tool_use_id":"toolu_b","reason":"` + escAsked + `"}` + "\n" +
				`{"event":"cancelled","tool_use_id":"toolu_b","by":"person","reason":"` + escAsked + `"}`, "", 0},
		// Given up on before the Esc: the run is ended at once, once.
		{"handed over before it", `{"event":"question","tool_use_id":"toolu_a"}` + "\n" +
			`{"event":"error","tool_use_id":"toolu_a","step":"navigate","message":"no focus"}`, "", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm, err := openTerminal(80, 24, filepath.Join(t.TempDir(), "terminal.out"), "", false)
			if err != nil {
				t.Fatal(err)
			}
			defer tm.close(filepath.Join(t.TempDir(), "resizes.txt"))
			ends := 0
			feed := func(lines string) {
				if lines != "" {
					lines = strings.ReplaceAll(lines, "NOW", time.Now().Format(time.RFC3339Nano))
					tm.feed([]byte(lines+"\n"), nil, func() { ends++ })
				}
			}
			feed(tc.before)
			tm.press(&Keypress{Keys: escKey}, "toolu_a")
			feed(tc.after)
			if tm.escEnds(tm.keyAt.Add(escGrace - time.Millisecond)) {
				ends++
				t.Errorf("ended before escGrace")
			}
			if tc.later != "" {
				if tm.escEnds(tm.keyAt.Add(escGrace)) {
					t.Errorf("ended while a form asked after the Esc was answered")
				}
				feed(tc.later)
			}
			if tm.escEnds(tm.keyAt.Add(escGrace)) {
				ends++
			}
			if tm.escEnds(tm.keyAt.Add(time.Hour)) {
				ends++
			}
			if ends != tc.ends || !tm.esc {
				t.Errorf("the run was ended %d times, want %d (esc noted: %t)", ends, tc.ends, tm.esc)
			}
			// A form asked just after the Esc, handed over, is the
			// person's as one asked before it is.
			tm.mu.Lock()
			if tm.handed["toolu_b"] == escAsked && !tm.afterKey["toolu_b"] {
				t.Errorf("a form handed over as asked just after the Esc is not counted after the key: %v", tm.afterKey)
			}
			tm.mu.Unlock()
		})
	}

	// A form handed over for the person's Esc is theirs only if asked
	// within escWindow after it, by its question event.
	for _, tc := range []struct {
		asked time.Duration // after the key
		want  bool
	}{{10 * time.Millisecond, true}, {escWindow - 50*time.Millisecond, true}, {escWindow + 50*time.Millisecond, false}, {3 * time.Second, false}} {
		tm, err := openTerminal(80, 24, filepath.Join(t.TempDir(), "terminal.out"), "", false)
		if err != nil {
			t.Fatal(err)
		}
		tm.press(&Keypress{Keys: escKey}, "toolu_a")
		ts := tm.keyAt.Add(tc.asked).Format(time.RFC3339Nano)
		tm.feed([]byte(`{"event":"question","tool_use_id":"toolu_b","ts":"`+ts+`"}`+"\n"+
			`{"event":"handed_over","tool_use_id":"toolu_b","reason":"`+escAsked+`"}`+"\n"), nil, func() {})
		if end := tm.close(filepath.Join(t.TempDir(), "resizes.txt")); end.afterKey["toolu_b"] != tc.want {
			t.Errorf("asked %v after the Esc, handed over for it: counted after the key %t, want %t", tc.asked, end.afterKey["toolu_b"], tc.want)
		}
	}

	// Only the person's cancel is theirs: claudewrap's own Esc and chat
	// are its own.
	tm, err := openTerminal(80, 24, filepath.Join(t.TempDir(), "terminal.out"), "", false)
	if err != nil {
		t.Fatal(err)
	}
	tm.feed([]byte(`{"event":"cancelled","tool_use_id":"toolu_a","by":"person","reason":"the person pressed Esc"}`+"\n"+
		`{"event":"cancelled","tool_use_id":"toolu_b","keys":1}`+"\n"+
		`{"event":"submitted","tool_use_id":"toolu_c","keys":3,"chat":true}`+"\n"+
		`{"event":"submitted","tool_use_id":"toolu_d","keys":3}`+"\n"+
		`{"event":"question","tool_use_id":"toolu_e"}`+"\n"), nil, func() {})
	end := tm.close(filepath.Join(t.TempDir(), "resizes.txt"))
	if fmt.Sprint(end.personCancelled) != "map[toolu_a:true]" || fmt.Sprint(end.own) != "map[toolu_b:true toolu_c:true]" ||
		fmt.Sprint(end.questioned) != "map[toolu_e:true]" {
		t.Errorf("cancelled by the person %v, ended by claudewrap %v, questioned %v", end.personCancelled, end.own, end.questioned)
	}
}

// TestTerminalCloseBounded: close returns when claudewrap never started
// (the harness's copy of the person's side is the last), and within its
// drain limit when something else still holds that side.
func TestTerminalCloseBounded(t *testing.T) {
	for _, held := range []bool{false, true} {
		tm, err := openTerminal(80, 24, filepath.Join(t.TempDir(), "terminal.out"), "", false)
		if err != nil {
			t.Fatal(err)
		}
		// Held, the drain cannot end, and close gives up after its limit;
		// not held, it must end at once (an hour's limit would show).
		tm.drainLimit = time.Hour
		if held {
			tm.drainLimit = 100 * time.Millisecond
			other, err := os.OpenFile(tm.tty.Name(), os.O_RDWR|syscall.O_NOCTTY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
		}
		closed := make(chan struct{})
		go func() {
			tm.close(filepath.Join(t.TempDir(), "resizes.txt"))
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatalf("held %t: close did not return", held)
		}
	}
}

// TestTerminalAnswers: the queries Claude sends get an xterm's or a kitty's
// replies, in their order, also when a read cuts a query in two, and each
// once; the replies follow the modes set and the kitty keyboard flags
// pushed, popped and set before them; a terminal that answers nothing
// answers nothing. (The reads are modelled on what Claude Code 2.1.332 sent
// a kitty, with modes set, flags set and popped, and keys between.)
func TestTerminalAnswers(t *testing.T) {
	reads := []string{"\x1b[?1049h\x1b[>0q\x1b[?u\x1b]7501;?\x07\x1b", "[c\x1b[<u\x1b[>5u\x1b[>4;2m\x1b[?2026$p\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AA",
		"AA\x1b\\\x1b[16t\x1b[?1016$p\x1b[c hello \x1b[", "?u", " \x1b[?2004;25h\x1b[?2004$p\x1b[?25l\x1b[?25$p\x1b[?9999$p",
		"\x1b[=3;2u\x1b[?u\x1b[<u\x1b[?u done"}
	xterm := "\x1bP>|XTerm(390)\x1b\\\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c\x1b[?2026;0$y\x1b[6;20;10t\x1b[?1016;2$y\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c" +
		"\x1b[?2004;1$y\x1b[?25;2$y\x1b[?9999;0$y"
	kitty := "\x1bP>|kitty(0.39.1)\x1b\\\x1b[?0u\x1b[?62;c\x1b[?2026;2$y\x1b_Gi=31;OK\x1b\\\x1b[6;20;10t\x1b[?1016;2$y\x1b[?62;c\x1b[?5u" +
		"\x1b[?2004;1$y\x1b[?25;2$y\x1b[?9999;0$y\x1b[?7u\x1b[?0u"
	for _, tc := range []struct {
		replies Term
		want    string
	}{{Mute, ""}, {Xterm, xterm}, {Kitty, kitty}} {
		a := NewAnswerer(tc.replies)
		var got []byte
		for _, r := range reads {
			got = append(got, a.Answer([]byte(r))...)
		}
		if string(got) != tc.want {
			t.Errorf("%q: replied\n%q, want\n%q", tc.replies, got, tc.want)
		}
	}
}

// TestCutReply: a batch of replies is cut inside its first reply, never
// between two, so that what reaches claudewrap first is no whole reply.
func TestCutReply(t *testing.T) {
	for _, tc := range []struct {
		r    string
		want string // the first piece
	}{
		{"\x1b[?62;22c", "\x1b[?6"},
		{"\x1b[6;20;10t\x1b[?62;22c", "\x1b[6;2"},
		{"\x1bP>|kitty(0.39.1)\x1b\\", "\x1bP>|kitt"},
		{"\x1b[I", "\x1b["}, // never the Esc alone, which is the Esc key
	} {
		if got := tc.r[:cutReply([]byte(tc.r))]; got != tc.want {
			t.Errorf("cutReply(%q): first piece %q, want %q", tc.r, got, tc.want)
		}
	}
	// Every reply the terminals give is cut inside itself, after its
	// Esc and introducer.
	for _, term := range []Term{Xterm, Kitty} {
		a, n := NewAnswerer(term), 0
		for _, q := range []string{"\x1b[c", "\x1b[>0q", "\x1b[?u", "\x1b[?2026$p", "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AA\x1b\\", "\x1b[16t"} {
			r := a.Answer([]byte(q))
			if len(r) == 0 {
				continue
			}
			n++
			if k := cutReply(r); k < 2 || k >= len(r) || bytes.IndexByte(r[1:k], 0x1b) >= 0 {
				t.Errorf("%s: cutReply(%q) = %d", term, r, k)
			}
		}
		if n < 4 {
			t.Errorf("%s: %d queries answered, want 4 at least", term, n)
		}
	}
	if k := cutReply([]byte("\x1bc")); k != 2 {
		t.Errorf("cutReply of 2 bytes = %d, want 2: whole", k)
	}
}
