package vt

import "testing"

// TestSnapshotsShareUnchangedRows checks that a snapshot stays as it was
// after later writes, that the next one shares the rows that did not change,
// and that nothing is copied while nothing changes.
func TestSnapshotsShareUnchangedRows(t *testing.T) {
	e := New(Options{Cols: 10, Rows: 3})
	e.Write([]byte("one\r\ntwo\r\nthree"))
	s1 := e.Snapshot()
	e.Write([]byte("\x1b[1;1HONE")) // CUP home, then overwrite the first row
	s2 := e.Snapshot()
	if s1.Line(0) != "one" || s2.Line(0) != "ONE" {
		t.Fatalf("first rows %q then %q, want \"one\" then \"ONE\"", s1.Line(0), s2.Line(0))
	}
	if &s1.Cells[1][0] != &s2.Cells[1][0] || &s1.Cells[2][0] != &s2.Cells[2][0] {
		t.Error("unchanged rows were copied")
	}
	if s3 := e.Snapshot(); &s3.Cells[0][0] != &s2.Cells[0][0] || s3.Seq != s2.Seq {
		t.Error("a snapshot without a change in between was not reused")
	}
	e.Write([]byte("\r\n")) // scrolls nothing, but moves the cursor
	e.Write([]byte("\x1b[S"))
	s4 := e.Snapshot()
	if s4.Line(0) != "two" || s4.Line(1) != "three" || s4.Line(2) != "" || s2.Line(0) != "ONE" {
		t.Errorf("after scrolling up:\n%s\nearlier snapshot:\n%s", s4, s2)
	}
	e.Resize(12, 3)
	if s5 := e.Snapshot(); s5.Cols != 12 || len(s5.Cells[0]) != 12 || s5.Line(0) != "two" {
		t.Errorf("after resize:\n%s", s5)
	}
}

func TestRuneWidthTable(t *testing.T) {
	for r := range rune(0x10000) {
		if got, want := RuneWidth(r), computeWidth(r); got != want {
			t.Fatalf("RuneWidth(%U) = %d, want %d", r, got, want)
		}
	}
}
