package fakeapi

import (
	"encoding/json"
	"strings"
)

// apiRequest is the part of a Messages API request body the fake reads.
type apiRequest struct {
	Model     string            `json:"model"`
	MaxTokens int               `json:"max_tokens"`
	Stream    bool              `json:"stream"`
	Messages  []apiMessage      `json:"messages"`
	Tools     []json.RawMessage `json:"tools"`
	// OutputConfig.Format asks for structured output, as Claude Code's
	// session-title request does; OutputFormat is the older spelling.
	OutputConfig struct {
		Format *outputFormat `json:"format"`
	} `json:"output_config"`
	OutputFormat *outputFormat `json:"output_format"`
}

type outputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

// schema returns the JSON schema the answer must follow, or nil.
func (r *apiRequest) schema() json.RawMessage {
	for _, f := range []*outputFormat{r.OutputConfig.Format, r.OutputFormat} {
		if f != nil && f.Type == "json_schema" && len(f.Schema) > 0 {
			return f.Schema
		}
	}
	return nil
}

type apiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// apiBlock is a request content block: text, tool_result, or anything else
// (image, tool_use, thinking), which is ignored.
type apiBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// userMessage is one message reduced to what rules look at.
type userMessage struct {
	Role        string
	Text        string // text blocks joined with "\n"
	ToolResults []ToolResult
}

// toolNames returns the names of the request's tools.
func (r *apiRequest) toolNames() []string {
	var names []string
	for _, raw := range r.Tools {
		var t struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Name != "" {
			names = append(names, t.Name)
		}
	}
	return names
}

// last returns the last user message of the request, reduced. Claude Code
// 2.1.330 ends messages with a role "system" message (the environment), so
// the last message is not always the user's.
func (r *apiRequest) last() userMessage {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return reduce(r.Messages[i])
		}
	}
	return userMessage{}
}

// allText is the text of every message, <system-reminder> blocks included.
func (r *apiRequest) allText() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(reduce(m).Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// reduce flattens a message whose content is a string or an array of blocks.
func reduce(m apiMessage) userMessage {
	um := userMessage{Role: m.Role}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		um.Text = s
		return um
	}
	var blocks []apiBlock
	if json.Unmarshal(m.Content, &blocks) != nil {
		return um
	}
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_result":
			um.ToolResults = append(um.ToolResults, ToolResult{
				ToolUseID: b.ToolUseID,
				Content:   contentText(b.Content),
				IsError:   b.IsError,
			})
		}
	}
	um.Text = strings.Join(texts, "\n")
	return um
}

// contentText flattens tool_result content, a string or an array of blocks
// of which only the text ones count.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []apiBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}
