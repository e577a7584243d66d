package transcript

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatch: on Linux a write to the transcript wakes the wait at once,
// not at its next backstop read.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	w := watch(path)
	defer w.close()
	if w.changed == nil {
		t.Fatal("the folder is not watched")
	}
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no wake within 5s of the write")
	}
}
