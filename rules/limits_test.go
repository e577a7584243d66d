package rules

import (
	"fmt"
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

// TestLoadFileRefusesWhatIsNotARulesFile: a FIFO nobody writes, a device
// that never ends and a file over the size limit are refused at once, with
// the reason.
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
	for _, tc := range []struct{ path, want string }{
		{fifo, "not a regular file (a FIFO)"},
		{"/dev/zero", "not a regular file (a character device)"},
		{dir, "not a regular file (a directory)"},
		{big, "at most"},
	} {
		_, err := LoadFile(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
}
