package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

//go:embed static
var static embed.FS

// Sessions is what the page shows and answers; from names the answer's
// sender to the session.
type Sessions interface {
	Pending(ctx context.Context) ([]Form, error)
	Answer(ctx context.Context, session, toolUseID, from string, ds []answer.Decision) (remote.Outcome, error)
	AnswerElicitation(ctx context.Context, session, id, from string, a remote.ElicitAnswer) (remote.Outcome, error)
}

// Form is a form the page shows. A form of an inbox's (every machine's
// forms) names where it waits, and the page groups forms by machine; its
// Session is then its id in the inbox.
type Form struct {
	remote.Form
	Machine       string `json:"machine,omitempty"`
	User          string `json:"user,omitempty"`
	ClaudeVersion string `json:"claude_version,omitempty"`
}

// Server is the page's HTTP server.
type Server struct {
	Token string
	// Log, when set before Serve, gets one human line for each answer
	// posted and each request refused, and nothing else.
	Log      io.Writer
	logMu    sync.Mutex
	sessions Sessions
	ln       net.Listener
	srv      *http.Server
}

// Listen opens addr ("" is 127.0.0.1 on a free port) with a new token.
func Listen(addr string, s Sessions) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		ln.Close()
		return nil, err
	}
	srv := &Server{Token: hex.EncodeToString(b), sessions: s, ln: ln}
	srv.srv = &http.Server{Handler: srv.handler(), ReadHeaderTimeout: 10 * time.Second,
		// A body dribbled or a connection kept idle is let go; no write
		// timeout, since an answer waits up to remote.AnswerWait for Claude.
		ReadTimeout: 30 * time.Second, IdleTimeout: time.Minute}
	return srv, nil
}

// URL is the page's address, token included.
func (s *Server) URL() string {
	return s.URLs()[0]
}

// URLs are the addresses the page can be opened at, token included: the
// one it listens on; for an address that is every interface's (0.0.0.0,
// ::), which no browser opens, this machine's loopback first, then each
// address of its interfaces (link-local ones left out: they need a zone).
func (s *Server) URLs() []string {
	a, ok := s.ln.Addr().(*net.TCPAddr)
	if !ok || !a.IP.IsUnspecified() {
		return []string{s.url(s.ln.Addr().String())}
	}
	port := strconv.Itoa(a.Port)
	urls := []string{s.url(net.JoinHostPort("127.0.0.1", port))}
	addrs, _ := net.InterfaceAddrs()
	for _, ad := range addrs {
		n, ok := ad.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() {
			continue
		}
		urls = append(urls, s.url(net.JoinHostPort(n.IP.String(), port)))
	}
	return urls
}

func (s *Server) url(hostPort string) string {
	return fmt.Sprintf("http://%s/?t=%s", hostPort, s.Token)
}

// Serve serves until ctx ends.
func (s *Server) Serve(ctx context.Context) error {
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s.srv.Shutdown(sctx)
	}()
	err := s.srv.Serve(s.ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Loopback reports whether the server listens on loopback only.
func (s *Server) Loopback() bool {
	a, ok := s.ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		b, _ := static.ReadFile("static/index.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'")
		w.Write(b)
	})
	mux.HandleFunc("GET /api/pending", func(w http.ResponseWriter, r *http.Request) {
		forms, err := s.sessions.Pending(r.Context())
		if err != nil {
			httpError(w, http.StatusInternalServerError, err.Error())
			return
		}
		if forms == nil {
			forms = []Form{}
		}
		writeJSON(w, http.StatusOK, forms)
	})
	mux.HandleFunc("POST /api/answer", s.answer)
	// The script and the style hold no data: served without the token.
	open := http.NewServeMux()
	open.HandleFunc("GET /app.js", s.file("static/app.js", "text/javascript; charset=utf-8"))
	open.HandleFunc("GET /app.css", s.file("static/app.css", "text/css; charset=utf-8"))
	// Asked by every browser, without the token: not found, not refused.
	open.HandleFunc("GET /favicon.ico", http.NotFound)
	open.Handle("/", s.guard(mux))
	return open
}

func (s *Server) file(name, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := static.ReadFile(name)
		w.Header().Set("Content-Type", ctype)
		w.Write(b)
	}
}

// guard lets through only requests with the token (in the URL's t, or
// the X-Claudewrap-Token header the page sends), for this server's own
// host name (no DNS rebinding), and no request that changes anything
// from another site's page ([Server.crossSite]).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := r.URL.Query().Get("t")
		if h := r.Header.Get("X-Claudewrap-Token"); h != "" {
			tok = h
		}
		why := ""
		switch {
		case subtle.ConstantTimeCompare([]byte(tok), []byte(s.Token)) != 1:
			why = "a token is required: open the address claudewrap serve printed"
		case !s.hostAllowed(r.Host):
			why = "unknown host " + r.Host
		default:
			why = s.crossSite(r)
		}
		if why == "" && r.Method == http.MethodPost && r.Header.Get("X-Claudewrap-Token") == "" {
			why = "answers carry the token in X-Claudewrap-Token"
		}
		if why != "" {
			// The path alone: a query may hold a token.
			s.logf("refused %s %s from %s: %s", r.Method, clip(r.URL.Path), remoteHost(r), clip(why))
			httpError(w, http.StatusForbidden, why)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) hostAllowed(host string) bool {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	_, myPort, _ := net.SplitHostPort(s.ln.Addr().String())
	if port != "" && port != myPort {
		return false
	}
	if ip := net.ParseIP(h); ip != nil {
		return true // an address, not a name someone else controls
	}
	return h == "localhost"
}

// crossSite says why r, if it changes anything, came from a page other
// than this one, or "": a browser names the page that sent it in Origin
// (the page's scheme://host:port, or "null" from a sandboxed or local
// page) and Sec-Fetch-Site. A request with neither (curl, a script) is no
// browser's, and the token alone admits it.
func (s *Server) crossSite(r *http.Request) string {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return ""
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		// Same-site is another port or subdomain: another program's page.
		return "a request from another site's page (Sec-Fetch-Site: " + site + ")"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	o, ok := canonicalOrigin(origin)
	if ok && o == canonicalHost(r.Host) {
		return ""
	}
	if ok {
		for _, u := range s.URLs() {
			if pu, err := url.Parse(u); err == nil && o == canonicalHost(pu.Host) {
				return ""
			}
		}
	}
	return fmt.Sprintf("a request from another page (Origin %q)", origin)
}

// canonicalOrigin is origin as "http://host[:port]" in lower case, port 80
// left out as browsers leave it out; ok is false for anything else ("null",
// https, a path).
func canonicalOrigin(origin string) (string, bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	return canonicalHost(u.Host), true
}

// canonicalHost is the origin of this page served at host (a Host header,
// or a URL's host:port), as canonicalOrigin writes it.
func canonicalHost(host string) string {
	return "http://" + strings.TrimSuffix(strings.ToLower(host), ":80")
}

// answerRequest is what the page posts: the form, and one answer per
// question, or the whole form's chat or cancel.
type answerRequest struct {
	Session   string       `json:"session"`
	ToolUseID string       `json:"tool_use_id"`
	Answers   []pageAnswer `json:"answers"`
	Chat      string       `json:"chat,omitempty"`
	Cancel    bool         `json:"cancel,omitempty"`
	// Elicit answers an MCP server's form.
	Elicit *remote.ElicitAnswer `json:"elicit,omitempty"`
}

// pageAnswer is the page's answer to one question.
type pageAnswer struct {
	Select []string `json:"select,omitempty"`
	Type   string   `json:"type,omitempty"`
	Notes  string   `json:"notes,omitempty"`
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	var req answerRequest
	// Logged before the page hears it: one line for each answer posted.
	logged := func(result string) {
		s.logf("answer from %s to session %s, form %s: %s", remoteHost(r), clip(req.Session), clip(req.ToolUseID), clip(result))
	}
	fail := func(status int, msg string) {
		logged("not sent: " + msg)
		httpError(w, status, msg)
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		fail(http.StatusBadRequest, "not an answer: "+err.Error())
		return
	}
	forms, err := s.sessions.Pending(r.Context())
	if err != nil {
		fail(http.StatusInternalServerError, err.Error())
		return
	}
	var form *remote.Form
	for i := range forms {
		if forms[i].Session == req.Session && forms[i].ToolUseID == req.ToolUseID {
			form = &forms[i].Form
		}
	}
	if form == nil {
		fail(http.StatusConflict, "this form no longer waits: answered elsewhere, or Claude moved on")
		return
	}
	from := remote.FromPage + " from " + remoteHost(r)
	var o remote.Outcome
	if form.Elicitation != nil {
		var a remote.ElicitAnswer
		if a, err = elicitAnswer(*form, req); err != nil {
			fail(http.StatusBadRequest, err.Error())
			return
		}
		o, err = s.sessions.AnswerElicitation(r.Context(), req.Session, req.ToolUseID, from, a)
	} else {
		var ds []answer.Decision
		if ds, err = decisions(*form, req); err != nil {
			fail(http.StatusBadRequest, err.Error())
			return
		}
		o, err = s.sessions.Answer(r.Context(), req.Session, req.ToolUseID, from, ds)
	}
	if err != nil {
		fail(http.StatusBadGateway, err.Error())
		return
	}
	result := o.Result
	if o.Message != "" {
		result += ": " + o.Message
	}
	logged(result)
	writeJSON(w, http.StatusOK, o)
}

// logf writes one line to s.Log, stamped with the time, every character a
// terminal would act on escaped (the session, the form and the reasons
// come from the request).
func (s *Server) logf(format string, args ...any) {
	if s.Log == nil {
		return
	}
	line := "claudewrap: " + time.Now().Format("15:04:05") + " " + safe.Line(fmt.Sprintf(format, args...))
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintln(s.Log, line)
}

// remoteHost is the address r came from, without its port.
func remoteHost(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

// maxLogged bounds each piece of a request written to the log.
const maxLogged = 200

// clip is s cut to maxLogged bytes (on a character's boundary), marked
// when cut.
func clip(s string) string {
	if len(s) <= maxLogged {
		return s
	}
	i := maxLogged
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// elicitAnswer is the page's answer to an MCP server's form, its values
// checked against the server's schema as the session will check them.
func elicitAnswer(f remote.Form, req answerRequest) (remote.ElicitAnswer, error) {
	if req.Elicit == nil || len(req.Answers) > 0 || req.Chat != "" || req.Cancel {
		return remote.ElicitAnswer{}, errors.New("an MCP server's form is answered with accept, decline or cancel alone")
	}
	if _, err := rules.ElicitReply(f.Elicitation.Schema, req.Elicit.Action, req.Elicit.Values, "the values"); err != nil {
		return remote.ElicitAnswer{}, err
	}
	return *req.Elicit, nil
}

// decisions checks the page's answer against the questions it asks: those
// no rule answered (the session merges the rules' answers in).
func decisions(f remote.Form, req answerRequest) ([]answer.Decision, error) {
	if req.Elicit != nil {
		return nil, errors.New("accept, decline and cancel answer an MCP server's form; this form asks questions")
	}
	// Questions are named by their number in the form, as pending and the
	// page show them.
	qs, nums := f.OpenQuestions()
	if req.Chat != "" || req.Cancel {
		if req.Chat != "" && req.Cancel || len(req.Answers) > 0 {
			return nil, errors.New("chat and cancel answer the whole form alone")
		}
		d := answer.Decision{Action: answer.Cancel}
		if req.Chat != "" {
			d = answer.Decision{Action: answer.Chat, Text: req.Chat}
		}
		return checked(f, answer.WholeForm(d, len(qs)))
	}
	if len(req.Answers) != len(qs) {
		return nil, f.OpenCountError(len(req.Answers))
	}
	out := make([]answer.Decision, len(qs))
	for i, a := range req.Answers {
		var d answer.Decision
		switch {
		case len(a.Select) > 0 && a.Type != "":
			return nil, fmt.Errorf("question %d: pick options or type an answer, not both", nums[i])
		case len(a.Select) > 0:
			d = answer.Decision{Action: answer.Select, Labels: a.Select, Notes: a.Notes}
		case strings.TrimSpace(a.Type) != "" && a.Notes != "":
			return nil, fmt.Errorf("question %d: notes go with an option picked, not with a typed answer", nums[i])
		case strings.TrimSpace(a.Type) != "":
			d = answer.Decision{Action: answer.Type, Text: a.Type}
		default:
			return nil, fmt.Errorf("question %d (%q) has no answer", nums[i], qs[i].Question)
		}
		out[i] = d
	}
	return checked(f, out)
}

// checked is ds, the answers to f's open questions, once remote.Check
// holds, as the session will check them: what it would refuse is not sent.
func checked(f remote.Form, ds []answer.Decision) ([]answer.Decision, error) {
	if err := f.CheckOpen(ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// writeJSON writes v as JSON with every character a terminal acts on
// escaped (safe.JSON), as the events and pending --json are: a program
// that prints what the page's API says prints no control of a form's.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(v)
	w.Write(append(safe.JSON(b), '\n'))
}

func httpError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
