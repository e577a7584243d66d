package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/remote"
)

type fakeSessions struct {
	mu      sync.Mutex
	answers [][]answer.Decision
	from    []string
	elicits []remote.ElicitAnswer
	// gone, when set, is what answering says: the session went away.
	gone error
}

var multi = remote.Form{Session: "42", ToolUseID: "toolu_1", Since: time.Now(), Questions: []answer.Question{{
	Question: "Which features?", Header: "Features", MultiSelect: true,
	Options: []answer.Option{{Label: "Auth"}, {Label: "Export"}, {Label: "API"}}}}}

// mcpForm is an MCP server's form waiting in the same session.
var mcpForm = remote.Form{Session: "42", ToolUseID: "elicitation-1", Since: time.Now(), Questions: []answer.Question{},
	Elicitation: &remote.Elicitation{Server: "demo", Message: "Deploy?", Fields: []remote.ElicitField{
		{Name: "env", Title: "Environment", Type: "string", Options: []string{"staging", "production"}, Required: true}},
		Schema: []byte(`{"type":"object","properties":{"env":{"type":"string","title":"Environment","enum":["staging","production"]}},"required":["env"]}`)}}

func (f *fakeSessions) Pending(context.Context) ([]Form, error) {
	return []Form{{Form: multi}, {Form: mcpForm}}, nil
}
func (f *fakeSessions) AnswerElicitation(_ context.Context, session, id, from string, a remote.ElicitAnswer) (remote.Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gone != nil {
		return remote.Outcome{}, f.gone
	}
	f.elicits = append(f.elicits, a)
	return remote.Outcome{Result: "verified", Elicited: []byte(`{"action":"accept","content":{"env":"staging"}}`)}, nil
}
func (f *fakeSessions) Answer(_ context.Context, session, id, from string, ds []answer.Decision) (remote.Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, ds)
	f.from = append(f.from, from)
	return remote.Outcome{Result: "verified", Recorded: map[string]string{"Which features?": strings.Join(ds[0].Labels, ", ")}}, nil
}

func start(t *testing.T) (*Server, *fakeSessions) {
	t.Helper()
	s, fs, _ := startLogged(t)
	return s, fs
}

// logBuffer is a Server's Log, read by the test.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startLogged(t *testing.T) (*Server, *fakeSessions, *logBuffer) {
	t.Helper()
	fs := &fakeSessions{}
	s, err := Listen("", fs)
	if err != nil {
		t.Fatal(err)
	}
	log := &logBuffer{}
	s.Log = log
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return s, fs, log
}

func (f *fakeSessions) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.answers)
}

func do(t *testing.T, method, url, token, host, body string) (int, string) {
	t.Helper()
	return doHeaders(t, method, url, token, host, body, nil)
}

func doHeaders(t *testing.T, method, url, token, host, body string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if token != "" {
		req.Header.Set("X-Claudewrap-Token", token)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeSecurity: loopback by default; the token is required (in the
// address or the header) for the page and its API, an answer must carry
// it in the header, and a host name that is not this server's (DNS
// rebinding) is refused. The script holds no data and needs none.
func TestServeSecurity(t *testing.T) {
	s, fs := start(t)
	if !s.Loopback() || !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("listens on %s", s.URL())
	}
	base := strings.TrimSuffix(s.URL(), "/?t="+s.Token)
	for _, tc := range []struct {
		method, path, token, host, body string
		want                            int
	}{
		{"GET", "/", "", "", "", 403},
		{"GET", "/?t=wrong", "", "", "", 403},
		{"GET", "/?t=" + s.Token, "", "", "", 200},
		{"GET", "/api/pending", "", "", "", 403},
		{"GET", "/api/pending", "nope", "", "", 403},
		{"GET", "/api/pending", s.Token, "", "", 200},
		{"GET", "/api/pending", s.Token, "evil.example:" + strings.Split(base, ":")[2], "", 403},
		{"POST", "/api/answer?t=" + s.Token, "", "", `{"session":"42","tool_use_id":"toolu_1","answers":[{"select":["API"]}]}`, 403},
		{"GET", "/app.js", "", "", "", 200},
	} {
		if code, body := do(t, tc.method, base+tc.path, tc.token, tc.host, tc.body); code != tc.want {
			t.Errorf("%s %s (token %q, host %q): %d %s, want %d", tc.method, tc.path, tc.token, tc.host, code, body, tc.want)
		}
	}
	if len(fs.answers) != 0 {
		t.Errorf("answered without the token: %v", fs.answers)
	}
}

// TestServeCrossSite: a request that changes something is refused when a
// browser says another page sent it (Origin, Sec-Fetch-Site), token or
// not; one with no Origin (curl, a script) needs only the token, and the
// page's own origin, as its Host or as an address URLs gives, passes.
func TestServeCrossSite(t *testing.T) {
	s, fs := start(t)
	base := strings.TrimSuffix(s.URL(), "/?t="+s.Token)
	port := strings.Split(base, ":")[2]
	const answer = `{"session":"42","tool_use_id":"toolu_1","answers":[{"select":["API"]}]}`
	for _, tc := range []struct {
		name, method, path, host string
		header                   map[string]string
		want                     int
	}{
		{"no origin (curl, claudewrap answer)", "POST", "/api/answer", "", nil, 200},
		{"same origin", "POST", "/api/answer", "", map[string]string{"Origin": base, "Sec-Fetch-Site": "same-origin"}, 200},
		{"same origin, no Sec-Fetch-Site", "POST", "/api/answer", "", map[string]string{"Origin": base}, 200},
		{"same origin by name", "POST", "/api/answer", "localhost:" + port, map[string]string{"Origin": "http://localhost:" + port}, 200},
		{"an address URLs gives, Host otherwise", "POST", "/api/answer", "127.0.0.2:" + port, map[string]string{"Origin": base}, 200},
		{"foreign origin", "POST", "/api/answer", "", map[string]string{"Origin": "http://evil.example"}, 403},
		{"foreign origin, Sec-Fetch-Site forged", "POST", "/api/answer", "", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin"}, 403},
		{"another port of this machine", "POST", "/api/answer", "", map[string]string{"Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"}, 403},
		{"https is another origin", "POST", "/api/answer", "", map[string]string{"Origin": strings.Replace(base, "http:", "https:", 1)}, 403},
		{"null origin (a sandboxed or local page)", "POST", "/api/answer", "", map[string]string{"Origin": "null"}, 403},
		{"cross-site, no origin", "POST", "/api/answer", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"cross-site, own origin", "POST", "/api/answer", "", map[string]string{"Origin": base, "Sec-Fetch-Site": "cross-site"}, 403},
		{"PUT, foreign origin", "PUT", "/api/answer", "", map[string]string{"Origin": "http://evil.example"}, 403},
		{"DELETE, foreign origin", "DELETE", "/api/pending", "", map[string]string{"Origin": "http://evil.example"}, 403},
		{"GET changes nothing", "GET", "/api/pending", "", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fs.count()
			code, body := doHeaders(t, tc.method, base+tc.path, s.Token, tc.host, answer, tc.header)
			if code != tc.want {
				t.Errorf("%s %s %v: %d %s, want %d", tc.method, tc.path, tc.header, code, body, tc.want)
			}
			if answered := fs.count() > before; answered != (tc.want == 200 && tc.method == "POST") {
				t.Errorf("passed on: %v", answered)
			}
		})
	}
}

// TestServeLog: one line for each answer posted (the time, who posted it,
// the session, the form and what came of it) and for each request refused
// (why, the token never written); nothing for the page's ordinary
// requests. What came in the request is written escaped.
func TestServeLog(t *testing.T) {
	s, _, log := startLogged(t)
	base := strings.TrimSuffix(s.URL(), "/?t="+s.Token)
	for _, p := range []string{"/?t=" + s.Token, "/app.js", "/app.css", "/favicon.ico", "/api/pending?t=" + s.Token} {
		do(t, "GET", base+p, "", "", "")
	}
	if got := log.String(); got != "" {
		t.Fatalf("the page's ordinary requests were logged:\n%s", got)
	}
	do(t, "POST", base+"/api/answer", s.Token, "", `{"session":"42","tool_use_id":"toolu_1","answers":[{"select":["API"]}]}`)
	do(t, "POST", base+"/api/answer", s.Token, "", `{"session":"4\u001b]0;pwned\u0007","tool_use_id":"toolu_1","answers":[{"select":["API"]}]}`)
	doHeaders(t, "POST", base+"/api/answer", s.Token, "", `{}`, map[string]string{"Origin": "http://evil.example"})
	do(t, "GET", base+"/api/pending?t=wrong-"+s.Token, "", "", "")
	got := log.String()
	stamp := `claudewrap: \d\d:\d\d:\d\d `
	for _, want := range []string{
		stamp + `answer from 127\.0\.0\.1 to session 42, form toolu_1: verified\n`,
		stamp + `answer from 127\.0\.0\.1 to session 4\\x1b\]0;pwned\\a, form toolu_1: not sent: this form no longer waits: .*\n`,
		stamp + `refused POST /api/answer from 127\.0\.0\.1: a request from another page \(Origin "http://evil\.example"\)\n`,
		stamp + `refused GET /api/pending from 127\.0\.0\.1: a token is required: .*\n`,
	} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("no line matches %s in\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 4 || strings.Contains(got, s.Token) || strings.Contains(got, "\x1b") {
		t.Errorf("%d lines, want 4, no token, nothing a terminal acts on:\n%s", n, got)
	}
}

// TestServeAnswers: a malformed answer gets a clear error and changes
// nothing; a good one is passed on and its outcome returned.
func TestServeAnswers(t *testing.T) {
	s, fs := start(t)
	base := strings.TrimSuffix(s.URL(), "/?t="+s.Token)
	for _, tc := range []struct{ body, want string }{
		{`not json`, "not an answer"},
		{`{"session":"42","tool_use_id":"toolu_1","answers":[{"select":["Oracle"]}]}`, `label \"Oracle\" is not offered`},
		{`{"session":"42","tool_use_id":"toolu_1","answers":[]}`, "asks 1 question; 0 answers given"},
		{`{"session":"42","tool_use_id":"toolu_1","answers":[{}]}`, "has no answer"},
		{`{"session":"42","tool_use_id":"toolu_1","answers":[{"type":"mine","notes":"n"}]}`, "notes go with an option picked"},
		{`{"session":"42","tool_use_id":"toolu_9","answers":[{"select":["API"]}]}`, "no longer waits"},
		{`{"session":"42","tool_use_id":"toolu_1","chat":"x","cancel":true}`, "alone"},
		// Text the screen cannot show as typed; invalid UTF-8 reads as U+FFFD.
		{`{"session":"42","tool_use_id":"toolu_1","chat":"ok 👍🏽"}`, "holds a skin tone"},
		{"{\"session\":\"42\",\"tool_use_id\":\"toolu_1\",\"chat\":\"ok \xff\"}", "holds the replacement character"},
		{`{"session":"42","tool_use_id":"toolu_1","answers":[{"select":["API"]}],"sudo":true}`, "unknown field"},
	} {
		code, body := do(t, "POST", base+"/api/answer", s.Token, "", tc.body)
		if code < 400 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want an error with %q", tc.body, code, body, tc.want)
		}
	}
	if len(fs.answers) != 0 {
		t.Fatalf("malformed answers were passed on: %v", fs.answers)
	}
	code, body := do(t, "POST", base+"/api/answer", s.Token, "", `{"session":"42","tool_use_id":"toolu_1","answers":[{"select":["API","Auth"]}]}`)
	var o remote.Outcome
	if code != 200 || json.Unmarshal([]byte(body), &o) != nil || o.Result != "verified" || o.Recorded["Which features?"] != "API, Auth" {
		t.Fatalf("good answer: %d %s", code, body)
	}
	if want := "claudewrap serve (page) from 127.0.0.1"; fs.from[0] != want {
		t.Errorf("sent from %q, want %q", fs.from[0], want)
	}
}

// TestURLsEveryInterface: listening on every interface, the page is given
// at addresses a browser opens (this machine's loopback first, then its
// interfaces'), never at 0.0.0.0 or [::]; and the page answers at each.
func TestURLsEveryInterface(t *testing.T) {
	s, err := Listen("0.0.0.0:0", &fakeSessions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	urls := s.URLs()
	if s.Loopback() || len(urls) == 0 || !strings.HasPrefix(urls[0], "http://127.0.0.1:") || s.URL() != urls[0] {
		t.Fatalf("URLs %q", urls)
	}
	for _, u := range urls {
		if strings.Contains(u, "0.0.0.0") || strings.Contains(u, "[::]") || !strings.HasSuffix(u, "/?t="+s.Token) {
			t.Errorf("URL %q cannot be opened", u)
			continue
		}
		if code, _ := do(t, "GET", strings.TrimSuffix(u, "?t="+s.Token)+"api/pending", s.Token, "", ""); code != 200 {
			t.Errorf("%s: status %d", u, code)
		}
	}
}

// TestDecisionsRuled: on a form a rule answered in part, the page answers
// the questions no rule answered; a chat or cancel the whole form.
func TestDecisionsRuled(t *testing.T) {
	db := answer.Question{Question: "Which database?", Options: []answer.Option{{Label: "SQLite"}, {Label: "MongoDB"}}}
	f := remote.Form{Questions: []answer.Question{db, multi.Questions[0]},
		Decided: []remote.Decided{{Index: 1, Rule: "db", Answer: `select "SQLite"`}}}
	ds, err := decisions(f, answerRequest{Answers: []pageAnswer{{Select: []string{"API", "Auth"}}}})
	if err != nil || len(ds) != 1 || ds[0].String() != `select "API", "Auth"` {
		t.Errorf("open question: %v %v", ds, err)
	}
	if _, err := decisions(f, answerRequest{Answers: []pageAnswer{{Select: []string{"SQLite"}}, {Select: []string{"API"}}}}); err == nil {
		t.Error("two answers for one open question were taken")
	}
	if ds, err := decisions(f, answerRequest{Cancel: true}); err != nil || len(ds) != 1 || ds[0].Action != answer.Cancel {
		t.Errorf("cancel: %v %v", ds, err)
	}
	// The open question is the form's second, as the page shows it.
	for _, tc := range []struct {
		a    pageAnswer
		want string
	}{
		{pageAnswer{Select: []string{"Oracle"}}, `question 2 ("Which features?"): label "Oracle" is not offered`},
		{pageAnswer{}, `question 2 ("Which features?") has no answer`},
		{pageAnswer{Select: []string{"API"}, Type: "x"}, "question 2: pick options or type an answer, not both"},
	} {
		if _, err := decisions(f, answerRequest{Answers: []pageAnswer{tc.a}}); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.a, err, tc.want)
		}
	}
}

// TestServeElicitation: the page answers an MCP server's form with
// accept (its values checked against the server's schema first), decline
// or cancel; what the schema refuses, and a form's answers, are not sent.
func TestServeElicitation(t *testing.T) {
	s, fs := start(t)
	base := strings.TrimSuffix(s.URL(), "/?t="+s.Token)
	for _, tc := range []struct{ body, want string }{
		{`{"session":"42","tool_use_id":"elicitation-1","elicit":{"action":"accept","values":"{\"env\":\"dev\"}"}}`, `\"dev\" is not one of its options`},
		{`{"session":"42","tool_use_id":"elicitation-1","elicit":{"action":"accept","values":"{}"}}`, "field env is required"},
		{`{"session":"42","tool_use_id":"elicitation-1","answers":[{"select":["API"]}]}`, "accept, decline or cancel alone"},
		{`{"session":"42","tool_use_id":"toolu_1","elicit":{"action":"decline"}}`, "this form asks questions"},
	} {
		code, body := do(t, "POST", base+"/api/answer", s.Token, "", tc.body)
		if code < 400 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want an error with %q", tc.body, code, body, tc.want)
		}
	}
	if len(fs.elicits) != 0 || len(fs.answers) != 0 {
		t.Fatalf("malformed answers were passed on: %v %v", fs.elicits, fs.answers)
	}
	for _, body := range []string{
		`{"session":"42","tool_use_id":"elicitation-1","elicit":{"action":"accept","values":"{\"env\":\"staging\"}"}}`,
		`{"session":"42","tool_use_id":"elicitation-1","elicit":{"action":"decline"}}`,
	} {
		code, out := do(t, "POST", base+"/api/answer", s.Token, "", body)
		var o remote.Outcome
		if code != 200 || json.Unmarshal([]byte(out), &o) != nil || o.Result != "verified" || len(o.Elicited) == 0 {
			t.Errorf("%s: %d %s", body, code, out)
		}
	}
	if len(fs.elicits) != 2 || fs.elicits[0].Values != `{"env":"staging"}` || fs.elicits[1].Action != "decline" {
		t.Errorf("sent %+v", fs.elicits)
	}
	// The session goes away as the answer is sent: the page is told so.
	fs.mu.Lock()
	fs.gone = errors.New("session 42 has ended")
	fs.mu.Unlock()
	code, out := do(t, "POST", base+"/api/answer", s.Token, "", `{"session":"42","tool_use_id":"elicitation-1","elicit":{"action":"decline"}}`)
	if code != http.StatusBadGateway || !strings.Contains(out, "session 42 has ended") {
		t.Errorf("an answer to a session gone: %d %s, want 502 saying so", code, out)
	}
}

// hostileSessions has a form waiting whose text holds what a terminal
// acts on.
type hostileSessions struct{ fakeSessions }

func (h *hostileSessions) Pending(context.Context) ([]Form, error) {
	f := multi
	f.Questions = []answer.Question{{Question: "Deploy? " + testkit.Hostile, Header: "Go",
		Options: []answer.Option{{Label: "Yes " + testkit.Hostile}, {Label: "No"}}}}
	return []Form{{Form: f, Machine: "laptop " + testkit.Hostile, User: "dev"}}, nil
}

// TestPendingJSONEscaped: what /api/pending says holds no character a
// terminal would act on (C1 controls, bidirectional formatting), as the
// events and claudewrap pending --json do not: a program that prints it
// shows the escapes.
func TestPendingJSONEscaped(t *testing.T) {
	s, err := Listen("", &hostileSessions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	base := strings.TrimSuffix(s.URL(), "/?t="+s.Token)
	code, body := do(t, "GET", base+"/api/pending", s.Token, "", "")
	if code != 200 || !strings.Contains(body, `Deploy? \u001b]52`) {
		t.Fatalf("%d %s", code, body)
	}
	if bad := testkit.Unescaped(body); bad != "" {
		t.Errorf("/api/pending holds raw %s:\n%s", bad, body)
	}
	var forms []Form
	if err := json.Unmarshal([]byte(body), &forms); err != nil || forms[0].Questions[0].Options[0].Label != "Yes "+testkit.Hostile ||
		forms[0].Machine != "laptop "+testkit.Hostile {
		t.Errorf("the escapes are not the same JSON values: %v %+v", err, forms)
	}
}
