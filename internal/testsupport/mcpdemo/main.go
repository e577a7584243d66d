// Command mcpdemo is a small MCP server (stdio, newline-delimited JSON-RPC)
// for the end-to-end tests: its one tool, deploy, asks the person for input
// with elicitation/create and appends what the client answered, as one JSON
// line, to the file -log names, then returns it to Claude as the tool's
// result. It is test support, never part of a release.
//
// With -command, it also runs CMD (sh -c) once it has asked, as a server
// that tries to answer its own form would.
//
//	mcpdemo -log FILE [-message TEXT] [-schema JSON] [-command CMD]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// defaultSchema is an enum the person must choose and a boolean they may.
const defaultSchema = `{"type":"object","properties":{` +
	`"env":{"type":"string","title":"Environment","enum":["staging","production"]},` +
	`"confirm":{"type":"boolean","title":"Really deploy?"}},"required":["env"]}`

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func main() {
	logPath := flag.String("log", "", "append each elicitation's answer to this file")
	text := flag.String("message", "Which environment should I deploy to?", "the elicitation's message")
	schema := flag.String("schema", defaultSchema, "the elicitation's requested schema (JSON)")
	command := flag.String("command", "", "run this (sh -c) once the elicitation is sent")
	flag.Parse()
	if !json.Valid([]byte(*schema)) {
		fmt.Fprintln(os.Stderr, "mcpdemo: -schema is not JSON")
		os.Exit(2)
	}
	s := &server{out: json.NewEncoder(os.Stdout), log: *logPath, text: *text, schema: json.RawMessage(*schema),
		command: *command, waiting: map[string]chan message{}}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	for in.Scan() {
		var m message
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		s.handle(m)
	}
}

type server struct {
	mu      sync.Mutex
	out     *json.Encoder
	log     string
	text    string
	schema  json.RawMessage
	command string
	form    bool // the client declared elicitation's form mode
	next    int
	waiting map[string]chan message
}

func (s *server) send(m message) {
	m.JSONRPC = "2.0"
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.out.Encode(m)
}

func (s *server) reply(id json.RawMessage, result any) {
	b, _ := json.Marshal(result)
	s.send(message{ID: id, Result: b})
}

func (s *server) handle(m message) {
	if m.Method == "" { // a response to one of ours
		s.mu.Lock()
		ch := s.waiting[string(m.ID)]
		delete(s.waiting, string(m.ID))
		s.mu.Unlock()
		if ch != nil {
			ch <- m
		}
		return
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
			Capabilities    struct {
				Elicitation map[string]json.RawMessage `json:"elicitation"`
			} `json:"capabilities"`
		}
		_ = json.Unmarshal(m.Params, &p)
		_, s.form = p.Capabilities.Elicitation["form"]
		s.reply(m.ID, map[string]any{"protocolVersion": p.ProtocolVersion,
			"capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo":   map[string]any{"name": "demo", "version": "1.0.0"}})
	case "tools/list":
		s.reply(m.ID, map[string]any{"tools": []map[string]any{{
			"name": "deploy", "description": "Deploy the project; asks the person where.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}})
	case "tools/call":
		go s.deploy(m.ID)
	case "ping":
		s.reply(m.ID, map[string]any{})
	default:
		if len(m.ID) > 0 {
			s.send(message{ID: m.ID, Error: json.RawMessage(`{"code":-32601,"message":"method not found"}`)})
		}
	}
}

// deploy asks the client and reports what it answered.
func (s *server) deploy(call json.RawMessage) {
	s.mu.Lock()
	s.next++
	id := json.RawMessage(fmt.Sprintf(`"elicit-%d"`, s.next))
	ch := make(chan message, 1)
	s.waiting[string(id)] = ch
	form := s.form
	s.mu.Unlock()
	params := map[string]any{"message": s.text, "requestedSchema": s.schema}
	if form {
		params["mode"] = "form"
	}
	b, _ := json.Marshal(params)
	s.send(message{ID: id, Method: "elicitation/create", Params: b})
	if s.command != "" {
		cmd := exec.Command("/bin/sh", "-c", s.command)
		if cmd.Start() == nil {
			go cmd.Wait()
		}
	}
	got := <-ch
	answer := got.Result
	if len(answer) == 0 {
		answer, _ = json.Marshal(map[string]any{"error": got.Error})
	}
	if s.log != "" {
		if f, err := os.OpenFile(s.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			_, _ = f.Write(append(append([]byte{}, answer...), '\n'))
			_ = f.Close()
		}
	}
	s.reply(call, map[string]any{"content": []map[string]any{{"type": "text", "text": "deploy: the person answered " + string(answer)}}})
}
