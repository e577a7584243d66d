package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// bigRules is a valid rules file of n rules, and then tail.
func bigRules(n int, tail string) []byte {
	var b strings.Builder
	b.WriteString("version: 1\nrules:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: r%d\n    when: {question: \"q%d\"}\n    answer: {select: \"a\"}\n", i, i)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// TestSyntaxErrorAtTheEndOfABigFile: the error's line is found in a few
// parses (it took one parse per line, minutes on a large file).
func TestSyntaxErrorAtTheEndOfABigFile(t *testing.T) {
	const n = 20000
	b := bigRules(n, "  - name: bad\n    when: {question: \"x\"\n")
	_, err := Parse("big.yaml", b)
	es, ok := err.(Errors)
	if !ok || len(es) != 1 {
		t.Fatalf("error %v, want one syntax error", err)
	}
	if want := 3 + 3*n + 1; es[0].Line < want-1 || es[0].Line > want+1 {
		t.Errorf("syntax error at line %d, want about %d: %v", es[0].Line, want, es[0])
	}
}

func BenchmarkSyntaxErrorPosition(b *testing.B) {
	src := bigRules(20000, "  - name: bad\n    when: {question: \"x\"\n")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse("big.yaml", src); err == nil {
			b.Fatal("no error")
		}
	}
}

// TestLoadFileRefusesWhatIsNotARulesFile: a missing file, a folder, a
// FIFO nobody writes, a device that never ends and a file over the size
// limit are refused at once, each with its reason in a person's words: the
// system's ("stat", "no such file or directory") are not shown.
func TestLoadFileRefusesWhatIsNotARulesFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, bigRules(MaxFileSize/50, ""), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.yaml")
	under := filepath.Join(big, "rules.yaml")
	for _, tc := range []struct{ path, want string }{
		{missing, "rules file " + missing + ": no such file"},
		{under, "rules file " + under + ": no such file (a part of its path is a file, not a folder)"},
		{dir, "rules file " + dir + ": a folder, not a file; name the rules file in it"},
		{fifo, "rules file " + fifo + ": not a regular file (a FIFO)"},
		{"/dev/zero", "rules file /dev/zero: not a regular file (a character device)"},
		{big, fmt.Sprintf("rules file %s: %d bytes; at most %d allowed", big, len(bigRules(MaxFileSize/50, "")), MaxFileSize)},
	} {
		_, err := LoadFile(tc.path)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
		var fe *FileError
		if !errors.As(err, &fe) || fe.Path != tc.path {
			t.Errorf("%s: %#v is no FileError of the path", tc.path, err)
		}
	}
	if _, err := LoadFile(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v is not fs.ErrNotExist", err)
	}
}

// TestUnreadable: the reasons that cannot be made for real by every user
// (root reads any file), from the errors the system gives.
func TestUnreadable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "r.yaml", Err: syscall.EACCES}, "no permission to read it"},
		{&fs.PathError{Op: "stat", Path: "r.yaml", Err: syscall.ENOENT}, "no such file"},
		{&fs.PathError{Op: "read", Path: "r.yaml", Err: syscall.EIO}, "cannot be read: input/output error"},
	} {
		if got := unreadable("r.yaml", tc.err); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.err, got, tc.want)
		}
	}
}
