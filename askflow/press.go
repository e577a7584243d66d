package askflow

import "github.com/claudewrap/claudewrap/vt"

// keyPress sends one key and confirms its effect on the screen, trying at
// most tries times. Forms and dialogs press keys alike; what differs is
// their guards, which each caller gives as functions.
type keyPress struct {
	// tries is how often the key may go: 1 for a key that must not go
	// twice (one that commits, or text that would show twice).
	tries int
	// before, if set, is called ahead of each send (try counts from 0);
	// an error sends nothing and ends the press.
	before func(try int) error
	// send sends the key once.
	send func() error
	// await waits for the key's effect and reports whether it showed.
	await func() (vt.Snapshot, bool)
	// report, if set, is told of each key sent and the screen its wait
	// ended on.
	report func(s vt.Snapshot, seen bool)
	// unseen, if set, decides after a key whose effect did not show,
	// from the screen s the wait ended on: it returns the screen to go on
	// from and whether the effect showed after all, or an error that ends
	// the press. Otherwise the key goes again, while tries allow.
	unseen func(s vt.Snapshot, try int) (vt.Snapshot, bool, error)
	// fail is the error once no try showed the effect; last is the screen
	// the last one ended on.
	fail func(last vt.Snapshot) error
}

// run presses the key until its effect shows, and returns the screen
// that showed it or, with an error, the last screen seen.
func (p keyPress) run() (vt.Snapshot, error) {
	var last vt.Snapshot
	for try := 0; try < p.tries; try++ {
		if p.before != nil {
			if err := p.before(try); err != nil {
				return last, err
			}
		}
		if err := p.send(); err != nil {
			return last, err
		}
		s, ok := p.await()
		last = s
		if p.report != nil {
			p.report(s, ok)
		}
		if ok {
			return s, nil
		}
		if p.unseen != nil {
			s, ok, err := p.unseen(s, try)
			if err != nil || ok {
				return s, err
			}
			last = s
		}
	}
	return last, p.fail(last)
}
