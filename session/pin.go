package session

import (
	"path/filepath"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/transcript"
)

// ours reports whether a hook message belongs to the session this run's
// Claude is in, and handles SessionStart (which session that is). The hook
// socket already refuses processes that are not Claude's (package hook);
// this pins what Claude itself sends: once a session is known, a message of
// another session, or of none, is refused and reported.
//
// A process of Claude's (a command it runs) can send hook messages too, so
// the pin moves to another session only once Claude's own transcript
// confirms it: a SessionStart naming a new session makes it a candidate,
// followed when a message of that session comes and the session's
// transcript, in the folder of the one pinned, holds it. A SessionStart
// cannot change the pinned session's transcript either, and the sessions
// followed before stay heard: a session that was wrongly confirmed (its
// transcript written by such a process) never shuts out Claude's own.
func (s *session) ours(p *hook.Payload) (r bool) {
	s.loop.do(func() { r = s.oursOnLoop(p) })
	return r
}

func (s *session) oursOnLoop(p *hook.Payload) bool {
	if p.HookEventName == hook.SessionStart {
		s.sessionStartOnLoop(p)
		return false
	}
	switch {
	case s.sessionID == "" && p.SessionID != "":
		// No SessionStart came first: the first message names the session.
		s.sessionID = p.SessionID
		s.transcript = p.TranscriptPath
		s.say("session", events.Fields{"session_id": p.SessionID, "transcript_path": p.TranscriptPath})
	case s.sessionID != "" && p.SessionID != s.sessionID:
		if _, ok := s.earlier[p.SessionID]; ok {
			return true
		}
		if path, ok := s.candidates[p.SessionID]; ok && s.confirmedOnLoop(p.SessionID, path) {
			delete(s.candidates, p.SessionID)
			if s.earlier == nil {
				s.earlier = map[string]string{}
			}
			s.earlier[s.sessionID] = s.transcript
			s.sessionID, s.transcript = p.SessionID, path
			s.say("session", events.Fields{"session_id": p.SessionID, "transcript_path": path, "confirmed": true})
			return true
		}
		fields := events.Fields{"message": "a " + p.HookEventName + " of session " + quoteOrNone(p.SessionID) +
			" refused: this run's Claude is in session " + s.sessionID}
		if _, ok := s.candidates[p.SessionID]; ok {
			fields["message"] = fields["message"].(string) + " (Claude's transcript does not show it in " + p.SessionID + ")"
		}
		if p.ToolUseID != "" {
			fields["tool_use_id"] = p.ToolUseID
		}
		s.say("error", fields)
		return false
	}
	return true
}

// sessionStartOnLoop handles a SessionStart. Claude says which session it
// is in: at start, and again after /clear, a resume, a compaction, or a
// fork (← at its prompt moves the conversation to the background, 2.1.227
// and later: it goes on in a fork). A second "startup" beside a known
// session is a new session of Claude's sessions view, not this
// conversation, and so is any later start of that one (its /clear, a
// compaction): followed, it came after the fork on 2.1.332 and had the
// fork's forms refused as another session's (e2e TestAwayInSessionsView).
func (s *session) sessionStartOnLoop(p *hook.Payload) {
	fields := events.Fields{"session_id": p.SessionID, "transcript_path": p.TranscriptPath, "source": p.Source}
	switch {
	case s.sessionID == "":
		s.sessionID, s.transcript = p.SessionID, p.TranscriptPath
	case p.Source == "startup" && p.SessionID != s.sessionID || s.sideSessions[p.SessionID]:
		if s.sideSessions == nil {
			s.sideSessions = map[string]bool{}
		}
		s.sideSessions[p.SessionID] = true
		fields["followed"] = false
	case p.SessionID == s.sessionID && s.transcript == "":
		s.transcript = p.TranscriptPath
	case p.SessionID == s.sessionID:
		if p.TranscriptPath != s.transcript {
			fields["transcript_path"] = s.transcript
			fields["message"] = "a SessionStart naming another transcript for this session: " + p.TranscriptPath + " not followed"
		}
	default:
		if s.candidates == nil {
			s.candidates = map[string]string{}
		}
		s.candidates[p.SessionID] = p.TranscriptPath
		fields["followed"] = "once Claude's transcript shows it"
	}
	s.say("session", fields)
}

// confirmedOnLoop reports whether Claude's transcript shows it in session
// id: its transcript at path lies beside the pinned session's (Claude's
// projects folder for this working folder) and names that session.
func (s *session) confirmedOnLoop(id, path string) bool {
	return path != "" && s.transcript != "" && filepath.Dir(path) == filepath.Dir(s.transcript) &&
		transcript.Names(path, id)
}

func quoteOrNone(id string) string {
	if id == "" {
		return "(none)"
	}
	return `"` + id + `"`
}

// mine reports whether p may be this run's session's: no session is known
// yet, or p names it (quietly, unlike ours).
func (s *session) mine(p *hook.Payload) (r bool) {
	s.loop.do(func() { r = s.mineOnLoop(p) })
	return r
}

func (s *session) mineOnLoop(p *hook.Payload) bool {
	return s.sessionID == "" || p.SessionID == s.sessionID
}

// pinned reports whether id is the session this run's Claude is in.
func (s *session) pinned(id string) (r bool) {
	s.loop.do(func() { r = s.pinnedOnLoop(id) })
	return r
}

func (s *session) pinnedOnLoop(id string) bool {
	return id != "" && id == s.sessionID
}
