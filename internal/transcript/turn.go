package transcript

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/internal/safefile"
)

// maxBack bounds how far from its end LastMessage reads a transcript.
const maxBack = 64 << 20

// Message is a user or assistant message Claude recorded, as much of it as
// tells whether Claude's turn is over.
type Message struct {
	UUID string
	// Role is "user" or "assistant".
	Role string
	// StopReason is an assistant message's ("end_turn", "tool_use"…).
	StopReason string
	// ToolUse: the message calls a tool.
	ToolUse bool
	// Error is the kind of an error Claude shows as its message instead of
	// the model's ("authentication_failed"); "" for a message of the
	// model's.
	Error string
	// Text is the message's text, its text blocks joined by newlines.
	Text string
}

// String says what m is, for messages: "none", or its role, stop reason,
// whether it calls a tool, and its uuid.
func (m Message) String() string {
	if m.Role == "" {
		return "none"
	}
	s := m.Role
	if m.StopReason != "" {
		s += " " + m.StopReason
	}
	if m.ToolUse {
		s += " calling a tool"
	}
	return s + " " + m.UUID
}

// TurnOver reports whether Claude's turn ended with m: an assistant
// message that calls no tool. Claude writes it before it runs its Stop
// hooks; while a tool runs, or while Claude waits for its model after a
// tool_result, the last message is another.
func (m Message) TurnOver() bool {
	return m.Role == "assistant" && m.StopReason != "tool_use" && !m.ToolUse
}

// LastMessage returns the last whole user or assistant message of the
// main conversation (not a subagent's) in the transcript at path, reading
// back from its end: the last MiB, then four times as much while no message
// is found there (at most 64 MiB); false when there is none.
func LastMessage(path string) (Message, bool) {
	f, err := safefile.Open(path)
	if err != nil {
		return Message{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Message{}, false
	}
	end := fi.Size()
	for back := int64(1 << 20); ; back *= 4 {
		start := max(0, end-min(back, maxBack))
		if m, ok := lastIn(f, start, end); ok || start == 0 || back >= maxBack {
			return m, ok
		}
	}
}

// lastIn is the last message in the lines of f between start and end.
// Claude appends whole lines, so one without its newline is still being
// written; the first line read may be cut at its start.
func lastIn(f *os.File, start, end int64) (Message, bool) {
	rd := bufio.NewReaderSize(io.NewSectionReader(f, start, end-start), 64*1024)
	var last Message
	found := false
	first := start > 0
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			return last, found
		}
		if first {
			first = false
			continue
		}
		if !bytes.Contains(line, []byte(`"message"`)) {
			continue
		}
		if m, ok := message(line); ok {
			last, found = m, true
		}
	}
}

// message reads one transcript line as a message of the main conversation.
func message(line []byte) (Message, bool) {
	var e struct {
		Type      string `json:"type"`
		UUID      string `json:"uuid"`
		Sidechain bool   `json:"isSidechain"`
		Error     string `json:"error"`
		APIError  bool   `json:"isApiErrorMessage"`
		Message   struct {
			Role       string          `json:"role"`
			StopReason string          `json:"stop_reason"`
			Content    json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &e) != nil || e.Sidechain || e.Type != "user" && e.Type != "assistant" {
		return Message{}, false
	}
	m := Message{UUID: e.UUID, Role: e.Type, StopReason: e.Message.StopReason}
	if e.APIError {
		m.Error = e.Error
		if m.Error == "" {
			m.Error = "unknown"
		}
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(e.Message.Content, &blocks) == nil {
		var text []string
		for _, b := range blocks {
			m.ToolUse = m.ToolUse || b.Type == "tool_use"
			if b.Type == "text" {
				text = append(text, b.Text)
			}
		}
		m.Text = strings.Join(text, "\n")
	}
	return m, true
}

// Names reports whether the transcript at path is the session id's: its
// first lines carry that sessionId.
func Names(path, id string) bool {
	f, err := safefile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	want := []byte(`"sessionId":"` + id + `"`)
	rd := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64*1024)
	for range 50 {
		line, err := rd.ReadBytes('\n')
		if bytes.Contains(line, want) {
			var e struct {
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(line, &e) == nil && e.SessionID == id {
				return true
			}
		}
		if err != nil {
			return false
		}
	}
	return false
}

// AwaitUse reports whether the transcript at path records the tool use id
// within wait (Claude writes the tool use before it runs the tool's
// hooks): read as Await reads it.
func AwaitUse(ctx context.Context, path, id string, wait time.Duration) bool {
	if id == "" {
		return false
	}
	return Await(ctx, path, wait, func() bool {
		uses, _ := Read(path)
		for _, u := range uses {
			if u.ID == id {
				return true
			}
		}
		return false
	})
}
