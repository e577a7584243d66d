package stress

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestTerminalWatch: the terminal is resized as a case's question comes,
// the resizes of another case wait for theirs, a line still being written
// waits for the next poll, and a form handed to the person ends the run
// once however often it is reported.
func TestTerminalWatch(t *testing.T) {
	dir := t.TempDir()
	term, err := openTerminal(80, 24, filepath.Join(dir, "terminal.out"))
	if err != nil {
		t.Fatal(err)
	}
	tty := term.tty
	size := func() string {
		rows, cols, err := pty.Getsize(tty)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%dx%d", cols, rows)
	}
	waitSize := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); size() != want; {
			if time.Now().After(deadline) {
				t.Fatalf("the terminal is %s, want %s", size(), want)
			}
			time.Sleep(5 * time.Millisecond) // polling the kernel's size under a deadline
		}
	}
	events := filepath.Join(dir, "events.jsonl")
	f, err := os.Create(events)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var handed atomic.Int32
	done := make(chan struct{})
	defer close(done)
	go term.watch(events, map[string][]Resize{
		"toolu_a": {{Cols: 100, Rows: 30}, {Cols: 120, Rows: 40, After: 50 * time.Millisecond}},
		"toolu_b": {{Cols: 61, Rows: 25}},
	}, func() { handed.Add(1) }, done)

	// A line half written is left for the next poll.
	half := `{"event":"question","tool_use`
	if rest := term.feed([]byte(`{"event":"start"}`+"\n"+half), nil, nil); string(rest) != half {
		t.Fatalf("fed a line and a half, %q left", rest)
	}
	f.WriteString(`{"event":"start"}` + "\n" + `{"event":"question","tool_use_id":"toolu_a"}` + "\n")
	waitSize("120x40")
	f.WriteString(`{"event":"question","tool_use_id":"toolu_b"}` + "\n")
	waitSize("61x25")
	f.WriteString(`{"event":"handed_over","tool_use_id":"toolu_b","reason":"navigation failed"}` + "\n" +
		`{"event":"handed_over","tool_use_id":"toolu_b","reason":"the person typed"}` + "\n")
	for deadline := time.Now().Add(5 * time.Second); handed.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("a form handed over, and the run not ended")
		}
		time.Sleep(5 * time.Millisecond) // polling a counter under a deadline
	}
	term.started() // nobody else holds the person's side: the drain ends
	handedTo, _, landed := term.close(filepath.Join(dir, "resizes.txt"))
	if n := handed.Load(); n != 1 {
		t.Errorf("ended %d times", n)
	}
	// toolu_a was never ended: its two landed while it was open; so did
	// toolu_b's, made before it was handed over.
	if landed["toolu_a"] != 2 || landed["toolu_b"] != 1 {
		t.Errorf("landed while open: %v", landed)
	}
	if want := "toolu_b handed to the person (navigation failed)"; handedTo != want {
		t.Errorf("handed over: %q, want %q", handedTo, want)
	}
	log, err := os.ReadFile(filepath.Join(dir, "resizes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "\n"); n != 3 || !strings.Contains(string(log), "toolu_b +0s: 61x25") {
		t.Errorf("the resizes written:\n%s", log)
	}
}
