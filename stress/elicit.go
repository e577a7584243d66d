package stress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
)

// Elicit is an MCP server's input form (elicitation/create): what the
// project's test server (internal/testsupport/mcpdemo) asks, the session's
// elicitation rules, and what the server must receive.
type Elicit struct {
	Server  string
	Message string
	Schema  string // the requested schema, JSON
	// Answer is the rule's: accept, decline or cancel; none (no rule
	// matches, decoys at most) or refused (accept with a value the schema
	// refuses, which must leave the form unmatched, never guessed).
	Answer string
	// Values are the accept rule's values as it writes them, by a field's
	// name or title; Want is what the server must receive as accept's
	// content, typed as its schema says.
	Values map[string]any `json:",omitempty"`
	Want   map[string]any `json:",omitempty"`
	When   map[string]any
	// Decoys are rules before the real one that must not match this form.
	Decoys []elicitYAML `json:",omitempty"`
}

// Elicitation answers (Elicit.Answer).
const (
	elicitAccept  = "accept"
	elicitDecline = "decline"
	elicitCancel  = "cancel"
	elicitNone    = "none"
	elicitRefused = "refused"
)

// elicitYAML is one entry of the rules file's elicitations.
type elicitYAML struct {
	Name   string         `yaml:"name"`
	When   map[string]any `yaml:"when"`
	Answer any            `yaml:"answer"`
}

// rules are the elicitation rules for e: its decoys, then its own unless
// it has none.
func (e Elicit) rules(id string) []elicitYAML {
	out := slices.Clone(e.Decoys)
	var answer any
	switch e.Answer {
	case elicitNone:
		return out
	case elicitAccept, elicitRefused:
		answer = map[string]any{"accept": e.Values}
	default:
		answer = e.Answer
	}
	return append(out, elicitYAML{Name: id, When: e.When, Answer: answer})
}

// elicitSession is a tool of an MCP server that asks the person for input
// with a form of a random schema, under random elicitation rules. Claude
// Code 2.1.197 lists an MCP tool to the model only after
// WaitForMcpServers, so that comes first (later versions answer it as an
// unknown tool). A permission rule allows the tool itself.
func (g *dialogGen) elicitSession(name string) Session {
	s := Session{Name: name, Mode: "default"}
	s.Cols, s.Rows = g.size()
	s.Prompt = fmt.Sprintf("stress dialogs %s: go on", name)
	id := "toolu_elicit_" + name
	e, classes := g.elicit(name)
	d := &Dialog{Tool: "mcp__" + e.Server + "__deploy", Input: map[string]any{}, Decide: decideAllow, Elicit: e,
		Lead: &fakeapi.Block{Type: "tool_use", ID: id + "_lead", Name: "WaitForMcpServers", Input: map[string]any{}}}
	s.Cases = []Case{{ID: id, Dialog: d, Classes: append(classes, "elicitation", "elicit-"+e.Answer)}}
	return s
}

// field is one field of a generated schema.
type field struct {
	name, title string
	kind        string // enum, enum-names, one-of, boolean, string, number, integer, multi, multi-titled
	values      []string
	titles      []string // the options' titles, if the schema gives them
	min, max    *float64 // string length, number range, or items chosen
	required    bool
}

// elicit draws a form: a server, a message, one to five fields of random
// kinds, some required, and the rules answering it.
func (g *dialogGen) elicit(name string) (*Elicit, []string) {
	e := &Elicit{Server: g.pick(dialogWords)}
	e.Message = g.message()
	var fields []field
	props := map[string]any{}
	var required []string
	var classes []string
	used := map[string]bool{}
	for i, n := 0, 1+g.r.IntN(5); i < n; i++ {
		f := g.field(used)
		fields = append(fields, f)
		props[f.name] = f.property()
		if f.required {
			required = append(required, f.name)
			classes = append(classes, "required")
		}
		classes = append(classes, "field-"+f.kind)
	}
	sc := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		sc["required"] = required
	}
	b, _ := json.Marshal(sc)
	e.Schema = string(b)

	e.Answer = g.pick([]string{elicitAccept, elicitAccept, elicitAccept, elicitDecline, elicitCancel, elicitNone, elicitRefused})
	if e.Answer == elicitAccept || e.Answer == elicitRefused {
		e.Values, e.Want = map[string]any{}, map[string]any{}
		for _, f := range fields {
			if !f.required && !g.chance(0.6) {
				continue
			}
			key := f.name
			if f.title != "" && g.chance(0.3) {
				key = f.title
				if g.chance(0.3) {
					key = strings.ToLower(key)
				}
				classes = append(classes, "by-title")
			}
			e.Values[key], e.Want[f.name] = g.valid(f, &classes)
		}
	}
	if e.Answer == elicitRefused {
		classes = append(classes, g.refuse(e, fields))
		e.Want = nil
	}

	e.When = map[string]any{"server": e.Server}
	if g.chance(0.3) {
		e.When["server"] = "(?i)" + strings.ToUpper(e.Server)
	}
	if g.chance(0.5) {
		w := strings.Fields(e.Message)
		e.When["message"] = regexp.QuoteMeta(w[g.r.IntN(len(w))])
	}
	if g.chance(0.3) {
		f := fields[g.r.IntN(len(fields))]
		e.When["fields"] = []string{firstOf(f.title, f.name)}
	}
	decoyAnswer := elicitDecline
	if e.Answer == elicitDecline {
		decoyAnswer = elicitCancel
	}
	if g.chance(0.5) || e.Answer == elicitNone {
		for k, n := 0, 1+g.r.IntN(3); k < n; k++ {
			var when map[string]any
			switch g.r.IntN(3) {
			case 0:
				when = map[string]any{"server": e.Server + "x"}
			case 1:
				when = map[string]any{"server": e.Server, "message": "^" + regexp.QuoteMeta(g.message()) + "$"}
			default:
				when = map[string]any{"server": e.Server, "fields": []string{"no_such_" + g.pick(dialogWords)}}
			}
			e.Decoys = append(e.Decoys, elicitYAML{Name: fmt.Sprintf("%s decoy %c", name, 'a'+k), When: when, Answer: decoyAnswer})
		}
		classes = append(classes, "decoys")
	}
	slices.Sort(classes)
	return e, slices.Compact(classes)
}

// message is a random question for the form, now and then long enough to
// wrap.
func (g *dialogGen) message() string {
	m := fmt.Sprintf("Which %s should the %s use for %s?", g.pick(dialogWords), g.pick(dialogWords), g.words(1+g.r.IntN(3)))
	if g.chance(0.3) {
		w := g.words(8 + g.r.IntN(20))
		m += " " + strings.ToUpper(w[:1]) + w[1:] + "."
	}
	return m
}

// field draws one field, its name not in used.
func (g *dialogGen) field(used map[string]bool) field {
	var f field
	for f.name == "" || used[f.name] {
		f.name = g.pick(dialogWords) + "_" + g.pick(dialogWords)
	}
	used[f.name] = true
	if g.chance(0.7) {
		w := strings.ReplaceAll(f.name, "_", " ")
		f.title = strings.ToUpper(w[:1]) + w[1:]
		if g.chance(0.3) {
			f.title += "?"
		}
	}
	f.required = g.chance(0.4)
	num := func(lo, span int) *float64 { x := float64(lo + g.r.IntN(span)); return &x }
	f.kind = g.pick([]string{"enum", "enum-names", "one-of", "boolean", "string", "number", "integer", "multi", "multi-titled"})
	switch f.kind {
	case "enum", "enum-names", "one-of", "multi", "multi-titled":
		seen := map[string]bool{}
		for n := 2 + g.r.IntN(4); len(f.values) < n; {
			v := g.pick(dialogWords)
			if g.chance(0.3) {
				v += fmt.Sprintf("-%d", g.r.IntN(10))
			}
			if seen[v] {
				continue
			}
			seen[v] = true
			f.values = append(f.values, v)
			if f.kind != "enum" && f.kind != "multi" {
				f.titles = append(f.titles, strings.ToUpper(v[:1])+v[1:]+" "+g.pick(dialogWords))
			}
		}
		if strings.HasPrefix(f.kind, "multi") && g.chance(0.5) {
			f.min = num(1, 2)
			if g.chance(0.5) {
				f.max = num(int(*f.min), len(f.values)-int(*f.min)+1)
			}
		}
	case "string":
		if g.chance(0.5) {
			f.min = num(1, 6)
		}
		if g.chance(0.5) {
			f.max = num(8, 40)
		}
	case "number", "integer":
		if g.chance(0.7) {
			f.min = num(-50, 100)
			f.max = num(int(*f.min)+1, 500)
		} else if g.chance(0.5) {
			f.min = num(0, 10)
		}
	}
	return f
}

// property is the field's JSON schema.
func (f field) property() map[string]any {
	p := map[string]any{}
	if f.title != "" {
		p["title"] = f.title
	}
	choices := func() []map[string]any {
		var out []map[string]any
		for i, v := range f.values {
			out = append(out, map[string]any{"const": v, "title": f.titles[i]})
		}
		return out
	}
	bound := func(lo, hi string) {
		if f.min != nil {
			p[lo] = *f.min
		}
		if f.max != nil {
			p[hi] = *f.max
		}
	}
	switch f.kind {
	case "enum":
		p["type"], p["enum"] = "string", f.values
	case "enum-names":
		p["type"], p["enum"], p["enumNames"] = "string", f.values, f.titles
	case "one-of":
		p["type"], p["oneOf"] = "string", choices()
	case "multi":
		p["type"], p["items"] = "array", map[string]any{"type": "string", "enum": f.values}
		bound("minItems", "maxItems")
	case "multi-titled":
		p["type"], p["items"] = "array", map[string]any{"anyOf": choices()}
		bound("minItems", "maxItems")
	case "string":
		p["type"] = "string"
		bound("minLength", "maxLength")
	default:
		p["type"] = f.kind
		bound("minimum", "maximum")
	}
	return p
}

// valid is a value the field takes, as a rule writes it, and as the
// server must receive it.
func (g *dialogGen) valid(f field, classes *[]string) (any, any) {
	option := func(i int) string {
		if len(f.titles) > 0 && g.chance(0.4) {
			*classes = append(*classes, "option-by-title")
			return f.titles[i]
		}
		return f.values[i]
	}
	switch f.kind {
	case "enum", "enum-names", "one-of":
		i := g.r.IntN(len(f.values))
		return option(i), f.values[i]
	case "multi", "multi-titled":
		lo, hi := 1, len(f.values)
		if f.min != nil {
			lo = int(*f.min)
		}
		if f.max != nil {
			hi = int(*f.max)
		}
		n := lo + g.r.IntN(hi-lo+1)
		rule, want := []string{}, []any{}
		for _, i := range g.r.Perm(len(f.values))[:n] {
			rule, want = append(rule, option(i)), append(want, f.values[i])
		}
		return rule, want
	case "boolean":
		b := g.chance(0.5)
		return b, b
	case "string":
		lo, hi := 1, 30
		if f.min != nil {
			lo = int(*f.min)
		}
		if f.max != nil {
			hi = int(*f.max)
		}
		n := lo + g.r.IntN(hi-lo+1)
		var s string
		switch {
		case n <= 4 && g.chance(0.5):
			// Text that YAML would read as a number or a boolean.
			s = g.pick([]string{"42", "true", "no", "3.5", "0x1f", "null"})
			*classes = append(*classes, "text-like-a-value")
			if len(s) < lo || len(s) > hi {
				s = strings.Repeat("z", n)
			}
		default:
			s = g.words(n)[:n]
			if strings.HasSuffix(s, " ") {
				s = s[:n-1] + "s"
			}
		}
		return s, s
	case "integer":
		lo, hi := -1000, 1000
		if f.min != nil {
			lo = int(*f.min)
		}
		if f.max != nil {
			hi = int(*f.max)
		}
		x := lo + g.r.IntN(hi-lo+1)
		if g.chance(0.2) {
			x = []int{lo, hi}[g.r.IntN(2)]
		}
		return x, float64(x)
	default: // number
		lo, hi := -1000.0, 1000.0
		if f.min != nil {
			lo = *f.min
		}
		if f.max != nil {
			hi = *f.max
		}
		x := math.Round((lo+g.r.Float64()*(hi-lo))*100) / 100
		switch {
		case g.chance(0.2):
			x = []float64{lo, hi}[g.r.IntN(2)]
		case x == math.Trunc(x):
			x = math.Min(x+0.25, hi)
		}
		return x, x
	}
}

// refuse makes accept's values one the schema refuses and returns the
// class saying how: a value a field does not take, a field the form does
// not have, or a required field left out.
func (g *dialogGen) refuse(e *Elicit, fields []field) string {
	if g.chance(0.15) {
		e.Values["no_such_"+g.pick(dialogWords)] = "x"
		return "refused-no-field"
	}
	for _, f := range fields {
		if _, ok := e.Want[f.name]; f.required && ok && g.chance(0.2) {
			for k := range e.Values {
				if k == f.name || strings.EqualFold(k, f.title) {
					delete(e.Values, k)
				}
			}
			return "refused-required"
		}
	}
	f := fields[g.r.IntN(len(fields))]
	for k := range e.Values {
		if k == f.name || strings.EqualFold(k, f.title) {
			delete(e.Values, k)
		}
	}
	var bad any
	switch f.kind {
	case "enum", "enum-names", "one-of":
		bad = "not-" + f.values[0]
	case "multi", "multi-titled":
		bad = []string{"not-" + f.values[0]}
		if g.chance(0.3) {
			bad = f.values[0] // one option, not a list
		}
	case "boolean":
		bad = g.pick([]string{"yes", "on", "1"})
	case "string":
		switch {
		case f.max != nil && g.chance(0.6):
			bad = strings.Repeat("y", int(*f.max)+1+g.r.IntN(5))
		case f.min != nil && *f.min > 1:
			bad = strings.Repeat("y", int(*f.min)-1)
		default:
			bad = g.chance(0.5) // a boolean is no text
		}
	case "integer":
		bad = 2.5
		if f.max != nil && g.chance(0.5) {
			bad = int(*f.max) + 1 + g.r.IntN(10)
		}
	default: // number
		bad = "many"
		if f.max != nil && g.chance(0.6) {
			bad = *f.max + 0.5
		} else if f.min != nil && g.chance(0.6) {
			bad = *f.min - 1
		}
	}
	e.Values[f.name] = bad
	return "refused-value"
}

// judgeElicit judges an MCP server's form by what the server received
// (log: its lines, one JSON answer each), the run's exit and whether it
// ended by itself; never by which way claudewrap answered (on the screen
// or through the hook). Accept must reach the server with exactly the
// rule's values typed as its schema says (a multi-select field's options
// in any order), decline and cancel as such, and the run must end well.
// A form no rule answers (or whose rule's value the schema refuses) must
// have the headless run end blocked (exit 7) with nothing accepted or
// declined.
func judgeElicit(e Elicit, log []byte, exit int, ended bool) (Outcome, string) {
	type answer struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
		Error   any            `json:"error"`
	}
	var got []answer
	for _, l := range bytes.Split(bytes.TrimSpace(log), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var a answer
		if err := json.Unmarshal(l, &a); err != nil {
			return Failed, fmt.Sprintf("the server's log cannot be read: %q", l)
		}
		got = append(got, a)
	}
	say := shorten(strings.TrimSpace(string(log)), 160)
	if e.Answer == elicitNone || e.Answer == elicitRefused {
		for _, a := range got {
			if a.Action == elicitAccept || a.Action == elicitDecline {
				return Wrong, "the server got " + say + ", and no rule answered the form"
			}
		}
		switch {
		case !ended:
			return Failed, "no rule answers it, and the run did not end by itself"
		case exit != 7:
			return Failed, fmt.Sprintf("no rule answers it, and the run exited %d, not 7 (blocked)", exit)
		}
		return Right, ""
	}
	switch {
	case len(got) == 0 && !ended:
		return Failed, "the server got nothing, and the run did not end by itself"
	case len(got) == 0:
		return Failed, fmt.Sprintf("the server got nothing (exit %d)", exit)
	case len(got) > 1:
		return Wrong, "the server was answered more than once: " + say
	case got[0].Error != nil:
		return Failed, "the server got an error: " + say
	case got[0].Action != e.Answer:
		return Wrong, "the server got " + say + ", the rule says " + e.Answer
	case e.Answer == elicitAccept && !sameContent(got[0].Content, e.Want):
		want, _ := json.Marshal(e.Want)
		return Wrong, "the server got " + say + ", the rule's content is " + string(want)
	case e.Answer != elicitAccept && len(got[0].Content) > 0:
		return Wrong, "the server got content with " + e.Answer + ": " + say
	case !ended:
		return Failed, "the server got the answer, but the run did not end by itself"
	case exit != 0:
		return Failed, fmt.Sprintf("the server got the answer, but the run exited %d", exit)
	}
	return Right, ""
}

// sameContent compares accept's content as JSON gives it: numbers as
// float64, a multi-select field's options in any order.
func sameContent(got, want map[string]any) bool {
	norm := func(m map[string]any) map[string]any {
		b, _ := json.Marshal(m)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		for k, v := range out {
			if list, ok := v.([]any); ok {
				slices.SortFunc(list, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
				out[k] = list
			}
		}
		if out == nil {
			out = map[string]any{}
		}
		return out
	}
	return reflect.DeepEqual(norm(got), norm(want))
}

// elicit is the session's MCP server's form, or nil.
func (s Session) elicit() *Elicit {
	for _, c := range s.Cases {
		if c.Dialog != nil && c.Dialog.Elicit != nil {
			return c.Dialog.Elicit
		}
	}
	return nil
}

// config is Claude's --mcp-config value running the MCP test server
// (binary mcpdemo) as e's server, asking e's form and logging what it
// receives to log.
func (e Elicit) config(mcpdemo, log string) (string, error) {
	if mcpdemo == "" {
		return "", fmt.Errorf("an MCP server's form, and no MCP test server to run (Config.MCPDemo)")
	}
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{e.Server: map[string]any{
		"command": mcpdemo, "args": []string{"-log", log, "-schema", e.Schema, "-message", e.Message}}}})
	return string(b), err
}
