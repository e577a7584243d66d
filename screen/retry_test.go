package screen_test

import (
	"testing"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// TestParseRetry: Claude's line while it retries its API, as 2.1.332 and
// 2.1.197 draw it when the connection is refused; a prompt or a spinner
// with no retry is none.
func TestParseRetry(t *testing.T) {
	for _, tc := range []struct {
		line string
		want screen.Retry
		ok   bool
	}{
		{"✻ Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED) · retrying in 1s · attempt 3/10",
			screen.Retry{Message: "Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)", Attempt: 3, Of: 10}, true},
		{"✻ Unable to connect to API (ConnectionRefused) · Retrying in 5s · attempt 5/10",
			screen.Retry{Message: "Unable to connect to API (ConnectionRefused)", Attempt: 5, Of: 10}, true},
		{"✻ Deliberating… (1s · ↓ 1 tokens)", screen.Retry{}, false},
		{"❯ say hello · retrying in 1s · attempt 3/10 please", screen.Retry{}, false},
	} {
		em := vt.New(vt.Options{Cols: 120, Rows: 10})
		em.Write([]byte("❯ say hello\r\n\r\n" + tc.line + "\r\n"))
		got, ok := screen.ParseRetry(em.Snapshot())
		if ok != tc.ok || got != tc.want {
			t.Errorf("%q: %+v %t, want %+v %t", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}
