package stress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"

	"github.com/claudewrap/claudewrap/internal/ptyfile"
)

// terminal is the pseudo-terminal a session on a terminal runs on: the
// person's side, with nobody at it. It keeps everything claudewrap shows in
// a file, answers Claude's queries as the session's terminal would, and
// resizes itself and types the person's keys as the session's cases ask.
type terminal struct {
	ptmx, tty *os.File
	out       *os.File
	drained   chan struct{} // the drain has ended
	// done is closed once claudewrap has exited: follow reads the events a
	// last time, and resizes not made yet are dropped.
	done chan struct{}
	wg   sync.WaitGroup
	// drainLimit bounds the wait for the drain once claudewrap has exited
	// (something it started may still hold the person's side).
	drainLimit time.Duration
	// answers plays the terminal that answers Claude's queries (see
	// Session.Replies); only the drain uses it.
	answers *Answerer
	// cut has the replies sent in two pieces (see Session.Cut).
	cut bool
	// writeMu keeps the person's key out of a reply sent in pieces: a
	// terminal never types a key inside its own report.
	writeMu sync.Mutex

	mu     sync.Mutex
	closed bool
	log    []string // what was done to the terminal, for reading
	// handed holds the forms handed to the person, by tool_use_id ("" for
	// a dialog), with the reason.
	handed map[string]string
	// resizing holds the forms whose resizes have begun; open those between
	// their first key and their end (submitted, cancelled, handed over) as
	// the events were read; landed counts, per form, the resizes made while
	// it was open, its own or another's.
	resizing, open map[string]bool
	landed         map[string]int
	// replied counts, per form, the replies to Claude's queries written
	// while it was open.
	replied map[string]int
	// asked holds the forms asked and not ended, as the events were read;
	// atKey those asked or open when the person's key (Case.Person) was
	// written, and afterKey those of them handed over after it: a form
	// asked later was not typed on.
	asked, atKey map[string]bool
	afterKey     map[string]bool
	// keyAt is when the person's key was written: a form asked by then,
	// by its question event's time, is in atKey however late the event was
	// read: the events are polled every 20 ms, and a form asked a few ms
	// before the key was asked when it was pressed.
	keyAt time.Time
	// esc: the person's key was Esc (Case.Person); questioned holds every
	// form whose question event came, personCancelled those claudewrap
	// reported cancelled by the person, and own those it ended itself with
	// Esc or "Chat about this" (a cancelled event not the person's, a
	// submitted one with chat).
	esc                              bool
	questioned, personCancelled, own map[string]bool
	// askedAt is each form's question event's time; undone holds the forms
	// claudewrap reported cancelled by the person's Esc as Claude recorded
	// them (escRecorded).
	askedAt map[string]time.Time
	undone  map[string]bool
	// ending: handedOver has been called; left: the person's key was ←,
	// which moves Claude's conversation to the background.
	ending, left bool
	shownTail    []byte // the end of what was shown, for claudewrap's last line
	// mouse: Claude asks for every motion of the pointer (?1003h), as the
	// drain last read; pointed counts the motion reports point wrote.
	mouse   bool
	pointed int
	rows    int // the terminal's height, as last set
}

// openTerminal opens a terminal of cols x rows whose output goes to path,
// answering queries as replies says (see Session.Replies), its replies cut
// in two if cut (see Session.Cut).
func openTerminal(cols, rows int, path string, replies Term, cut bool) (*terminal, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open a terminal: %w", err)
	}
	// Served by the runtime's poller, so that Close ends a Read in
	// progress (a master made blocking by Fd() would keep it).
	p, err := ptyfile.Pollable(ptmx)
	if err != nil {
		ptmx.Close()
		tty.Close()
		return nil, fmt.Errorf("open a terminal: %w", err)
	}
	ptmx = p
	out, err := os.Create(path)
	if err != nil {
		ptmx.Close()
		tty.Close()
		return nil, fmt.Errorf("open a terminal: %w", err)
	}
	t := &terminal{ptmx: ptmx, tty: tty, out: out, drained: make(chan struct{}), done: make(chan struct{}),
		drainLimit: 10 * time.Second, answers: NewAnswerer(replies), cut: cut, handed: map[string]string{},
		resizing: map[string]bool{}, open: map[string]bool{}, landed: map[string]int{},
		replied: map[string]int{}, asked: map[string]bool{}, afterKey: map[string]bool{},
		questioned: map[string]bool{}, personCancelled: map[string]bool{}, own: map[string]bool{},
		askedAt: map[string]time.Time{}, undone: map[string]bool{}}
	if err := t.setSize(cols, rows); err != nil {
		t.ptmx.Close()
		tty.Close()
		out.Close()
		return nil, fmt.Errorf("size a terminal: %w", err)
	}
	go t.drain()
	return t, nil
}

// setSize sets the window size; the kernel tells the terminal's foreground
// (claudewrap).
func (t *terminal) setSize(cols, rows int) error {
	t.rows = rows
	return ptyfile.SetSize(t.ptmx, cols, rows)
}

// drain reads everything shown until the last holder of the person's side
// has gone (EIO) or the ptmx is closed, as a terminal would, so that
// claudewrap never blocks.
func (t *terminal) drain() {
	defer close(t.drained)
	buf := make([]byte, 32*1024)
	for {
		n, err := t.ptmx.Read(buf)
		if n > 0 {
			t.out.Write(buf[:n]) // for reading only: a full disk loses the copy, not the run
			if r := t.answers.Answer(buf[:n]); len(r) > 0 {
				t.reply(r) // as the person's terminal types its reports
				t.mu.Lock()
				for o := range t.open {
					t.replied[o]++
				}
				t.mu.Unlock()
			}
			t.mu.Lock()
			if i, j := bytes.LastIndex(buf[:n], []byte("\x1b[?1003h")), bytes.LastIndex(buf[:n], []byte("\x1b[?1003l")); i != j {
				t.mouse = i > j
			}
			t.shownTail = append(t.shownTail, buf[:n]...)
			if len(t.shownTail) > 8192 {
				t.shownTail = t.shownTail[len(t.shownTail)-4096:]
			}
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// cutGap is the time between a cut reply's two pieces: well within the
// 50 ms claudewrap waits for a reply's rest.
const cutGap = 2 * time.Millisecond

// reply writes the replies r to Claude's queries; cut, in two pieces
// (cutReply), the second cutGap after the first, as a terminal across a
// network can send them.
func (t *terminal) reply(r []byte) {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if !t.cut {
		t.ptmx.Write(r)
		return
	}
	k := cutReply(r)
	t.ptmx.Write(r[:k])
	time.Sleep(cutGap) // the network's gap, not a wait for anything
	t.ptmx.Write(r[k:])
}

// cutReply returns where to cut replies r: halfway through the first, and
// never after its Esc alone: a lone Esc is the Esc key, to claudewrap as to
// Claude. Replies too short for that go whole (len(r)).
func cutReply(r []byte) int {
	if len(r) < 3 {
		return len(r)
	}
	end := len(r)
	if i := bytes.IndexByte(r[1:], 0x1b); i >= 0 {
		end = i + 1
	}
	return max(2, min(len(r)-1, end/2))
}

// pointerEvery is how often the person's pointer reports a move (see
// Session.Pointer): a pointer crossing a row every few milliseconds.
const pointerEvery = 5 * time.Millisecond

// point moves the person's pointer over the terminal's rows, from the top
// down and again, while Claude asks for its motion, until the terminal
// closes: the reports a terminal sends with no button held (SGR, ?1006h).
func (t *terminal) point() {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		tick := time.NewTicker(pointerEvery)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-t.done:
				return
			case <-tick.C:
			}
			t.mu.Lock()
			on, rows := t.mouse && !t.closed, t.rows
			t.mu.Unlock()
			if !on {
				continue
			}
			// Not under mu: a full terminal must not hold the drain or close.
			t.writeMu.Lock() // never inside a reply sent in pieces
			_, err := t.ptmx.Write(fmt.Appendf(nil, "\x1b[<35;%d;%dM", 3+n%9, 1+n%max(rows, 1)))
			t.writeMu.Unlock()
			if err == nil {
				t.mu.Lock()
				t.pointed++
				t.mu.Unlock()
			}
		}
	}()
}

// started closes the harness's copy of the person's side once claudewrap
// holds its own (or could not start), so that the drain ends when claudewrap
// and what it started have.
func (t *terminal) started() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tty != nil {
		t.tty.Close()
		t.tty = nil
	}
}

// resize makes the terminal r's size.
func (t *terminal) resize(r Resize, id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	err := t.setSize(r.Cols, r.Rows)
	line := fmt.Sprintf("%s: %s +%v: %dx%d", time.Now().Format("15:04:05.000"), id, r.After, r.Cols, r.Rows)
	switch {
	case err != nil:
		line += ": " + err.Error()
	case len(t.open) == 0:
		line += " (no form open)"
	}
	if err == nil {
		// It lands on every form open then: a chained form's resizes
		// may meet the next form.
		for o := range t.open {
			t.landed[o]++
		}
	}
	t.log = append(t.log, line)
}

// follow follows claudewrap's events until close: as each case's form gets
// its first key it makes the case's resizes, in order, and presses the
// person's key if the case has one (see Case.Person); when a form is handed
// to the person, or given up (which leaves it to them too), it calls
// handedOver once: nobody will come. After the person's Esc it leaves the
// end to claudewrap, which reports their cancel and ends the run as the turn
// stops, or calls handedOver escGrace after the key (see escEnds), handed
// over or not. It polls the events file (claudewrap appends a line per
// event) every 20 ms, and reads it a last time once claudewrap has exited.
func (t *terminal) follow(events string, cases map[string]Case, handedOver func()) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		var off int64
		var partial []byte
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for last := false; !last; {
			select {
			case <-t.done:
				last = true
			case <-tick.C:
			}
			f, err := os.Open(events)
			if err != nil {
				continue // not written yet
			}
			b, err := io.ReadAll(io.NewSectionReader(f, off, 1<<40))
			f.Close()
			if err != nil {
				continue
			}
			off += int64(len(b))
			partial = t.feed(append(partial, b...), cases, handedOver)
			if t.escEnds(time.Now()) {
				handedOver()
			}
		}
	}()
}

// feed acts on the whole event lines in b and returns the rest, a line
// still being written.
func (t *terminal) feed(b []byte, cases map[string]Case, handedOver func()) []byte {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return b
		}
		line := b[:i]
		b = b[i+1:]
		var e struct {
			Event     string    `json:"event"`
			ToolUseID string    `json:"tool_use_id"`
			Dialog    string    `json:"dialog"`
			Reason    string    `json:"reason"`
			Step      string    `json:"step"`
			Message   string    `json:"message"`
			Chat      string    `json:"chat_message"`
			By        string    `json:"by"`
			ChatSent  bool      `json:"chat"`
			TS        time.Time `json:"ts"`
		}
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		id := e.ToolUseID
		t.mu.Lock()
		switch e.Event {
		case "question":
			t.asked[id], t.questioned[id], t.askedAt[id] = true, true, e.TS
			if t.atKey != nil && !e.TS.IsZero() && !e.TS.After(t.keyAt) {
				t.atKey[id] = true // asked before the key, read after it
			}
		case "key":
			// The first key, not the question: forms asked together come
			// with their questions at once, and Claude shows one at a time.
			if id != "" && !t.resizing[id] && !t.closed {
				t.resizing[id], t.open[id] = true, true
				t.resizeLater(id, cases[id].Resizes)
				t.pressLater(id, cases[id].Person)
			}
		case "submitted", "cancelled", "verified", "mismatch":
			// verified or mismatch alone when Claude recorded the answers
			// before claudewrap's drive had ended.
			switch {
			case e.Event == "cancelled" && e.By == "person":
				t.personCancelled[id] = true
				t.undone[id] = e.Reason == escRecorded
			case e.Event == "cancelled" || e.Event == "submitted" && e.ChatSent:
				t.own[id] = true
			}
			delete(t.open, id)
			delete(t.asked, id)
		case "error":
			// A form claudewrap gave up on (its step names where) is left
			// to the person, on a terminal, without a handed_over event:
			// nobody will come either.
			if id == "" || e.Step == "" {
				break
			}
			e.Reason = "claudewrap gave up at " + e.Step + ": " + e.Message
			fallthrough
		case "handed_over":
			delete(t.open, id)
			first := len(t.handed) == 0
			if _, seen := t.handed[id]; !seen {
				t.handed[id] = e.Reason
				// A chat message is handed over at the turn's end, its
				// form long done: any key of the person's before counts.
				// So is a form asked after their ←, which moved
				// Claude's conversation to the background.
				// So is one asked just after their Esc.
				t.afterKey[id] = t.atKey[id] || e.Chat != "" && t.atKey != nil ||
					strings.HasPrefix(e.Reason, movedAway) && t.left ||
					e.Reason == escAsked && t.esc && t.justAfterKey(id)
				if id == "" && e.Dialog != "" {
					t.handed[id] = e.Dialog + " dialog: " + e.Reason
				}
			}
			if first && !t.esc && !t.ending { // after an Esc, follow ends the run
				t.ending = true
				t.mu.Unlock()
				handedOver()
				continue
			}
		}
		t.mu.Unlock()
	}
}

// escWindow is how long after the person's Esc claudewrap may take a form
// asked for theirs (its escRace, 1 s, from when it read the key) by the
// form's question event: a form asked later, handed over for their Esc,
// is no hand-over of theirs.
const escWindow = 1250 * time.Millisecond

// justAfterKey reports whether form id was asked within escWindow after
// the person's key was written. t.mu is held.
func (t *terminal) justAfterKey(id string) bool {
	at, ok := t.askedAt[id]
	return ok && !at.Before(t.keyAt) && at.Before(t.keyAt.Add(escWindow))
}

// escGrace is how long a run goes on after the person's Esc when
// claudewrap reports no cancel of theirs: an Esc between forms stops
// Claude's turn, and nothing ends an interrupted turn but the person.
// claudewrap waits up to 3.3 s for the form to go before it reports one,
// then for Claude's prompt (up to 5 s) before it ends the run itself.
const escGrace = 10 * time.Second

// escEnds reports, once, that the run is to end, at now, after the person's
// Esc (see follow): escGrace after it, unless claudewrap reported their
// cancel (it ends the run itself: sessionTimeout is the backstop), or a form
// asked after the key is still being answered.
func (t *terminal) escEnds(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.esc || t.ending || len(t.personCancelled) > 0 || now.Sub(t.keyAt) < escGrace {
		return false
	}
	for id := range t.asked {
		if _, handed := t.handed[id]; !handed && !t.atKey[id] {
			return false
		}
	}
	t.ending = true
	return true
}

// resizeLater makes a form's resizes in order, each After its first key,
// unless the terminal is closed first. t.mu is held.
func (t *terminal) resizeLater(id string, rs []Resize) {
	if len(rs) == 0 {
		return
	}
	start := time.Now()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		for _, r := range rs {
			if !t.waitUntil(start.Add(r.After)) {
				return
			}
			t.resize(r, id)
		}
	}()
}

// waitUntil waits until at or the terminal's close, and reports whether at
// came first.
func (t *terminal) waitUntil(at time.Time) bool {
	timer := time.NewTimer(time.Until(at))
	defer timer.Stop()
	select {
	case <-t.done:
		return false
	case <-timer.C:
		return true
	}
}

// pressLater presses the person's key k, After the form's first key,
// unless the terminal is closed first. t.mu is held.
func (t *terminal) pressLater(id string, k *Keypress) {
	if k == nil {
		return
	}
	start := time.Now()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		if t.waitUntil(start.Add(k.After)) {
			t.press(k, id)
		}
	}()
}

// press writes the person's key k, pressed during form id, to claudewrap's
// input, as the person's terminal sends a key.
func (t *terminal) press(k *Keypress, id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	keys := k.Keys
	if keys == escKey && t.answers.Disambiguate() {
		keys = "\x1b[27u" // as a kitty sends Esc with the flags Claude pushed
	}
	t.writeMu.Lock()
	written := time.Now()
	_, err := t.ptmx.Write([]byte(keys))
	t.writeMu.Unlock()
	line := fmt.Sprintf("%s: %s +%v: the person pressed %q", time.Now().Format("15:04:05.000"), id, k.After, keys)
	switch {
	case err != nil:
		line += ": " + err.Error()
	case !t.open[id]:
		line += " (the form was no longer open)"
	}
	if err == nil && t.atKey == nil {
		t.keyAt, t.esc, t.left = written, k.Keys == escKey, k.Keys == "\x1b[D"
		t.atKey = map[string]bool{}
		for o := range t.asked {
			t.atKey[o] = true
		}
		for o := range t.open {
			t.atKey[o] = true
		}
	}
	t.log = append(t.log, line)
}

// lastWords is claudewrap's last line of its own on the terminal: its
// summary of the run, or the reason for a non-zero exit.
var lastWords = regexp.MustCompile(`claudewrap: [^\r\n\x1b]*`)

// terminalEnd is what a terminal saw of a session.
type terminalEnd struct {
	// handed holds the forms handed to the person, by tool_use_id ("" for
	// a dialog), with the reason.
	handed map[string]string
	// last is claudewrap's last line of its own on the terminal.
	last string
	// landed counts, per form, the resizes made while it was open: after
	// its first key event, before its end's, as read every 20 ms; replied
	// the replies to Claude's queries written then.
	landed, replied map[string]int
	// afterKey holds the forms handed over after the person pressed a key
	// (Case.Person), as the events were read; atKey those asked or open
	// then.
	afterKey, atKey map[string]bool
	// esc: the person's key was Esc; questioned holds the forms whose
	// question event came, personCancelled those claudewrap reported
	// cancelled by the person, own those it ended itself with Esc or a
	// chat.
	esc                              bool
	questioned, personCancelled, own map[string]bool
	// undone: see terminal.
	undone map[string]bool
}

// close ends the terminal once claudewrap has exited: the events are read a
// last time, resizes not made yet are dropped, the drain is waited for
// (at most drainLimit), and what was done to the terminal is written to
// logPath beside its output.
func (t *terminal) close(logPath string) terminalEnd {
	t.started() // if claudewrap never started, the harness's copy is the last
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	close(t.done)
	select {
	case <-t.drained:
		t.ptmx.Close()
	case <-time.After(t.drainLimit):
		t.ptmx.Close() // non-blocking: this ends the drain's Read
		<-t.drained
	}
	t.wg.Wait()
	t.out.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pointed > 0 {
		t.log = append(t.log, fmt.Sprintf("the pointer moved %d times", t.pointed))
	}
	os.WriteFile(logPath, []byte(strings.Join(t.log, "\n")+"\n"), 0o644) // for reading only
	end := terminalEnd{handed: t.handed, landed: t.landed, replied: t.replied, afterKey: t.afterKey, atKey: t.atKey,
		esc: t.esc, questioned: t.questioned, personCancelled: t.personCancelled, own: t.own,
		undone: t.undone}
	if m := lastWords.FindAll(t.shownTail, -1); len(m) > 0 {
		end.last = string(m[len(m)-1])
	}
	return end
}
