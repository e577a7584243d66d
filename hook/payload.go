package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/claudewrap/claudewrap/answer"
)

// Hook event names claudewrap registers for.
const (
	PreToolUse  = "PreToolUse"
	PostToolUse = "PostToolUse"
	Stop        = "Stop"
	// StopFailure comes instead of Stop when a turn ends in an error (not
	// logged in, the API refused): its error and Claude's last message.
	StopFailure  = "StopFailure"
	SessionStart = "SessionStart" // Claude started, resumed or cleared a session
	// PermissionRequest comes for every tool about to ask the person's
	// permission, before its dialog is drawn; its output can decide.
	PermissionRequest = "PermissionRequest"
	// Elicitation comes when an MCP server asks the person for input,
	// before its form is drawn; its output can answer instead.
	Elicitation = "Elicitation"
	// ElicitationResult reports what the person answered on the screen.
	ElicitationResult = "ElicitationResult"

	// ToolName is the tool whose hooks claudewrap needs.
	ToolName = "AskUserQuestion"
)

// Payload is the JSON Claude Code gives a hook command on stdin, with the
// fields claudewrap uses.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	// Cwd is the folder Claude works in: a tool's relative path is taken
	// from it.
	Cwd           string `json:"cwd,omitempty"`
	HookEventName string `json:"hook_event_name"`
	// Source is why a SessionStart fired: startup, resume, clear, compact.
	Source       string        `json:"source,omitempty"`
	ToolName     string        `json:"tool_name,omitempty"`
	ToolUseID    string        `json:"tool_use_id,omitempty"`
	ToolInput    *ToolInput    `json:"tool_input,omitempty"`
	ToolResponse *ToolResponse `json:"tool_response,omitempty"`
	// PermissionMode is Claude's mode (default, plan, acceptEdits, auto…).
	PermissionMode string `json:"permission_mode,omitempty"`
	// AgentID names the subagent whose tool call it is, "" for the main
	// conversation's.
	AgentID string `json:"agent_id,omitempty"`

	// An Elicitation's: the server, its message, "form" or "url" (absent
	// on versions with form mode only) and the fields' JSON schema.
	MCPServerName   string          `json:"mcp_server_name,omitempty"`
	Message         string          `json:"message,omitempty"`
	Mode            string          `json:"mode,omitempty"`
	RequestedSchema json.RawMessage `json:"requested_schema,omitempty"`
	// An ElicitationResult's: accept, decline or cancel, and the values.
	Action  string          `json:"action,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`

	// A StopFailure's: the error's kind ("authentication_failed") and what
	// Claude showed for it.
	Error                string `json:"error,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`

	// Input is tool_input as sent: a PermissionRequest's tool's, and
	// AskUserQuestion's (which a PreToolUse answer is built on).
	Input json.RawMessage `json:"-"`
}

// ToolInput is AskUserQuestion's input: the truth about what is asked.
type ToolInput struct {
	Questions []answer.Question `json:"questions"`
}

// ToolResponse is what AskUserQuestion recorded, as PostToolUse reports it.
type ToolResponse struct {
	Answers map[string]string `json:"answers"`
	// Annotations holds, by question text, the preview of the chosen option
	// and the notes typed with it.
	Annotations map[string]Annotation `json:"annotations,omitempty"`
}

// Annotation is what was recorded beside an answer.
type Annotation struct {
	Preview string `json:"preview,omitempty"`
	Notes   string `json:"notes,omitempty"`
}

// Parse decodes and validates a hook message: valid JSON, an event
// claudewrap registered for, and for tool events the AskUserQuestion tool
// with an id and well-formed questions.
func Parse(b []byte) (*Payload, error) {
	var p Payload
	var raw struct {
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("not hook JSON: %w", err)
	}
	if err := json.Unmarshal(b, &p); err != nil && (!rawInput(&p) || !isQuestionsError(err)) {
		return nil, fmt.Errorf("not hook JSON: %w", err)
	}
	if rawInput(&p) {
		// A PermissionRequest's, or another tool's PreToolUse (for the
		// deny rules): the tool's input as sent.
		if p.ToolName == "" {
			return nil, fmt.Errorf("%s without tool_name", p.HookEventName)
		}
		if len(raw.ToolInput) == 0 || raw.ToolInput[0] != '{' {
			return nil, fmt.Errorf("%s without a tool_input object", p.HookEventName)
		}
		p.Input, p.ToolInput, p.ToolResponse = raw.ToolInput, nil, nil
		return &p, nil
	}
	switch p.HookEventName {
	case Stop, StopFailure:
		return &p, nil
	case Elicitation, ElicitationResult:
		if p.MCPServerName == "" {
			return nil, fmt.Errorf("%s without mcp_server_name", p.HookEventName)
		}
		if p.HookEventName == ElicitationResult && p.Action == "" {
			return nil, errors.New("ElicitationResult without action")
		}
		return &p, nil
	case SessionStart:
		if p.SessionID == "" {
			return nil, errors.New("SessionStart without session_id")
		}
		return &p, nil
	case PreToolUse, PostToolUse:
	case "":
		return nil, errors.New("no hook_event_name")
	default:
		return nil, fmt.Errorf("unexpected hook event %q", p.HookEventName)
	}
	if p.ToolName != ToolName {
		return nil, fmt.Errorf("%s for tool %q, not %s", p.HookEventName, p.ToolName, ToolName)
	}
	if p.ToolUseID == "" {
		return nil, fmt.Errorf("%s without tool_use_id", p.HookEventName)
	}
	if p.ToolInput == nil || len(p.ToolInput.Questions) == 0 || len(p.ToolInput.Questions) > 4 {
		return nil, fmt.Errorf("%s with no questions or more than 4", p.HookEventName)
	}
	for i, q := range p.ToolInput.Questions {
		if q.Question == "" || len(q.Options) < 2 || len(q.Options) > 4 {
			return nil, fmt.Errorf("question %d: want text and 2-4 options", i+1)
		}
	}
	if p.HookEventName == PostToolUse && (p.ToolResponse == nil || p.ToolResponse.Answers == nil) {
		return nil, errors.New("PostToolUse without tool_response.answers")
	}
	p.Input = raw.ToolInput
	return &p, nil
}

// rawInput reports whether p is a message whose tool_input is read raw:
// a PermissionRequest's, and a PreToolUse's for a tool other than
// AskUserQuestion.
func rawInput(p *Payload) bool { return p.HookEventName == PermissionRequest || p.Gated() || p.Ran() }

// Gated reports whether p is a PreToolUse the deny rules decide: any
// tool's but AskUserQuestion's, which is answered as a form.
func (p *Payload) Gated() bool {
	return p.HookEventName == PreToolUse && p.ToolName != ToolName
}

// Ran reports whether p is the PostToolUse of a tool other than
// AskUserQuestion, which comes under the gate: what the tool ran with.
func (p *Payload) Ran() bool {
	return p.HookEventName == PostToolUse && p.ToolName != ToolName
}

// isQuestionsError is a decoding error in tool_input or tool_response of
// a tool other than AskUserQuestion, whose input is not questions:
// PermissionRequest and the other tools' PreToolUse and PostToolUse carry
// those, and read tool_input raw.
func isQuestionsError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te) && (strings.HasPrefix(te.Field, "tool_input") || strings.HasPrefix(te.Field, "tool_response"))
}
