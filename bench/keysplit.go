package bench

import "time"

// keySplit divides the time between the first and the last key into
// Claude's part (from a key to the last output before the next key: the
// frame that showed the key's effect) and claudewrap's (from that frame to
// the next key: reading it and deciding). A gap with no output in it is
// left out of both.
func keySplit(keys, frames []time.Time) (claude, wrap time.Duration) {
	j := 0
	for i := 0; i+1 < len(keys); i++ {
		var frame time.Time
		for ; j < len(frames) && frames[j].Before(keys[i+1]); j++ {
			if frames[j].After(keys[i]) {
				frame = frames[j]
			}
		}
		if frame.IsZero() {
			continue
		}
		claude += frame.Sub(keys[i])
		wrap += keys[i+1].Sub(frame)
	}
	return claude, wrap
}
