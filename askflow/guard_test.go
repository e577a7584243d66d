package askflow

import (
	"testing"
	"time"
)

func TestGuarded(t *testing.T) {
	shown := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		lastKey time.Time
		want    bool
	}{
		{"no key ever", time.Time{}, false},
		{"a key just before", shown.Add(-10 * time.Millisecond), true},
		{"a key 999ms before", shown.Add(-999 * time.Millisecond), true},
		{"a key a second before", shown.Add(-keysQuiet), false},
		{"a key a minute before", shown.Add(-time.Minute), false},
		{"a key after (the person typed meanwhile)", shown.Add(time.Millisecond), true},
	}
	for _, tt := range tests {
		if got := guarded(shown, tt.lastKey); got != tt.want {
			t.Errorf("%s: guarded = %t, want %t", tt.name, got, tt.want)
		}
	}
}
