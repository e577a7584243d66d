package session

import (
	"encoding/json"
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
func (s *session) ours(p *hook.Payload) bool {
	if p.HookEventName == hook.SessionStart {
		s.sessionStart(p)
		return false
	}
	h, cur := &s.reader, s.following()
	switch {
	case cur.id == "" && p.SessionID != "":
		// No SessionStart came first: the first message names the session.
		s.follow(p.SessionID, p.TranscriptPath)
		s.say("session", events.Fields{"session_id": p.SessionID, "transcript_path": p.TranscriptPath})
	case cur.id != "" && p.SessionID != cur.id:
		if _, ok := h.earlier[p.SessionID]; ok {
			return true
		}
		if path, ok := h.candidates[p.SessionID]; ok && confirmed(cur, p.SessionID, path) {
			delete(h.candidates, p.SessionID)
			if h.earlier == nil {
				h.earlier = map[string]string{}
			}
			h.earlier[cur.id] = cur.transcript
			s.follow(p.SessionID, path)
			s.say("session", events.Fields{"session_id": p.SessionID, "transcript_path": path, "confirmed": true})
			return true
		}
		fields := events.Fields{"message": "a " + p.HookEventName + " of session " + quoteOrNone(p.SessionID) +
			" refused: this run's Claude is in session " + cur.id}
		if _, ok := h.candidates[p.SessionID]; ok {
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

// sessionStart handles a SessionStart. Claude says which session it
// is in: at start, and again after /clear, a resume, a compaction, or a
// fork (← at its prompt moves the conversation to the background, 2.1.227
// and later: it goes on in a fork). A second "startup" beside a known
// session is a new session of Claude's sessions view, not this
// conversation, and so is any later start of that one (its /clear, a
// compaction): followed, it came after the fork on 2.1.332 and had the
// fork's forms refused as another session's (e2e TestAwayInSessionsView).
func (s *session) sessionStart(p *hook.Payload) {
	h, cur := &s.reader, s.following()
	fields := events.Fields{"session_id": p.SessionID, "transcript_path": p.TranscriptPath, "source": p.Source}
	switch {
	case cur.id == "":
		s.follow(p.SessionID, p.TranscriptPath)
	case p.Source == "startup" && p.SessionID != cur.id || h.sideSessions[p.SessionID]:
		if h.sideSessions == nil {
			h.sideSessions = map[string]bool{}
		}
		h.sideSessions[p.SessionID] = true
		fields["followed"] = false
	case p.SessionID == cur.id && cur.transcript == "":
		s.follow(cur.id, p.TranscriptPath)
	case p.SessionID == cur.id:
		if p.TranscriptPath != cur.transcript {
			fields["transcript_path"] = cur.transcript
			fields["message"] = "a SessionStart naming another transcript for this session: " + p.TranscriptPath + " not followed"
		}
	default:
		if h.candidates == nil {
			h.candidates = map[string]string{}
		}
		h.candidates[p.SessionID] = p.TranscriptPath
		fields["followed"] = "once Claude's transcript shows it"
	}
	s.say("session", fields)
}

// confirmed reports whether Claude's transcript shows it in session id:
// its transcript at path lies beside that of cur, the session followed
// (Claude's projects folder for this working folder), and names that
// session.
func confirmed(cur claudeSession, id, path string) bool {
	return path != "" && cur.transcript != "" && filepath.Dir(path) == filepath.Dir(cur.transcript) &&
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
func (s *session) mine(p *hook.Payload) bool {
	id := s.following().id
	return id == "" || p.SessionID == id
}

// pinned reports whether id is the session this run's Claude is in.
func (s *session) pinned(id string) bool {
	return id != "" && id == s.following().id
}

// claudeSession is a Claude session this run follows: its id and its
// transcript file, either "" until Claude names it.
type claudeSession struct{ id, transcript string }

// following is the Claude session this run follows now.
func (s *session) following() claudeSession {
	if c := s.followed.Load(); c != nil {
		return *c
	}
	return claudeSession{}
}

// follow has the run follow Claude's session id, whose transcript is at
// path. Only the hook reader calls it (see ours).
func (s *session) follow(id, path string) {
	s.followed.Store(&claudeSession{id, path})
}

// hookReader is what the hook reader keeps as it reads Claude's messages
// in order; nothing else touches it.
type hookReader struct {
	// sideSessions are sessions Claude started beside the one followed
	// (its sessions view's), never followed.
	sideSessions map[string]bool
	// candidates are sessions Claude said it started (a /clear, a fork),
	// by their transcript, not followed until confirmed; earlier are the
	// sessions followed before the current one, still heard (see ours).
	candidates map[string]string
	earlier    map[string]string
	// modes are the permission modes already said (noteMode).
	modes map[string]bool
	// gated holds what the gate let each tool call run with, by tool_use
	// id, until its PostToolUse (gate.go).
	gated map[string]json.RawMessage
}
