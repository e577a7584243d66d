package fakeapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// newTestServer serves sc under httptest and returns the fake and its URL.
func newTestServer(t *testing.T, sc *Scenario, opts ...Option) (*Server, string) {
	t.Helper()
	opts = append([]Option{WithLogf(t.Logf)}, opts...)
	s, err := New(sc, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts.URL
}

func loadTestdata(t *testing.T, name string) *Scenario {
	t.Helper()
	sc, err := Load("../../../testdata/scenarios/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// post sends body (marshalled unless already []byte) and returns the response.
func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	data, ok := body.([]byte)
	if !ok {
		var err error
		if data, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sseEvent struct {
	Name string
	Data map[string]any
	Raw  string
}

// readSSE parses a server-sent event stream, checking its framing.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name == "" || cur.Raw == "" {
				t.Fatalf("event %d: incomplete: %+v", len(events), cur)
			}
			events = append(events, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Raw = strings.TrimPrefix(line, "data: ")
			if err := json.Unmarshal([]byte(cur.Raw), &cur.Data); err != nil {
				t.Fatalf("event %q: data is not JSON: %v: %s", cur.Name, err, cur.Raw)
			}
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur.Name != "" {
		t.Fatalf("stream ends inside event %q", cur.Name)
	}
	return events
}

var tools = []map[string]any{{"name": "AskUserQuestion", "input_schema": map[string]any{"type": "object"}}}

// userTurn is how Claude Code 2.1.330 sends a first prompt: a system reminder
// block, the prompt, then a role "system" message.
func userTurn(prompt string) []map[string]any {
	return []map[string]any{
		{"role": "user", "content": []map[string]any{
			{"type": "text", "text": "<system-reminder>\nAttribution for git commits\n</system-reminder>"},
			{"type": "text", "text": prompt},
		}},
		{"role": "system", "content": "# Environment\nPrimary working directory: /tmp/x"},
	}
}

func TestStreamAskUserQuestion(t *testing.T) {
	_, url := newTestServer(t, loadTestdata(t, "database.yaml"))
	resp := post(t, url+"/v1/messages?beta=true", map[string]any{
		"model": "claude-opus-5-5", "stream": true, "max_tokens": 128000,
		"tools": tools, "messages": userTurn("pick a database"),
	})
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	if id := resp.Header.Get("request-id"); !strings.HasPrefix(id, "req_") {
		t.Errorf("request-id %q", id)
	}
	events := readSSE(t, resp.Body)

	var names []string
	for _, e := range events {
		names = append(names, e.Name)
		if e.Data["type"] != e.Name {
			t.Errorf("event %s: data type %v", e.Name, e.Data["type"])
		}
		if !strings.HasPrefix(e.Raw, `{"type":`) {
			t.Errorf("event %s: type is not the first key: %s", e.Name, e.Raw)
		}
	}
	want := []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("events\n got %v\nwant %v", names, want)
	}

	start := events[0].Data["message"].(map[string]any)
	if start["model"] != "claude-opus-5-5" || start["role"] != "assistant" || start["stop_reason"] != nil {
		t.Errorf("message_start: %s", events[0].Raw)
	}
	if !strings.HasPrefix(start["id"].(string), "msg_") {
		t.Errorf("message id %v", start["id"])
	}
	if content := start["content"].([]any); len(content) != 0 {
		t.Errorf("message_start content %v", content)
	}
	u := start["usage"].(map[string]any)
	for _, k := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
		if _, ok := u[k]; !ok {
			t.Errorf("message_start usage lacks %s", k)
		}
	}

	if got := events[2].Raw; got != `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` {
		t.Errorf("text block start %s", got)
	}
	if d := events[3].Data["delta"].(map[string]any); d["type"] != "text_delta" || d["text"] != "Let me ask you about the database." {
		t.Errorf("text delta %s", events[3].Raw)
	}
	if got := events[5].Raw; got != `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01database","name":"AskUserQuestion","input":{}}}` {
		t.Errorf("tool_use block start %s", got)
	}
	d := events[6].Data["delta"].(map[string]any)
	if d["type"] != "input_json_delta" || events[6].Data["index"] != 1.0 {
		t.Fatalf("tool delta %s", events[6].Raw)
	}
	var input struct {
		Questions []struct {
			Question string
			Header   string
			Options  []struct{ Label, Description string }
		}
	}
	if err := json.Unmarshal([]byte(d["partial_json"].(string)), &input); err != nil {
		t.Fatalf("partial_json: %v", err)
	}
	if len(input.Questions) != 1 || input.Questions[0].Header != "Database" ||
		input.Questions[0].Question != "Which database should we use?" ||
		len(input.Questions[0].Options) != 3 || input.Questions[0].Options[1].Label != "SQLite" ||
		input.Questions[0].Options[1].Description != "Embedded, simple" {
		t.Errorf("input %+v", input)
	}
	md := events[8].Data
	if got := md["delta"].(map[string]any); got["stop_reason"] != "tool_use" || got["stop_sequence"] != nil {
		t.Errorf("message_delta %s", events[8].Raw)
	}
	if _, ok := md["usage"].(map[string]any)["output_tokens"]; !ok {
		t.Errorf("message_delta usage %s", events[8].Raw)
	}
}

func TestNonStreaming(t *testing.T) {
	_, url := newTestServer(t, loadTestdata(t, "hello.yaml"))
	resp := post(t, url+"/v1/messages", map[string]any{
		"model": "m1", "max_tokens": 10, "tools": tools,
		"messages": []map[string]any{{"role": "user", "content": "say hello"}},
	})
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var msg struct {
		ID, Type, Role, Model string
		Content               []map[string]any
		StopReason            string `json:"stop_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.Role != "assistant" || msg.Model != "m1" || msg.StopReason != "end_turn" ||
		len(msg.Content) != 1 || msg.Content[0]["text"] != "Hello from the fake API." {
		t.Errorf("message %+v", msg)
	}
}

// replyText sends a non-streaming request with tools and returns the first
// content block's text, or the tool_use id.
func replyText(t *testing.T, url string, messages any) string {
	t.Helper()
	resp := post(t, url+"/v1/messages", map[string]any{"model": "m", "tools": tools, "messages": messages})
	var msg struct{ Content []map[string]any }
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) == 0 {
		t.Fatal("empty content")
	}
	if msg.Content[0]["type"] == "tool_use" {
		return "tool_use " + msg.Content[0]["id"].(string)
	}
	return msg.Content[0]["text"].(string)
}

func TestMatching(t *testing.T) {
	yes, no := true, false
	sc := &Scenario{Rules: []Rule{
		{When: Match{TextContains: "pick a database"}, Reply: []Block{{Type: "text", Text: "text rule"}}},
		{When: Match{ToolResultFor: "toolu_A", IsError: &no}, Reply: []Block{{Type: "text", Text: "A answered"}}},
		{When: Match{ToolResultFor: "toolu_A", IsError: &yes}, Reply: []Block{{Type: "text", Text: "A refused"}}},
		{When: Match{ToolResultContains: "SQLite"}, Reply: []Block{{Type: "text", Text: "sqlite"}}},
		{When: Match{TextContains: "ask me"}, Reply: []Block{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": "ls"}}}},
	}}
	_, url := newTestServer(t, sc)
	user := func(content any) map[string]any { return map[string]any{"role": "user", "content": content} }
	result := func(id string, content any, isErr bool) map[string]any {
		return map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr}
	}
	tests := []struct {
		name     string
		messages []map[string]any
		want     string
	}{
		{"string content", []map[string]any{user("please pick a database now")}, "text rule"},
		{"text blocks", []map[string]any{user([]map[string]any{{"type": "text", "text": "pick a database"}})}, "text rule"},
		{"system reminder then text", userTurn("pick a database"), "text rule"},
		{"match spans reminder", []map[string]any{user([]map[string]any{
			{"type": "text", "text": "<system-reminder>x</system-reminder>"}, {"type": "text", "text": "nothing"}})}, "ok"},
		{"only the last user message", []map[string]any{
			user("pick a database"),
			{"role": "assistant", "content": "sure"},
			user("something else"),
		}, "ok"},
		{"tool_result string", []map[string]any{user([]map[string]any{result("toolu_A", "fine", false)})}, "A answered"},
		{"tool_result is_error", []map[string]any{user([]map[string]any{result("toolu_A", "no", true)})}, "A refused"},
		{"tool_result blocks", []map[string]any{user([]map[string]any{
			result("toolu_B", []map[string]any{{"type": "text", "text": `"Which?"="SQLite"`}}, false)})}, "sqlite"},
		{"tool_result other id", []map[string]any{user([]map[string]any{result("toolu_C", "x", false)})}, "ok"},
		{"generated tool id", []map[string]any{user("ask me")}, "tool_use toolu_010000000000000000000001"},
		{"generated tool id counts", []map[string]any{user("ask me")}, "tool_use toolu_010000000000000000000002"},
		{"no messages", []map[string]any{}, "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := replyText(t, url, tt.messages); got != tt.want {
				t.Errorf("reply %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDefaultReply(t *testing.T) {
	_, url := newTestServer(t, &Scenario{Default: []Block{{Type: "text", Text: "fallback"}}})
	if got := replyText(t, url, userTurn("anything")); got != "fallback" {
		t.Errorf("reply %q", got)
	}
}

func TestToolResultRecording(t *testing.T) {
	var log bytes.Buffer
	s, url := newTestServer(t, loadTestdata(t, "database.yaml"), WithToolResultLog(&log))
	history := userTurn("pick a database")
	history = append(history,
		map[string]any{"role": "assistant", "content": []map[string]any{
			{"type": "tool_use", "id": "toolu_01database", "name": "AskUserQuestion", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []map[string]any{
			{"type": "tool_result", "tool_use_id": "toolu_01database", "content": `Your questions have been answered: "Which database should we use?"="SQLite". You can now continue with these answers in mind.`}}},
	)
	if got := replyText(t, url, history); got != "Thanks, noted." {
		t.Errorf("reply %q", got)
	}
	// The next turn repeats the history and adds an error result made of blocks.
	history = append(history,
		map[string]any{"role": "assistant", "content": []map[string]any{
			{"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []map[string]any{
			{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true,
				"content": []map[string]any{{"type": "text", "text": "line 1"}, {"type": "image"}, {"type": "text", "text": "line 2"}}},
			{"type": "text", "text": "<system-reminder>r</system-reminder>"}}},
	)
	replyText(t, url, history)

	want := []ToolResult{
		{ToolUseID: "toolu_01database", Content: `Your questions have been answered: "Which database should we use?"="SQLite". You can now continue with these answers in mind.`, Request: 1},
		{ToolUseID: "toolu_2", Content: "line 1\nline 2", IsError: true, Request: 2},
	}
	if got := s.ToolResults(); !reflect.DeepEqual(got, want) {
		t.Errorf("ToolResults\n got %+v\nwant %+v", got, want)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"tool_use_id":"toolu_2"`) {
		t.Errorf("log %q", log.String())
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Kind != KindMain || reqs[0].Reply != "rule 2 (answered)" {
		t.Errorf("requests %+v", reqs)
	}
}

func TestWaitToolResult(t *testing.T) {
	s, url := newTestServer(t, nil)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	replyText(t, url, []map[string]any{{"role": "user", "content": []map[string]any{
		{"type": "tool_result", "tool_use_id": "toolu_other", "content": "other answer"}}}})
	_, err := s.WaitToolResult(ctx, "toolu_want")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want deadline exceeded", err)
	}
	for _, want := range []string{"toolu_want", "toolu_other", "other answer", "1 requests"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}

	// A result that arrives while waiting ends the wait.
	var wg sync.WaitGroup
	var got ToolResult
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		got, werr = s.WaitToolResult(ctx, "toolu_want")
	}()
	replyText(t, url, []map[string]any{{"role": "user", "content": []map[string]any{
		{"type": "tool_result", "tool_use_id": "toolu_want", "content": "yes"}}}})
	wg.Wait()
	if werr != nil || got.Content != "yes" || got.Request != 2 {
		t.Errorf("got %+v, %v", got, werr)
	}
	// Empty id: the first result.
	if r, err := s.WaitToolResult(context.Background(), ""); err != nil || r.ToolUseID != "toolu_other" {
		t.Errorf("any: %+v, %v", r, err)
	}
}

func TestSideRequests(t *testing.T) {
	_, url := newTestServer(t, &Scenario{
		Title: "Pick a database",
		Rules: []Rule{{When: Match{TextContains: "pick a database"}, Reply: []Block{{Type: "tool_use", Name: "Bash"}}}},
	})
	titleSchema := map[string]any{"type": "json_schema", "schema": map[string]any{
		"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}, "required": []string{"title"}}}
	tests := []struct {
		name string
		body map[string]any
		want string
	}{
		{"title with json schema (2.1.197)", map[string]any{
			"tools": []any{}, "output_config": map[string]any{"effort": "high", "format": titleSchema},
			"messages": []map[string]any{{"role": "user", "content": []map[string]any{{"type": "text",
				"text": "<session>\npick a database\n</session>\n\nWrite the title in the language the user wrote in"}}}},
		}, `{"title":"Pick a database"}`},
		{"title as text", map[string]any{
			"messages": []map[string]any{{"role": "user", "content": "Please write a 5-10 word title for this"}},
		}, "Pick a database"},
		{"quota check", map[string]any{
			"max_tokens": 1, "messages": []map[string]any{{"role": "user", "content": "quota"}},
		}, "ok"},
		{"other schema", map[string]any{
			"output_format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object",
				"properties": map[string]any{"isNewTopic": map[string]any{"type": "boolean"}, "n": map[string]any{"type": "integer"}}}},
			"messages": []map[string]any{{"role": "user", "content": "topic?"}},
		}, `{"isNewTopic":false,"n":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.body["model"] = "m"
			resp := post(t, url+"/v1/messages?beta=true", tt.body)
			var msg struct{ Content []map[string]any }
			if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
				t.Fatal(err)
			}
			if len(msg.Content) != 1 || msg.Content[0]["text"] != tt.want {
				t.Errorf("content %v, want text %q", msg.Content, tt.want)
			}
		})
	}
}

func TestOtherRoutes(t *testing.T) {
	var logged []string
	var mu sync.Mutex
	s, url := newTestServer(t, nil, WithLogf(func(f string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, f)
	}))

	resp := post(t, url+"/v1/messages/count_tokens?beta=true", map[string]any{"model": "m", "messages": []any{}})
	var ct map[string]int
	if err := json.NewDecoder(resp.Body).Decode(&ct); err != nil || ct["input_tokens"] != 100 {
		t.Errorf("count_tokens %v %v", ct, err)
	}

	for _, path := range []string{"/", "/api/hello"} {
		for _, m := range []string{http.MethodHead, http.MethodGet} {
			req, _ := http.NewRequest(m, url+path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("%s %s: %d", m, path, resp.StatusCode)
			}
		}
	}

	resp = post(t, url+"/api/oauth/whatever", map[string]any{})
	var apiErr struct {
		Type  string
		Error struct{ Type, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&apiErr); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 404 || apiErr.Type != "error" || apiErr.Error.Type != "not_found_error" ||
		!strings.Contains(apiErr.Error.Message, "/api/oauth/whatever") {
		t.Errorf("404: %d %+v", resp.StatusCode, apiErr)
	}

	resp = post(t, url+"/v1/messages", []byte("not json"))
	if resp.StatusCode != 400 {
		t.Errorf("bad body: %d", resp.StatusCode)
	}

	mu.Lock()
	if len(logged) != 2 {
		t.Errorf("logged %q, want the 404 and the 400", logged)
	}
	mu.Unlock()
	var kinds []Kind
	for _, r := range s.Requests() {
		kinds = append(kinds, r.Kind)
	}
	if want := []Kind{KindCountTokens, KindOther, KindOther, KindOther, KindOther, KindOther, KindOther}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
}

func TestStart(t *testing.T) {
	if _, err := Start(nil, WithAddr("0.0.0.0:0")); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("Start on 0.0.0.0: %v", err)
	}
	s, err := Start(loadTestdata(t, "hello.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %q", s.URL())
	}
	if got := replyText(t, s.URL(), userTurn("hello")); got != "Hello from the fake API." {
		t.Errorf("reply %q", got)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if _, err := http.Get(s.URL() + "/"); err == nil {
		t.Error("server still answers after Close")
	}
}
