package testkit

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Nobody is the user id another user's files are given to.
const Nobody = 65534

// StickyDir returns a new directory anyone may write in, sticky, as /tmp
// is: where another user can plant a file.
func StickyDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return dir
}

// GiveAway makes path (not what a link there names) another user's,
// [Nobody]'s, or skips the test when only root could.
func GiveAway(t testing.TB, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	if err := os.Lchown(path, Nobody, Nobody); err != nil {
		t.Fatal(err)
	}
}

// FIFO makes a FIFO at path, anyone's to open, and returns path.
func FIFO(t testing.TB, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// FIFOReader makes a FIFO at path with a reader on it, as another user's
// process listening there would be, and returns a function that says what
// has reached the reader so far.
func FIFOReader(t testing.TB, path string) (read func() string) {
	t.Helper()
	FIFO(t, path)
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	return func() string {
		var b [64 << 10]byte
		n, _ := syscall.Read(fd, b[:])
		return string(b[:max(n, 0)])
	}
}

// Sparse makes a file of size zero bytes at path, holding no room on disk,
// and returns path.
func Sparse(t testing.TB, path string, size int64) string {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

// Within returns what f returns, and fails the test if f has not returned
// after limit: what waits on a FIFO's other end would wait for ever.
func Within[T any](t testing.TB, limit time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(limit):
		t.Fatalf("%s: still waiting after %v", what, limit)
	}
	panic("unreachable: Fatalf does not return")
}
