package session

import "testing"

// TestLifeTable: the state table says each move once; every form not yet
// recorded or done becomes recorded when its PostToolUse comes, and a
// recorded or done form moves no more.
func TestLifeTable(t *testing.T) {
	seen := map[[2]state]bool{}
	for _, e := range life {
		if seen[[2]state{e.from, e.to}] {
			t.Errorf("%s to %s twice", e.from, e.to)
		}
		seen[[2]state{e.from, e.to}] = true
		if e.from == recorded || e.from == done {
			t.Errorf("a %s form moves to %s", e.from, e.to)
		}
		if e.on == "" {
			t.Errorf("%s to %s: on what?", e.from, e.to)
		}
	}
	for st := deciding; st < recorded; st++ {
		if !allowed(st, recorded) {
			t.Errorf("a %s form cannot be recorded", st)
		}
	}
}
