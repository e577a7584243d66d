package bench

import (
	"testing"
	"time"
)

func TestKeySplit(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms ...int) []time.Time {
		var ts []time.Time
		for _, m := range ms {
			ts = append(ts, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return ts
	}
	tests := []struct {
		name         string
		keys, frames []int
		claude, wrap time.Duration
	}{
		{"one frame per key", []int{0, 12, 30}, []int{-5, 10, 29, 40}, 10*time.Millisecond + 17*time.Millisecond, 2*time.Millisecond + 1*time.Millisecond},
		// Claude drew twice for the first key: the last frame before the
		// next key is the one claudewrap acted on.
		{"several frames", []int{0, 20}, []int{3, 15}, 15 * time.Millisecond, 5 * time.Millisecond},
		// No output between two keys: that gap counts for neither.
		{"silent gap", []int{0, 10, 50}, []int{45}, 35 * time.Millisecond, 5 * time.Millisecond},
		{"one key", []int{0}, []int{5}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claude, wrap := keySplit(at(tt.keys...), at(tt.frames...))
			if claude != tt.claude || wrap != tt.wrap {
				t.Errorf("keySplit = %v, %v; want %v, %v", claude, wrap, tt.claude, tt.wrap)
			}
		})
	}
}
