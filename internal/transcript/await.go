package transcript

import (
	"context"
	"time"
)

// poll is how often a wait reads a transcript again when nothing says it
// changed; a watched one (see Await) is read again as it is written, and
// every watchedPoll besides, in case a change went unseen.
const (
	poll        = 100 * time.Millisecond
	watchedPoll = time.Second
)

// Await calls read until it reports true, ctx ends, or wait has passed:
// at once, then each time the transcript at path changes (on Linux, as
// Claude writes it, and every watchedPoll besides), or every poll where
// the file's folder cannot be watched; once more when ctx ends. It reports whether read reported true. read may read other
// files than path (Claude's transcript of another session in the folder).
func Await(ctx context.Context, path string, wait time.Duration, read func() bool) bool {
	// Watched before the first read: a write after that read wakes the wait.
	w := watch(path)
	defer w.close()
	every := poll
	if w.changed != nil {
		every = watchedPoll
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTimer(every)
	defer tick.Stop()
	for {
		if read() {
			return true
		}
		select {
		case <-w.changed:
		case <-tick.C:
		case <-deadline.C:
			return read()
		case <-ctx.Done():
			return read() // what was written before it ended counts
		}
		if !tick.Stop() {
			select {
			case <-tick.C:
			default:
			}
		}
		tick.Reset(every)
	}
}
