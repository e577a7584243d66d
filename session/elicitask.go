package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/ask"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// leaveUnset is the option that leaves a field that is not required
// without a value.
const leaveUnset = "Leave it unset"

// askElicitation asks the person on claudewrap's prompt for an MCP
// server's form no rule answers (the ask policy): accept, decline or
// cancel, then each field. Their answer is given as one from elsewhere is
// (answerElicitation), the first answer winning: an answer from elsewhere,
// or the person at Claude's screen, ends the prompt. One the schema or the
// screen refuses is said, and the form asked again.
func (s *session) askElicitation(w *elicitWait) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	go func() {
		select {
		case <-w.gone: // answered otherwise, or its time ran out
			cancel()
		case <-ctx.Done():
		}
	}()
	fields, err := rules.FormFields(w.schema)
	if err != nil {
		return // waitElicitation read them: not reached
	}
	note := ""
	for {
		a, err := s.promptElicitation(ctx, w, fields, note)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return
		case errors.Is(err, ask.ErrInterrupted):
			// Ctrl-C: the person ends the run (exit 130); the form is
			// cancelled on the screen first.
			s.flag(func(r *Report) { r.Interrupted = true })
			a = remote.ElicitAnswer{Action: string(rules.Cancel)}
		default:
			s.loop.do(func() { s.unwaitOnLoop(w) })
			s.say("error", events.Fields{"elicitation": w.server, "form": w.id, "message": "ask: " + err.Error()})
			if s.cfg.Host.Headless {
				snap := s.child.Screen().Snapshot()
				s.block(fmt.Sprintf("MCP server %q's input form got no answer at claudewrap's prompt (%v)", w.server, err), &snap)
			}
			return
		}
		o := s.answerElicitation(s.ctx, w.id, "ask", "", a)
		if o.Result != "refused" || ctx.Err() != nil {
			return
		}
		note = "Not taken (" + o.Message + "). "
	}
}

// promptElicitation asks for the answer: the action (note, if any, says
// why the last one was not taken), then for accept each field in the
// form's order — an option by its number, yes or no, a list for a
// multi-select, text or a number typed — or Leave it unset where a value
// is not required.
func (s *session) promptElicitation(ctx context.Context, w *elicitWait, fields []rules.FormField, note string) (remote.ElicitAnswer, error) {
	total := 1 + len(fields)
	q := answer.Question{Header: "MCP server " + w.server, Question: note + w.message,
		Options: []answer.Option{{Label: "Accept", Description: "fill in its fields"}, {Label: "Decline"}, {Label: "Cancel"}}}
	d, err := s.cfg.Asker.Ask(ctx, q, 1, total)
	if err != nil {
		return remote.ElicitAnswer{}, err
	}
	switch {
	case d.Action == answer.Cancel || d.Action == answer.Select && slices.Equal(d.Labels, []string{"Cancel"}):
		return remote.ElicitAnswer{Action: string(rules.Cancel)}, nil
	case d.Action == answer.Select && slices.Equal(d.Labels, []string{"Decline"}):
		return remote.ElicitAnswer{Action: string(rules.Decline)}, nil
	case !(d.Action == answer.Select && slices.Equal(d.Labels, []string{"Accept"})):
		return remote.ElicitAnswer{}, fmt.Errorf("%s is not Accept, Decline or Cancel", d)
	}
	values := map[string]any{}
	for i, f := range fields {
		fq := fieldQuestion(f)
		d, err := s.cfg.Asker.Ask(ctx, fq, i+2, total)
		if err != nil {
			return remote.ElicitAnswer{}, err
		}
		if d.Action == answer.Cancel {
			return remote.ElicitAnswer{Action: string(rules.Cancel)}, nil
		}
		if v, ok := fieldValue(f, d); ok {
			values[f.Name] = v
		}
	}
	b, _ := json.Marshal(values)
	return remote.ElicitAnswer{Action: string(rules.Accept), Values: string(b)}, nil
}

// fieldQuestion is the prompt's question for field f.
func fieldQuestion(f rules.FormField) answer.Question {
	q := answer.Question{Header: f.Title, Question: f.Title}
	switch {
	case f.Type == "array":
		q.MultiSelect = true
		q.Question += " (pick any)"
	case len(f.Labels) > 0:
		q.Question += " (pick one)"
	case f.Type == "boolean":
		q.Question += " (yes or no)"
		f.Labels = []string{"yes", "no"}
	default:
		q.Question += " (type the text)"
		if f.Type == "number" || f.Type == "integer" {
			q.Question = f.Title + " (type a number as /type 3: a number alone picks an option)"
		}
	}
	if f.Required {
		q.Question += ", required"
	}
	for _, l := range f.Labels {
		q.Options = append(q.Options, answer.Option{Label: l})
	}
	if !f.Required || len(q.Options) == 0 {
		q.Options = append(q.Options, answer.Option{Label: leaveUnset})
	}
	return q
}

// fieldValue is the value the person's decision d gives field f, typed
// as its schema asks; false leaves it unset.
func fieldValue(f rules.FormField, d answer.Decision) (any, bool) {
	if d.Action == answer.Type {
		t := strings.TrimSpace(d.Text)
		if n, err := strconv.ParseFloat(t, 64); err == nil && (f.Type == "number" || f.Type == "integer") {
			return json.Number(strconv.FormatFloat(n, 'f', -1, 64)), true
		}
		return d.Text, true
	}
	var out []string
	for _, l := range d.Labels {
		switch {
		case l == leaveUnset:
			return nil, false
		case f.Type == "boolean":
			return l == "yes", true
		}
		if i := slices.Index(f.Labels, l); i >= 0 {
			out = append(out, f.Values[i])
		}
	}
	if f.Type == "array" {
		return out, len(out) > 0
	}
	if len(out) != 1 {
		return nil, false
	}
	return out[0], true
}
