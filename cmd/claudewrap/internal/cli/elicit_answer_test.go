package cli

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/remote"
)

const mcpSchema = `{"type":"object","properties":{` +
	`"env":{"type":"string","title":"Environment","enum":["staging","production"]},` +
	`"confirm":{"type":"boolean","title":"Really deploy?"}},"required":["env"]}`

var mcpForm = remote.Form{ToolUseID: "elicitation-1", Elicitation: &remote.Elicitation{Server: "demo", Message: "Deploy?",
	Fields: []remote.ElicitField{{Name: "env", Title: "Environment", Type: "string", Options: []string{"staging", "production"}, Required: true},
		{Name: "confirm", Title: "Really deploy?", Type: "boolean"}}, Schema: []byte(mcpSchema)}}

// elicitHandler is a session with an MCP server's form waiting: it hears
// each answer on got and replies outcome.
type elicitHandler struct {
	answerHandler
	got chan remote.ElicitAnswer
}

func (h elicitHandler) AnswerElicitation(_ context.Context, _, _ string, a remote.ElicitAnswer) remote.Outcome {
	h.got <- a
	return h.outcome
}

// TestAnswerElicitation: --accept, --decline and --cancel answer an MCP
// server's form; values its schema refuses, and a form's flags, are usage
// errors before anything is sent.
func TestAnswerElicitation(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	ok := remote.Outcome{Result: "verified", Elicited: []byte(`{"action":"accept","content":{"env":"staging"}}`)}
	h := elicitHandler{answerHandler{outcome: ok, forms: []remote.Form{mcpForm}}, make(chan remote.ElicitAnswer, 1)}
	reg, err := remote.Register(h, "/", remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	id := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		args []string
		want remote.ElicitAnswer
		err  string
	}{
		{[]string{"--accept", "{Environment: staging, confirm: true}"}, remote.ElicitAnswer{Action: "accept", Values: "{Environment: staging, confirm: true}"}, ""},
		{[]string{"--form", "elicitation-1", "--decline"}, remote.ElicitAnswer{Action: "decline"}, ""},
		{[]string{"--cancel"}, remote.ElicitAnswer{Action: "cancel"}, ""},
		{[]string{"--accept", "{env: dev}"}, remote.ElicitAnswer{}, `field env: "dev" is not one of its options`},
		{[]string{"--accept", "{confirm: true}"}, remote.ElicitAnswer{}, "field env is required"},
		{[]string{"--select", "staging"}, remote.ElicitAnswer{}, "answer it with --accept"},
		{[]string{"--accept", "{env: staging}", "--decline"}, remote.ElicitAnswer{}, "give only one of --accept, --decline, --cancel"},
	} {
		out, _, err := executeRoot(t, append([]string{"answer", id}, tc.args...)...)
		if tc.err != "" {
			if status(err) != ExitUsage || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: exit %d, %v; want a usage error %q", tc.args, status(err), err, tc.err)
			}
			select {
			case a := <-h.got:
				t.Errorf("%q: sent %+v", tc.args, a)
			default:
			}
			continue
		}
		if err != nil || !strings.Contains(out, `verified; Claude reports the MCP form answered {"action":"accept"`) {
			t.Errorf("%q: %q, %v", tc.args, out, err)
		}
		if a := <-h.got; a != tc.want {
			t.Errorf("%q: sent %+v, want %+v", tc.args, a, tc.want)
		}
	}
}

// TestPendingElicitation: pending shows an MCP server's form with its
// fields and the command that answers it.
func TestPendingElicitation(t *testing.T) {
	f := mcpForm
	f.Session = "7"
	var b bytes.Buffer
	printForms(&b, []remote.Form{f}, false)
	for _, want := range []string{`MCP server "demo"'s form elicitation-1`, "Deploy?", `env ("Environment"): one of: staging, production, required`,
		`confirm ("Really deploy?"): true or false`, "claudewrap answer 7 --accept '{FIELD: VALUE, …}', or --decline, or --cancel"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
}
