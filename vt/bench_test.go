package vt

import (
	"fmt"
	"strings"
	"testing"
)

// benchStream imitates frames frames of Claude Code's TUI: synchronized
// updates that move up, erase and redraw a bordered prompt, coloured status
// lines, a spinner and some CJK and emoji text.
func benchStream(frames int) string {
	var b strings.Builder
	b.WriteString("\x1b[?2004h\x1b[?1004h\x1b[>1u\x1b[?25l") // paste, focus, kitty push, hide cursor
	for i := range frames {
		b.WriteString("\x1b[?2026h") // begin synchronized update
		if i > 0 {
			b.WriteString("\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[G")
		}
		fmt.Fprintf(&b, "\x1b[38;2;215;119;87m%c\x1b[39m \x1b[1mThinking…\x1b[22m \x1b[2m(%ds · esc to interrupt)\x1b[22m\r\n",
			[]rune("✻✽✶✳")[i%4], i)
		b.WriteString("\x1b[38;2;136;136;136m⎿\x1b[39m  Reading 数据库 分离 🚀 config.go\r\n")
		b.WriteString("\x1b[38;2;136;136;136m╭" + strings.Repeat("─", 76) + "╮\x1b[39m\r\n")
		fmt.Fprintf(&b, "\x1b[38;2;136;136;136m│\x1b[39m > \x1b[7m \x1b[27m\x1b[2mTry \"refactor %d\"\x1b[22m%s\x1b[38;2;136;136;136m│\x1b[39m\r\n",
			i, strings.Repeat(" ", 52))
		b.WriteString("\x1b[38;2;136;136;136m╰" + strings.Repeat("─", 76) + "╯\x1b[39m\r\n")
		b.WriteString("  \x1b[2m? for shortcuts\x1b[22m")
		b.WriteString("\x1b[?2026l") // end synchronized update
	}
	return b.String()
}

func BenchmarkWrite(b *testing.B) {
	stream := []byte(benchStream(100))
	e := New(Options{Cols: 80, Rows: 24})
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		for c := range chunksOf(stream, 4096) {
			e.Write(c)
		}
	}
}

// BenchmarkSkip is what a feeder that fell behind pays for the same stream
// (see Emulator.Skip), in the 64 KB pieces ptyhost's queue hands it.
func BenchmarkSkip(b *testing.B) {
	stream := []byte(benchStream(100))
	e := New(Options{Cols: 80, Rows: 24})
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		for c := range chunksOf(stream, 64<<10) {
			e.Skip(c)
		}
	}
}

func BenchmarkSnapshot(b *testing.B) {
	e := New(Options{Cols: 80, Rows: 24})
	e.Write([]byte(benchStream(3)))
	b.ReportAllocs()
	for b.Loop() {
		e.Snapshot()
	}
}

// spinner is one spinner step of Claude Code's status line: the cursor goes
// to the top row, redraws the glyph and returns, as a frame update does.
func spinner(i int) []byte {
	return fmt.Appendf(nil, "\x1b[?2026h\x1b7\x1b[H\x1b[38;2;215;119;87m%c\x1b[39m\x1b8\x1b[?2026l", []rune("✻✽✶✳")[i%4])
}

// BenchmarkSnapshotChanged takes a snapshot after every small change, as a
// wait does while Claude Code animates its spinner: only the changed row is
// copied.
func BenchmarkSnapshotChanged(b *testing.B) {
	e := New(Options{Cols: 80, Rows: 24})
	e.Write([]byte(benchStream(3)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Write(spinner(i))
		e.Snapshot()
	}
}
