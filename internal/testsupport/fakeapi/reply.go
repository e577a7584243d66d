package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// reply is what the fake decided to answer, before ids are handed out.
type reply struct {
	blocks []Block
	stop   string // "" means derive from the blocks
}

// reply picks the answer to a Messages request and notes it in req.Reply.
func (s *Server) reply(req *Request, body *apiRequest) reply {
	if req.Kind == KindSide {
		text, what := s.sideText(req.Text, body.schema())
		req.Reply = what
		return reply{blocks: []Block{{Type: "text", Text: text}}}
	}
	last := body.last()
	for i, r := range s.sc.Rules {
		if !r.When.matches(last) {
			continue
		}
		req.Reply = fmt.Sprintf("rule %d", i+1)
		if r.Name != "" {
			req.Reply += fmt.Sprintf(" (%s)", r.Name)
		}
		return reply{blocks: expand(r.Reply, body), stop: r.StopReason}
	}
	req.Reply = "default"
	if len(s.sc.Default) > 0 {
		return reply{blocks: s.sc.Default}
	}
	return reply{blocks: []Block{{Type: "text", Text: "ok"}}}
}

// sideText answers a request without tools. One that asks for structured
// output gets a JSON object following the schema (a "title" property gets the
// scenario's title); session-title requests get the title; everything else
// gets "ok".
func (s *Server) sideText(text string, schema json.RawMessage) (answer, what string) {
	title := s.sc.Title
	if title == "" {
		title = DefaultTitle
	}
	lower := strings.ToLower(text)
	switch {
	case schema != nil:
		b, _ := json.Marshal(fromSchema(schema, title))
		what := "structured"
		if strings.Contains(string(schema), `"title"`) {
			what = "title"
		}
		return string(b), what
	case strings.Contains(lower, "isnewtopic"):
		b, _ := json.Marshal(map[string]any{"isNewTopic": false, "title": nil})
		return string(b), "topic"
	case strings.Contains(lower, "title"):
		if strings.Contains(lower, "json") {
			b, _ := json.Marshal(map[string]string{"title": title})
			return string(b), "title"
		}
		return title, "title"
	default:
		return "ok", "side"
	}
}

// fromSchema makes up an object that follows a JSON schema: each property
// gets an empty value of its type, except a string "title", which gets title.
func fromSchema(raw json.RawMessage, title string) any {
	var sch struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Enum       []any                      `json:"enum"`
	}
	if json.Unmarshal(raw, &sch) != nil {
		return map[string]any{}
	}
	if len(sch.Enum) > 0 {
		return sch.Enum[0]
	}
	typ, _ := sch.Type.(string)
	if list, ok := sch.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch typ {
	case "string":
		return "ok"
	case "boolean":
		return false
	case "number", "integer":
		return 0
	case "array":
		return []any{}
	case "null":
		return nil
	}
	obj := map[string]any{}
	for name, p := range sch.Properties {
		if name == "title" {
			obj[name] = title
			continue
		}
		obj[name] = fromSchema(p, title)
	}
	return obj
}

// Wire types, in the field order the real API uses.

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// inputTokens is what every response claims; small, so Claude Code never
// thinks its context is filling up.
const inputTokens = 100

// message turns a reply into a complete assistant message, handing out ids.
func (s *Server) message(model string, rep reply) message {
	if model == "" {
		model = "claude-fake"
	}
	s.mu.Lock()
	s.msgN++
	msg := message{
		ID:      fmt.Sprintf("msg_01%022d", s.msgN),
		Type:    "message",
		Role:    "assistant",
		Model:   model,
		Content: []any{},
	}
	stop := "end_turn"
	chars := 0
	for _, b := range rep.blocks {
		switch b.Type {
		case "text":
			msg.Content = append(msg.Content, textBlock{Type: "text", Text: b.Text})
			chars += len(b.Text)
		case "tool_use":
			id := b.ID
			if id == "" {
				s.toolN++
				id = fmt.Sprintf("toolu_01%022d", s.toolN)
			}
			input, _ := json.Marshal(b.Input) // checked by Scenario.Check
			if b.Input == nil {
				input = []byte("{}")
			}
			msg.Content = append(msg.Content, toolUseBlock{Type: "tool_use", ID: id, Name: b.Name, Input: input})
			chars += len(input)
			stop = "tool_use"
		}
	}
	s.mu.Unlock()
	if rep.stop != "" {
		stop = rep.stop
	}
	msg.StopReason = &stop
	msg.Usage = usage{InputTokens: inputTokens, OutputTokens: chars/4 + 1}
	return msg
}

// writeStream sends msg as the server-sent events of a streaming response.
func writeStream(w http.ResponseWriter, msg message) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, err := json.Marshal(data)
		if err != nil {
			return
		}
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}

	start := msg
	start.Content = []any{}
	start.StopReason = nil
	start.Usage = usage{InputTokens: msg.Usage.InputTokens, OutputTokens: 1}
	event("message_start", messageStart{Type: "message_start", Message: start})
	event("ping", map[string]string{"type": "ping"})

	for i, c := range msg.Content {
		switch b := c.(type) {
		case textBlock:
			event("content_block_start", blockStart{Type: "content_block_start", Index: i, ContentBlock: textBlock{Type: "text", Text: ""}})
			event("content_block_delta", blockDelta{Type: "content_block_delta", Index: i, Delta: textDelta{Type: "text_delta", Text: b.Text}})
		case toolUseBlock:
			event("content_block_start", blockStart{Type: "content_block_start", Index: i,
				ContentBlock: toolUseBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage("{}")}})
			event("content_block_delta", blockDelta{Type: "content_block_delta", Index: i, Delta: jsonDelta{Type: "input_json_delta", PartialJSON: string(b.Input)}})
		}
		event("content_block_stop", blockStop{Type: "content_block_stop", Index: i})
	}
	event("message_delta", messageDelta{
		Type:  "message_delta",
		Delta: stopDelta{StopReason: *msg.StopReason},
		Usage: outputUsage{OutputTokens: msg.Usage.OutputTokens},
	})
	event("message_stop", map[string]string{"type": "message_stop"})
}

type messageStart struct {
	Type    string  `json:"type"`
	Message message `json:"message"`
}

type blockStart struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"`
}

type blockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type textDelta struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type jsonDelta struct {
	Type        string `json:"type"`
	PartialJSON string `json:"partial_json"`
}

type blockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type messageDelta struct {
	Type  string      `json:"type"`
	Delta stopDelta   `json:"delta"`
	Usage outputUsage `json:"usage"`
}

type stopDelta struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

type outputUsage struct {
	OutputTokens int `json:"output_tokens"`
}

// A string of a tool_use's input may hold {{match:REGEX}}: the first
// submatch (or the match) of REGEX in the texts of the request's messages,
// so that a scenario can name what Claude Code put in its prompt, such as
// the plan file it asks for in plan mode ("create your plan at PATH").
var placeholder = regexp.MustCompile(`\{\{match:(.+?)\}\}`)

// expand fills the placeholders of blocks from the request's texts; one
// that does not match is left as written, for the test to see.
func expand(blocks []Block, body *apiRequest) []Block {
	if !hasPlaceholder(blocks) {
		return blocks
	}
	text := body.allText()
	fill := func(s string) string {
		return placeholder.ReplaceAllStringFunc(s, func(p string) string {
			re, err := regexp.Compile(placeholder.FindStringSubmatch(p)[1])
			if err != nil {
				return p
			}
			m := re.FindStringSubmatch(text)
			switch {
			case m == nil:
				return p
			case len(m) > 1:
				return m[1]
			}
			return m[0]
		})
	}
	out := make([]Block, len(blocks))
	for i, b := range blocks {
		out[i] = b
		if b.Input != nil {
			out[i].Input, _ = walkStrings(b.Input, fill).(map[string]any)
		}
	}
	return out
}

func hasPlaceholder(blocks []Block) bool {
	for _, b := range blocks {
		if b.Input != nil {
			found := false
			walkStrings(b.Input, func(s string) string {
				found = found || placeholder.MatchString(s)
				return s
			})
			if found {
				return true
			}
		}
	}
	return false
}

// walkStrings returns v with every string in it passed through f.
func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = walkStrings(e, f)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = walkStrings(e, f)
		}
		return l
	}
	return v
}
