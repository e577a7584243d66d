package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/transcript"
)

// Under the gate every tool call must pass claudewrap's PreToolUse hook.
// Claude runs a tool anyway when its hooks do not run or fail (a settings
// env block that wraps them, a hook process killed): nothing then reaches
// claudewrap, not even the PostToolUse. So Claude's transcript, the record
// of every call it makes, is read as it grows: a call whose PreToolUse
// never came, and that ran (its result is no hook's refusal) or had no
// result within ungatedWait, stops Claude, and the run says why.

// stopMissingWait is how long Claude's transcript may show its turn over
// before the Stop hook that follows it at once is taken as one that does
// not reach claudewrap.
const stopMissingWait = 10 * time.Second

// ungatedWait is how long a tool call in the transcript may wait for its
// PreToolUse before it is taken as one that did not pass the gate: the
// hook comes within a second, and gives up itself (refusing the call) after
// half of one.
const ungatedWait = 5 * time.Second

// maxSeen bounds the tool calls whose PreToolUse is remembered.
const maxSeen = 1024

// preCame: a tool call's PreToolUse reached claudewrap (see ungated).
type preCame struct{ id string }

// preArrived notes that a tool call's PreToolUse reached claudewrap.
func (s *session) preArrived(e preCame) {
	if s.preSeen == nil {
		s.preSeen = map[string]bool{}
	}
	if len(s.preSeen) >= maxSeen {
		clear(s.preSeen)
	}
	s.preSeen[e.id] = true
}

// ungated follows the transcript for calls that did not pass the gate. It
// is the dialog watcher's, which calls check as the screen changes.
type ungated struct {
	fl      *transcript.Follow
	waiting map[string]ungatedUse
	// over is the message Claude's transcript ends its turn with whose
	// Stop has not come, and since when it is there.
	over     string
	overSeen time.Time
}

type ungatedUse struct {
	name   string
	seen   time.Time
	result *transcript.Result
}

// check reads what Claude wrote to its transcript since the last look and
// returns the reason to stop Claude, "" when every call it made passed
// the gate (or may yet).
func (u *ungated) check(s *session, now time.Time) string {
	path := s.following().transcript
	if path == "" {
		return ""
	}
	if u.fl == nil || u.fl.Path != path {
		u.fl, u.waiting = &transcript.Follow{Path: path}, map[string]ungatedUse{}
	}
	uses, results := u.fl.Next()
	if why := u.stopCame(s, path, now, len(uses) > 0 || len(results) > 0); why != "" {
		return why
	}
	for _, use := range uses {
		if use.Name != hook.ToolName { // a form has a PreToolUse of its own, watched apart (formWatch)
			u.waiting[use.ID] = ungatedUse{name: use.Name, seen: now}
		}
	}
	for id, r := range results {
		if w, ok := u.waiting[id]; ok {
			w.result = &r
			u.waiting[id] = w
		}
	}
	if len(u.waiting) == 0 {
		return ""
	}
	var passed map[string]bool
	s.loop.do(func() {
		passed = map[string]bool{}
		for id := range u.waiting {
			passed[id] = s.preSeen[id]
		}
	})
	for id, w := range u.waiting {
		switch {
		case passed[id]:
			delete(u.waiting, id)
		case w.result != nil && refusedByHook(*w.result):
			delete(u.waiting, id) // the hook refused it on its own: nothing ran
		case w.result != nil || now.Sub(w.seen) >= ungatedWait:
			what := "ran"
			if w.result == nil {
				what = "was started"
			}
			s.say("error", events.Fields{"tool": w.name, "tool_use_id": id, "message": fmt.Sprintf("a %s call %s that "+
				"claudewrap's gate never saw: its PreToolUse hook never reached claudewrap (a settings env block that wraps "+
				"Claude's hooks, a hook process killed), so the deny rules cannot hold", w.name, what)})
			return fmt.Sprintf("a %s call %s that claudewrap's gate never saw: Claude's hooks are not all running, so the deny rules cannot hold", w.name, what)
		}
	}
	return ""
}

// stopCame checks that the Stop hook of a turn Claude's transcript shows
// over reached claudewrap (as turn_end), within stopMissingWait; grew says
// the transcript grew since the last look. It returns the reason to stop
// Claude when it did not.
func (u *ungated) stopCame(s *session, path string, now time.Time, grew bool) string {
	if grew || u.over == "" {
		m, _ := transcript.LastMessage(path)
		switch {
		case !m.TurnOver() || m.Error != "" || m.UUID == "":
			u.over = "" // still working, or a failure said by StopFailure
		case m.UUID != u.over:
			u.over, u.overSeen = m.UUID, now
		}
	}
	if u.over == "" {
		return ""
	}
	var applied bool
	s.loop.do(func() {
		// A Stop applied about then is this turn's, though the transcript
		// came after it (a loaded machine).
		applied = s.lastTurn == u.over || s.stopDeferred || s.lastStopAt.After(u.overSeen.Add(-stopMissingWait))
	})
	if applied {
		u.over = ""
		return ""
	}
	if now.Sub(u.overSeen) < stopMissingWait {
		return ""
	}
	s.say("error", events.Fields{"message": "Claude's transcript shows its turn over, but its Stop hook never reached claudewrap " +
		"(a hook process killed, or hooks wrapped by a settings env block): the deny rules cannot hold"})
	return "Claude's hooks are not all running: its Stop hook never came, though its transcript shows the turn over, so the deny rules cannot hold"
}

// refusedByHook reports whether r is Claude's record of a call a
// PreToolUse hook refused.
func refusedByHook(r transcript.Result) bool {
	return r.IsError && strings.Contains(r.Content, "PreToolUse")
}
