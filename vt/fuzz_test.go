package vt

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// FuzzWrite checks that no input panics and that the screen and the replies
// do not depend on how the stream was split into writes.
func FuzzWrite(f *testing.F) {
	for _, tc := range screenTests {
		f.Add([]byte(strings.Join(tc.in, "")))
	}
	f.Add([]byte(benchStream(1)))
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, wholeReplies := feedChunks(in, len(in))
		for _, size := range []int{1, 3} {
			s, replies := feedChunks(in, size)
			if !sameScreen(s, whole) {
				t.Fatalf("by %d:\n%s\nwhole:\n%s", size, s, whole)
			}
			if replies != wholeReplies {
				t.Fatalf("replies by %d = %q, whole %q", size, replies, wholeReplies)
			}
		}
		if whole.Cursor.X < 0 || whole.Cursor.X >= whole.Cols || whole.Cursor.Y < 0 || whole.Cursor.Y >= whole.Rows {
			t.Fatalf("cursor %v outside %dx%d", whole.Cursor, whole.Cols, whole.Rows)
		}
		_ = whole.String()
	})
}

func feedChunks(in []byte, size int) (Snapshot, string) {
	var replies bytes.Buffer
	e := New(Options{Cols: 12, Rows: 4, Replies: &replies})
	for c := range chunksOf(in, max(size, 1)) {
		e.Write(c)
	}
	return e.Snapshot(), replies.String()
}

func sameScreen(a, b Snapshot) bool {
	a.Seq, b.Seq = 0, 0
	return fmt.Sprint(a) == fmt.Sprint(b) && fmt.Sprint(a.Cells) == fmt.Sprint(b.Cells) && a.Title == b.Title
}
