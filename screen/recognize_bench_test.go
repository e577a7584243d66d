package screen_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/claudewrap/claudewrap/cast"
	"github.com/claudewrap/claudewrap/screen"
)

const benchRecording = "../testdata/screens/2.1.330/three-features-100x40.cast"

// BenchmarkRecognize recognises the form on a recorded 100x40 screen.
func BenchmarkRecognize(b *testing.B) {
	s := replay(b, benchRecording, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := screen.Recognize(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSettledChange is what a wait for a form costs per settled change
// of the screen: a small redraw (one character of the top row, as a spinner
// would), a snapshot, and recognition.
func BenchmarkSettledChange(b *testing.B) {
	f, err := os.Open(benchRecording)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	h, evs, err := cast.Read(f)
	if err != nil {
		b.Fatal(err)
	}
	em := screen.New(screen.Options{Cols: h.Width, Rows: h.Height, Version: h.ClaudeVersion()})
	if err := cast.Play(evs, -1, em); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		fmt.Fprintf(em, "\x1b7\x1b[1;1H%c\x1b8", []rune("✻✽✶✳")[i%4])
		if _, err := screen.Recognize(em.Snapshot()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseDialog reads the dialog off a recorded 120x40 screen with
// no menu (auto mode's check), the longest way through ParseDialog: no
// form, no input box, a footer of key hints, the block above it.
func BenchmarkParseDialog(b *testing.B) {
	s := replay(b, "../testdata/screens/2.1.332/auto-check-120x40.cast", 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := screen.ParseDialog(s); !ok {
			b.Fatal("no dialog")
		}
	}
}
