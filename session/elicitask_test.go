package session

import (
	"context"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/remote"
)

// script is the person at claudewrap's prompt answering each question
// whose header starts with a key; the questions asked are kept.
type script struct {
	mu      sync.Mutex
	asked   []answer.Question
	answers map[string][]answer.Decision // by header, one a time asked
}

func (p *script) ask(ctx context.Context, q answer.Question) (answer.Decision, error) {
	p.mu.Lock()
	p.asked = append(p.asked, q)
	ds := p.answers[q.Header]
	var d answer.Decision
	if len(ds) > 0 {
		d, p.answers[q.Header] = ds[0], ds[1:]
	}
	p.mu.Unlock()
	if d.Action == 0 { // no answer: waits until the prompt is ended
		<-ctx.Done()
		return d, ctx.Err()
	}
	return d, nil
}

func pickLabel(l ...string) answer.Decision { return answer.Decision{Action: answer.Select, Labels: l} }
func typeText(t string) answer.Decision     { return answer.Decision{Action: answer.Type, Text: t} }

// TestElicitAsk: under the ask policy claudewrap's prompt asks an MCP
// form's action, then each field; an answer the schema refuses (a
// required field left unset) is said and the form asked again; the answer
// is given on the screen and verified.
func TestElicitAsk(t *testing.T) {
	t.Parallel()
	p := &script{answers: map[string][]answer.Decision{
		"MCP server demo": {pickLabel("Accept"), pickLabel("Accept")},
		"Environment":     {pickLabel(leaveUnset), pickLabel("production")},
		"Really deploy?":  {pickLabel("yes"), pickLabel("yes")},
		"Note":            {pickLabel(leaveUnset), typeText("ship it")},
		"Replicas":        {pickLabel(leaveUnset), typeText("3")},
		"Regions":         {pickLabel(leaveUnset), pickLabel("asia", "eu")},
	}}
	c := newElicitChild(t)
	r := serveElicit(t, c, Config{Host: hostHeadless, Policy: "ask", Asker: asker(p.ask)})
	r.elicitSchema(t, "Deploy?", fullSchema)
	f := c.showForm(fullFields)
	r.answered(t, f, nil)
	r.log.WaitFor(t, `"event":"verified"`, 10*time.Second)
	c.Signal(os.Interrupt)
	rep := r.result(t, c)
	action, content := f.Result()
	want := map[string]any{"env": "production", "confirm": true, "note": "ship it", "count": 3.0, "regions": []string{"eu", "asia"}}
	if action != "accept" || !reflect.DeepEqual(content, want) {
		t.Errorf("the form got %s %v, want %v\n%s", action, content, want, r.log)
	}
	p.mu.Lock()
	again := p.asked[6]
	p.mu.Unlock()
	if !strings.HasPrefix(again.Question, "Not taken (") || !strings.Contains(again.Question, "field env is required") {
		t.Errorf("asked again %q", again.Question)
	}
	if rep.Blocked != "" || rep.Mismatch || !strings.Contains(r.log.String(), `"rule":"ask"`) {
		t.Errorf("report %+v\n%s", rep, r.log)
	}
}

// TestElicitAskAnsweredElsewhere: an answer from elsewhere while the
// prompt asks wins and ends the prompt.
func TestElicitAskAnsweredElsewhere(t *testing.T) {
	t.Parallel()
	p := &script{answers: map[string][]answer.Decision{}}
	c := newElicitChild(t)
	r := serveElicit(t, c, Config{Host: hostHeadless, Policy: "ask", Asker: asker(p.ask)})
	r.elicitSchema(t, "Deploy?", fullSchema)
	r.log.WaitFor(t, `"event":"handed_over"`, 10*time.Second) // listed for an answer from elsewhere
	f := c.showForm(fullFields)
	got := make(chan remote.Outcome, 1)
	go func() { got <- r.answerMCP("elicitation-1", "decline", "") }()
	r.answered(t, f, nil)
	if o := <-got; o.Result != "verified" {
		t.Errorf("outcome %+v\n%s", o, r.log)
	}
	c.Signal(os.Interrupt)
	rep := r.result(t, c)
	if action, _ := f.Result(); action != "decline" || rep.Blocked != "" {
		t.Errorf("the form got %s, report %+v\n%s", action, rep, r.log)
	}
}
