package session

import (
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
)

// ours reports whether a hook message belongs to the session this run's
// Claude is in, and handles SessionStart (which session that is). The hook
// socket already refuses processes that are not Claude's (package hook);
// this pins what Claude itself sends: once a session is known, a message of
// another session, or of none, is refused and reported.
func (s *session) ours(p *hook.Payload) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.HookEventName == hook.SessionStart {
		// Claude says which session it is in: at start, and again after
		// /clear, a resume, a compaction, or a fork (← at its prompt moves
		// the conversation to the background, 2.1.227 and later: it goes
		// on in a fork). A second "startup" beside a known session is a
		// new session of Claude's sessions view, not this conversation,
		// and so is any later start of that one (its /clear, a
		// compaction): followed, it came after the fork on 2.1.332 and
		// had the fork's forms refused as another session's (e2e
		// TestAwayInSessionsView).
		fields := events.Fields{"session_id": p.SessionID, "transcript_path": p.TranscriptPath, "source": p.Source}
		if p.Source == "startup" && s.sessionID != "" && p.SessionID != s.sessionID || s.besides[p.SessionID] {
			if s.besides == nil {
				s.besides = map[string]bool{}
			}
			s.besides[p.SessionID] = true
			fields["followed"] = false
			s.log.Emit("session", fields)
			return false
		}
		s.sessionID = p.SessionID
		if p.TranscriptPath != "" {
			s.transcript = p.TranscriptPath
		}
		s.log.Emit("session", fields)
		return false
	}
	switch {
	case s.sessionID == "" && p.SessionID != "":
		// No SessionStart came first: the first message names the session.
		s.sessionID = p.SessionID
		s.transcript = p.TranscriptPath
		s.log.Emit("session", events.Fields{"session_id": p.SessionID, "transcript_path": p.TranscriptPath})
	case s.sessionID != "" && p.SessionID != s.sessionID:
		fields := events.Fields{"message": "a " + p.HookEventName + " of session " + quoteOrNone(p.SessionID) +
			" refused: this run's Claude is in session " + s.sessionID}
		if p.ToolUseID != "" {
			fields["tool_use_id"] = p.ToolUseID
		}
		s.log.Emit("error", fields)
		return false
	}
	return true
}

func quoteOrNone(id string) string {
	if id == "" {
		return "(none)"
	}
	return `"` + id + `"`
}

// pinned reports whether id is the session this run's Claude is in.
func (s *session) pinned(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return id != "" && id == s.sessionID
}
