package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// docSessions holds the forms docs/remote.md answers in its examples: the
// three-question form of testdata/forms/three.json and the deploy MCP
// server's form, in session 4242.
type docSessions struct {
	forms   []remote.Form
	mu      sync.Mutex
	answers []string // each answer taken, as decisions or an MCP form's action
}

func (d *docSessions) Pending(context.Context) ([]Form, error) {
	var out []Form
	for _, f := range d.forms {
		out = append(out, Form{Form: f})
	}
	return out, nil
}

func (d *docSessions) Answer(_ context.Context, session, id, from string, ds []answer.Decision) (remote.Outcome, error) {
	var got []string
	for _, x := range ds {
		got = append(got, x.String())
	}
	d.mu.Lock()
	d.answers = append(d.answers, strings.Join(got, " | "))
	d.mu.Unlock()
	return remote.Outcome{Result: "verified"}, nil
}

func (d *docSessions) AnswerElicitation(_ context.Context, session, id, from string, a remote.ElicitAnswer) (remote.Outcome, error) {
	d.mu.Lock()
	d.answers = append(d.answers, a.Action+" "+a.Values)
	d.mu.Unlock()
	return remote.Outcome{Result: "verified", Elicited: []byte(`{"action":"accept"}`)}, nil
}

func newDocSessions(t *testing.T) *docSessions {
	t.Helper()
	b, err := os.ReadFile("../testdata/forms/three.json")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := rules.ParseForm(b)
	if err != nil {
		t.Fatal(err)
	}
	var ask struct {
		Server  string          `json:"mcp_server_name"`
		Message string          `json:"message"`
		Schema  json.RawMessage `json:"requested_schema"`
	}
	if b, err = os.ReadFile("../testdata/forms/deploy-elicitation.json"); err != nil || json.Unmarshal(b, &ask) != nil {
		t.Fatalf("deploy-elicitation.json: %v", err)
	}
	return &docSessions{forms: []remote.Form{
		{Session: "4242", ToolUseID: "toolu_01three", Since: time.Now(), Questions: qs},
		{Session: "4242", ToolUseID: "elicitation-1", Since: time.Now(), Questions: []answer.Question{},
			Elicitation: &remote.Elicitation{Server: ask.Server, Message: ask.Message, Schema: ask.Schema}},
	}}
}

// docBlocks returns the lines of the fenced blocks of lang in a Markdown
// file, one string per block.
func docBlocks(t *testing.T, path, lang string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []string
	var cur *strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case cur == nil && l == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && l == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(sc.Text() + "\n")
		}
	}
	return blocks
}

// curlWords splits a curl line of the docs as sh would: words, single and
// double quotes.
func curlWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("a quote is not closed")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// TestDocAPI: the HTTP API as docs/remote.md shows it works as written:
// every JSON body it shows is an answer the API takes (200, the outcome),
// and every curl line, sent to a server started here with its token,
// gets 200 and what the doc says it returns.
func TestDocAPI(t *testing.T) {
	const doc = "../docs/remote.md"
	sessions := newDocSessions(t)
	s, err := Listen("", sessions)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	u, _ := url.Parse(s.URL())

	post := func(body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://"+u.Host+"/api/answer", strings.NewReader(body))
		req.Header.Set("X-Claudewrap-Token", s.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	bodies := docBlocks(t, doc, "json")
	if len(bodies) < 4 {
		t.Fatalf("%s shows %d JSON bodies; the extraction is broken", doc, len(bodies))
	}
	for _, body := range bodies {
		code, reply := post(body)
		var o remote.Outcome
		if code != http.StatusOK || json.Unmarshal(reply, &o) != nil || o.Result != "verified" {
			t.Errorf("%s: POST /api/answer %s: %d %s, want 200 and the outcome", doc, strings.TrimSpace(body), code, reply)
		}
	}
	want := []string{`select "SQLite" | select "Auth", "API" | type "snake_case"`,
		`chat "Let us talk about the schema first." | chat "Let us talk about the schema first." | chat "Let us talk about the schema first."`,
		"cancel | cancel | cancel", "accept {env: staging, confirm: true}"}
	if got := strings.Join(sessions.answers, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("the sessions were sent\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}

	var curls int
	for _, block := range docBlocks(t, doc, "sh") {
		for _, line := range strings.Split(block, "\n") {
			if !strings.HasPrefix(line, "curl ") {
				continue
			}
			curls++
			words, err := curlWords(line)
			if err != nil {
				t.Fatalf("%s: %s: %v", doc, line, err)
			}
			method, target := http.MethodGet, ""
			var body io.Reader
			header := http.Header{}
			for i := 1; i < len(words); i++ {
				switch w := strings.ReplaceAll(words[i], "TOKEN", s.Token); {
				case w == "-s":
				case w == "-H" && i+1 < len(words):
					i++
					k, v, _ := strings.Cut(strings.ReplaceAll(words[i], "TOKEN", s.Token), ": ")
					header.Set(k, v)
				case w == "-d" && i+1 < len(words):
					i++
					method, body = http.MethodPost, strings.NewReader(words[i])
				case strings.HasPrefix(w, "http://127.0.0.1:8765/"):
					target = "http://" + u.Host + strings.TrimPrefix(w, "http://127.0.0.1:8765")
				default:
					t.Fatalf("%s: %s: the test does not know %q", doc, line, w)
				}
			}
			req, err := http.NewRequest(method, target, body)
			if err != nil {
				t.Fatalf("%s: %s: %v", doc, line, err)
			}
			req.Header = header
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			reply, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var forms []remote.Form
			var o remote.Outcome
			switch {
			case resp.StatusCode != http.StatusOK:
				t.Errorf("%s: %s: %d %s, want 200", doc, line, resp.StatusCode, reply)
			case method == http.MethodGet && (json.Unmarshal(reply, &forms) != nil || len(forms) != 2 || forms[0].ToolUseID != "toolu_01three"):
				t.Errorf("%s: %s: %s, want the forms that wait", doc, line, reply)
			case method == http.MethodPost && (json.Unmarshal(reply, &o) != nil || o.Result != "verified"):
				t.Errorf("%s: %s: %s, want the outcome", doc, line, bytes.TrimSpace(reply))
			}
		}
	}
	if curls < 2 {
		t.Errorf("%s shows %d curl lines; want the pending and the answer ones", doc, curls)
	}
}
