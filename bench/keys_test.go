//go:build bench

package bench

import (
	"bytes"
	"testing"
	"time"
)

// measureKeys sends one byte at a time to an echoing raw-mode child and
// waits for its echo, n times after a warm-up, straight on a PTY and through
// `claudewrap run` in passthrough.
func measureKeys(t *testing.T, claudewrap string, n int) *Keys {
	child := benchchild(t)
	dir, env := quietEnv(t)
	direct := echoRounds(t, startOnTerminal(t, 100, 40, dir, env, child, "echo"), n)
	wrapped := echoRounds(t, startOnTerminal(t, 100, 40, dir, env, claudewrap, "run", "--claude", child, "--", "echo"), n)
	return &Keys{N: n,
		DirectP50: Percentile(direct, 50), DirectP99: Percentile(direct, 99),
		WrappedP50: Percentile(wrapped, 50), WrappedP99: Percentile(wrapped, 99)}
}

const warmup = 100

func echoRounds(t *testing.T, tm *terminal, n int) []time.Duration {
	t.Helper()
	if _, err := tm.readUntil([]byte("ready\r\n"), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	var rtts []time.Duration
	buf := make([]byte, 256)
	for i := range warmup + n {
		key := []byte{'a' + byte(i%26)}
		start := time.Now()
		if _, err := tm.ptmx.Write(key); err != nil {
			t.Fatal(err)
		}
		tm.ptmx.SetReadDeadline(start.Add(5 * time.Second))
		var got []byte
		for !bytes.Contains(got, key) {
			k, err := tm.ptmx.Read(buf)
			got = append(got, buf[:k]...)
			if err != nil {
				t.Fatalf("round trip %d: %v; got %q", i, err, got)
			}
		}
		if i >= warmup {
			rtts = append(rtts, time.Since(start))
		}
	}
	tm.ptmx.Write([]byte("Q"))
	if err := tm.wait(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	return rtts
}
