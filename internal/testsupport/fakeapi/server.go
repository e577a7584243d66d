package fakeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Kind says what sort of request the [Server] took a request for.
type Kind string

// The kinds of request.
const (
	// KindMain is a Messages request with tools: the conversation itself,
	// answered by the scenario's rules.
	KindMain Kind = "main"
	// KindSide is a Messages request without tools: a session title, a
	// quota check, topic detection, a summary. It gets a short text.
	KindSide Kind = "side"
	// KindCountTokens is a POST /v1/messages/count_tokens.
	KindCountTokens Kind = "count_tokens"
	// KindOther is anything else; it gets a 404 (or a 200 for GET /).
	KindOther Kind = "other"
)

// Request is one recorded HTTP request.
type Request struct {
	Seq    int    `json:"seq"` // 1, 2, … in arrival order
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	Kind   Kind   `json:"kind"`
	// The fields below are set for Messages requests.
	Model     string   `json:"model,omitempty"`
	Stream    bool     `json:"stream,omitempty"`
	MaxTokens int      `json:"max_tokens,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	// Text is the text of the last message, <system-reminder> blocks
	// included.
	Text string `json:"text,omitempty"`
	// Reply names what answered: a rule ("rule 2 (ask)"), "default",
	// "title", "side", or the HTTP status for errors.
	Reply string `json:"reply"`
	// Bodies are not kept: every request repeats the whole conversation, so
	// keeping them grows with the square of its length (see WithBodyDir).
}

// ToolResult is a tool_result block Claude Code sent back, recorded once per
// tool_use id in the order first seen.
type ToolResult struct {
	ToolUseID string `json:"tool_use_id"`
	// Content is the result's text; an array of blocks is joined with "\n".
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	// Request is the [Request.Seq] that carried it first.
	Request int `json:"request"`
}

// Option configures a [Server].
type Option func(*config)

type config struct {
	addr       string
	logf       func(format string, args ...any)
	resultLog  io.Writer
	requestLog io.Writer
	bodyDir    string
}

// WithAddr sets the address [Start] listens on; the host must be a loopback
// address. The default is 127.0.0.1:0.
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithLogf sends the server's diagnostics (unknown paths, bad bodies) to
// logf, e.g. t.Logf or log.Printf.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(c *config) { c.logf = logf }
}

// WithToolResultLog writes every new [ToolResult] to w as one JSON line.
func WithToolResultLog(w io.Writer) Option { return func(c *config) { c.resultLog = w } }

// WithRequestLog writes every [Request] (without its body) to w as one JSON
// line.
func WithRequestLog(w io.Writer) Option { return func(c *config) { c.requestLog = w } }

// WithBodyDir saves every request body, as received, to dir/NNNN.json (NNNN
// being [Request.Seq]), for finding out what Claude Code sends.
func WithBodyDir(dir string) Option { return func(c *config) { c.bodyDir = dir } }

// Server is the fake API. It is an [http.Handler], so it can run under
// httptest; [Start] runs it on its own loopback listener.
type Server struct {
	sc  *Scenario
	cfg config

	mu       sync.Mutex
	requests []Request
	results  []ToolResult
	seen     map[string]bool
	changed  chan struct{} // closed and replaced when something is recorded
	reqN     int           // requests numbered
	msgN     int           // message ids handed out
	toolN    int           // tool_use ids generated

	ln  net.Listener
	hs  *http.Server
	url string
}

var _ http.Handler = (*Server)(nil)

// New checks the scenario and returns a server that is not listening; serve
// it with httptest or any [http.Server]. A nil scenario answers "ok" to
// everything.
func New(sc *Scenario, opts ...Option) (*Server, error) {
	if sc == nil {
		sc = &Scenario{}
	}
	if err := sc.Check(); err != nil {
		return nil, fmt.Errorf("fakeapi: scenario: %w", err)
	}
	cfg := config{addr: "127.0.0.1:0", logf: func(string, ...any) {}}
	for _, o := range opts {
		o(&cfg)
	}
	return &Server{sc: sc, cfg: cfg, seen: map[string]bool{}, changed: make(chan struct{})}, nil
}

// Start is [New] plus a listener on loopback (127.0.0.1 and a free port
// unless [WithAddr] says otherwise). Stop it with [Server.Close].
func Start(sc *Scenario, opts ...Option) (*Server, error) {
	s, err := New(sc, opts...)
	if err != nil {
		return nil, err
	}
	if err := checkLoopback(s.cfg.addr); err != nil {
		return nil, fmt.Errorf("fakeapi: %w", err)
	}
	ln, err := net.Listen("tcp", s.cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("fakeapi: listen: %w", err)
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.hs = &http.Server{Handler: s}
	go s.hs.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Close.
	return s, nil
}

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("address %q: not a loopback address", addr)
	}
	return nil
}

// URL returns the base URL for ANTHROPIC_BASE_URL, e.g. http://127.0.0.1:41234,
// or "" when the server was made with [New].
func (s *Server) URL() string { return s.url }

// Close stops a server made by [Start]; for one made by [New] it does
// nothing.
func (s *Server) Close() error {
	if s.hs == nil {
		return nil
	}
	if err := s.hs.Close(); err != nil {
		return fmt.Errorf("fakeapi: close: %w", err)
	}
	return nil
}

// Requests returns a copy of the requests recorded so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ToolResults returns a copy of the tool results recorded so far, in the order
// first seen.
func (s *Server) ToolResults() []ToolResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ToolResult(nil), s.results...)
}

// WaitToolResult waits until a tool_result for toolUseID has arrived, or any
// tool_result when toolUseID is empty. When ctx ends first, the error lists
// the tool results and requests seen so far.
func (s *Server) WaitToolResult(ctx context.Context, toolUseID string) (ToolResult, error) {
	for {
		s.mu.Lock()
		for _, r := range s.results {
			if toolUseID == "" || r.ToolUseID == toolUseID {
				s.mu.Unlock()
				return r, nil
			}
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			want := "any tool_result"
			if toolUseID != "" {
				want = fmt.Sprintf("tool_result for %s", toolUseID)
			}
			return ToolResult{}, fmt.Errorf("fakeapi: wait for %s: %w; %s", want, ctx.Err(), s.seenSoFar())
		}
	}
}

// seenSoFar describes what has been recorded, for errors.
func (s *Server) seenSoFar() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "seen %d tool results", len(s.results))
	for _, r := range s.results {
		fmt.Fprintf(&b, "; %s (is_error=%t): %q", r.ToolUseID, r.IsError, shorten(r.Content, 120))
	}
	fmt.Fprintf(&b, "; %d requests", len(s.requests))
	for _, r := range s.requests {
		fmt.Fprintf(&b, "; #%d %s %s %s -> %s", r.Seq, r.Method, r.Path, r.Kind, r.Reply)
	}
	return b.String()
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// record stores a finished request and any new tool results in body.
func (s *Server) record(req Request, body *apiRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if s.cfg.requestLog != nil {
		writeJSONLine(s.cfg.requestLog, req)
	}
	if body != nil {
		// Every request repeats the history, so look at all user messages
		// and keep each tool_use id once.
		for _, m := range body.Messages {
			if m.Role != "user" {
				continue
			}
			for _, tr := range reduce(m).ToolResults {
				if s.seen[tr.ToolUseID] {
					continue
				}
				s.seen[tr.ToolUseID] = true
				tr.Request = req.Seq
				s.results = append(s.results, tr)
				if s.cfg.resultLog != nil {
					writeJSONLine(s.cfg.resultLog, tr)
				}
			}
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

func writeJSONLine(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	w.Write(append(b, '\n')) //nolint:errcheck // A log that cannot be written is not the test's failure.
}

// ServeHTTP answers one request; see the package documentation.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqN++
	seq := s.reqN
	s.mu.Unlock()

	req := Request{Seq: seq, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Kind: KindOther}
	w.Header().Set("request-id", fmt.Sprintf("req_fake_%06d", seq))

	switch {
	case (r.URL.Path == "/" || r.URL.Path == "/api/hello") && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		// Claude Code probes HEAD /api/hello (2.1.330) or HEAD / (2.1.197)
		// for connectivity.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			io.WriteString(w, "fakeapi\n") //nolint:errcheck
		}
		req.Reply = "200"
		s.record(req, nil)
	case r.URL.Path == "/v1/messages/count_tokens" && r.Method == http.MethodPost:
		req.Kind = KindCountTokens
		body, err := readBody(r, s.cfg.bodyDir, seq)
		s.fill(&req, body)
		if err != nil {
			s.fail(w, &req, http.StatusBadRequest, "invalid_request_error", err.Error())
			s.record(req, nil)
			return
		}
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": 100})
		req.Reply = "count_tokens"
		s.record(req, body)
	case r.URL.Path == "/v1/messages" && r.Method == http.MethodPost:
		body, err := readBody(r, s.cfg.bodyDir, seq)
		s.fill(&req, body)
		if err != nil {
			s.fail(w, &req, http.StatusBadRequest, "invalid_request_error", err.Error())
			s.record(req, nil)
			return
		}
		rep := s.reply(&req, body)
		// Record before answering, so a test that sees the answer also
		// sees the request.
		s.record(req, body)
		msg := s.message(body.Model, rep)
		if body.Stream {
			writeStream(w, msg)
		} else {
			writeJSON(w, http.StatusOK, msg)
		}
	default:
		s.fail(w, &req, http.StatusNotFound, "not_found_error",
			fmt.Sprintf("fakeapi: no route for %s %s", r.Method, r.URL.Path))
		s.record(req, nil)
	}
}

// fill copies the request body's fields into req.
func (s *Server) fill(req *Request, body *apiRequest) {
	if body == nil {
		return
	}
	req.Model = body.Model
	req.Stream = body.Stream
	req.MaxTokens = body.MaxTokens
	req.Tools = body.toolNames()
	req.Text = body.last().Text
	if req.Kind == KindOther {
		req.Kind = KindMain
		if len(body.Tools) == 0 {
			req.Kind = KindSide
		}
	}
}

func (s *Server) fail(w http.ResponseWriter, req *Request, status int, typ, msg string) {
	s.cfg.logf("fakeapi: %s %s: %d %s", req.Method, req.Path, status, msg)
	req.Reply = fmt.Sprint(status)
	writeJSON(w, status, map[string]any{
		"type":  "error",
		"error": map[string]string{"type": typ, "message": msg},
	})
}

const maxBody = 64 << 20

func readBody(r *http.Request, dir string, seq int) (*apiRequest, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if dir != "" {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%04d.json", seq)), data, 0o644) //nolint:errcheck // Debugging aid.
	}
	var body apiRequest
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, fmt.Errorf("body is not a JSON object: %w", err)
	}
	return &body, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b) //nolint:errcheck // The client went away.
}
