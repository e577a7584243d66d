package askflow_test

import (
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/askflow"
)

// TestErrorKeys: an error says how many keys were pressed, the count
// agreeing with its noun.
func TestErrorKeys(t *testing.T) {
	for keys, want := range map[int]string{0: "(after 0 keys)", 1: "(after 1 key)", 5: "(after 5 keys)"} {
		e := &askflow.Error{Question: 2, Step: "tick", Reason: "Space had no visible effect", Keys: keys}
		if got := e.Error(); !strings.HasPrefix(got, "question 2: tick: Space had no visible effect "+want+"; last screen:") {
			t.Errorf("%d keys: %q", keys, got)
		}
	}
}
