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
		// /clear, a resume or a compaction.
		s.sessionID = p.SessionID
		if p.TranscriptPath != "" {
			s.transcript = p.TranscriptPath
		}
		s.log.Emit("session", events.Fields{"session_id": p.SessionID, "transcript_path": p.TranscriptPath, "source": p.Source})
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
