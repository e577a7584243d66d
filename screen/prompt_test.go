package screen_test

import (
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/screen"
)

// TestEchoes: a message Claude shows as sent is counted above the input
// box, wrapped or not, and the input box holding the same text is not.
func TestEchoes(t *testing.T) {
	const long = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
	rule := strings.Repeat("─", 60)
	for _, tt := range []struct {
		name  string
		lines []string
		text  string
		want  int
	}{
		{"typed, not sent", []string{"● Thanks, noted.", "", rule, "❯ " + long[:55], "  " + long[56:], rule}, long, 0},
		// 2.1.330 at 60 columns (e2e, this text): the echo wraps.
		{"sent, wrapped", []string{"● Thanks, noted.", "❯ " + long[:55], "  " + long[56:], "✢ Germinating…", rule, "❯ ", rule}, long, 1},
		{"twice", []string{"❯ hello", "● ok", "❯ hello", "● ok", rule, "❯ ", rule}, "hello", 2},
		// 2.1.197 (stress seed 9737646259466774155, s035): a status line
		// under the echo, which the wrapped text must not take in.
		{"a status line under it", []string{"❯ " + long[:55], "  " + long[56:], "  Waiting for permission…", rule, "❯ " + long[:55], "  " + long[56:], rule}, long, 1},
		{"below the input box", []string{rule, "❯ ", rule, "❯ hello"}, "hello", 0},
		// A form has taken the input box's place: its focused option is no echo.
		{"no input box", []string{"❯ hello", "Enter to select · ↑/↓ to navigate · Esc to cancel"}, "hello", 0},
		{"only the start of it", []string{"❯ " + long[:55], "  Waiting for permission…", rule, "❯ ", rule}, long, 0},
		{"another message", []string{"❯ hello there", rule, "❯ ", rule}, "hello", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			em := screen.New(screen.Options{Cols: 60, Rows: 12})
			em.Write([]byte(strings.Join(tt.lines, "\r\n")))
			if got := screen.Echoes(em.Snapshot(), tt.text); got != tt.want {
				t.Errorf("Echoes = %d, want %d\n%s", got, tt.want, em.Snapshot().Text())
			}
		})
	}
}

// TestEchoesKeptInPrompt: Claude Code 2.1.197 sent a chat message, echoed
// it, and kept its text in the input box (stress seed 9737646259466774155,
// s035): the echo is what shows it was sent.
func TestEchoesKeptInPrompt(t *testing.T) {
	const msg = "chat 35-4: we should talk about this first"
	for _, tt := range []struct {
		at   float64
		want int
	}{{1.6025, 0}, {1.65, 1}, {3.25, 1}} {
		s := replayAt(t, "../testdata/screens/2.1.197/stress-4155-s035-87x43.cast", 0, tt.at)
		if p, ok := screen.Prompt(s); !ok || p != msg {
			t.Errorf("at %.4fs: the input box holds %q, %t; want %q\n%s", tt.at, p, ok, msg, s.Text())
		}
		if got := screen.Echoes(s, msg); got != tt.want {
			t.Errorf("at %.4fs: Echoes = %d, want %d\n%s", tt.at, got, tt.want, s.Text())
		}
	}
}

// TestWorking: the interrupt hint under the input box is a turn running;
// the same words above it (Claude's own text), or no input box, are not.
func TestWorking(t *testing.T) {
	rule := strings.Repeat("─", 60)
	for _, tt := range []struct {
		name  string
		lines []string
		want  bool
	}{
		{"working", []string{"● Running.", "✢ Pondering… (0s · ↓ 12 tokens)", rule, "❯ ", rule, "  esc to interrupt · ← for agents"}, true},
		{"working, manual mode", []string{"✽ Seasoning…", rule, "❯ ", rule, "  ⏸ manual mode on · esc to interrupt · ← for a…"}, true},
		{"at the prompt", []string{"● Done.", "✻ Cogitated for 0s", rule, "❯ ", rule, "  ? for shortcuts · ← for agents"}, false},
		{"the words in Claude's text", []string{"● Press esc to interrupt me.", rule, "❯ ", rule, "  ? for shortcuts"}, false},
		{"no input box", []string{"esc to interrupt"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			em := screen.New(screen.Options{Cols: 60, Rows: 12})
			em.Write([]byte(strings.Join(tt.lines, "\r\n")))
			if got := screen.Working(em.Snapshot()); got != tt.want {
				t.Errorf("Working = %t, want %t\n%s", got, tt.want, em.Snapshot().Text())
			}
		})
	}
}
