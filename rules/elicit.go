package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"gopkg.in/yaml.v3"
)

// Elicitation is one entry of elicitations: what to answer when an MCP
// server asks the person for input (an elicitation form).
type Elicitation struct {
	Name   string
	When   ElicitWhen
	Answer ElicitAnswer
	Line   int
}

// ElicitWhen holds an elicitation rule's conditions; all set fields must
// hold.
type ElicitWhen struct {
	Server  *regexp.Regexp // RE2 on the whole server name
	Message *regexp.Regexp // RE2 on the server's message
	Fields  []string       // every field named (by its name or title) is asked
}

// ElicitAction is what an elicitation rule answers.
type ElicitAction string

// Elicitation actions, as MCP names them.
const (
	Accept  ElicitAction = "accept"  // with the fields' values
	Decline ElicitAction = "decline" // the person said no
	Cancel  ElicitAction = "cancel"  // the person dismissed the form
)

// ElicitAnswer is an elicitation rule's answer: the action, and for accept
// the values by field.
type ElicitAnswer struct {
	Action ElicitAction
	Values map[string]Value
	// Keys are Values' keys in the order written, for messages.
	Keys []string
}

// Value is a field's value as written: a scalar with its YAML tag, or a
// list of strings (a multi-select field). Its type is checked against the
// server's schema when the form comes.
type Value struct {
	Text string
	Tag  string // !!str, !!bool, !!int or !!float; "" for a list
	List []string
}

// elicitation parses one elicitation rule and returns the name it was
// given ("" for none).
func (p *parser) elicitation(n *yaml.Node) string {
	r := Elicitation{Line: n.Line}
	var sawAnswer, sawServer bool
	before := len(p.errs)
	p.fields(n, "an elicitation", map[string]func(k, v *yaml.Node){
		"name": func(k, v *yaml.Node) {
			if s, ok := p.str(v, "name"); ok {
				r.Name = s
			}
		},
		"when": func(k, v *yaml.Node) {
			p.fields(v, "when", map[string]func(k, v *yaml.Node){
				"server": func(k, v *yaml.Node) {
					sawServer = true
					if re := p.regex(v, "server"); re != nil {
						r.When.Server = regexp.MustCompile("^(?:" + re.String() + ")$")
					}
				},
				"message": func(k, v *yaml.Node) { r.When.Message = p.regex(v, "message") },
				"fields":  func(k, v *yaml.Node) { r.When.Fields = p.strings(v, "fields") },
			})
		},
		"answer": func(k, v *yaml.Node) {
			sawAnswer = true
			r.Answer = p.elicitAnswer(v)
		},
	})
	if n.Kind != yaml.MappingNode {
		return ""
	}
	typo := p.typoSince(before)
	if !sawAnswer && !typo {
		p.errorf(n, "elicitation has no answer")
	}
	if !sawServer && !typo {
		p.errorf(n, "elicitation needs when: {server: …}: an answer for every server's form is an answer nobody reviewed")
	}
	named := r.Name
	if r.Name == "" {
		r.Name = fmt.Sprintf("elicitation at line %d", n.Line)
	}
	p.file.Elicitations = append(p.file.Elicitations, r)
	return named
}

// strings reads a list of non-empty strings.
func (p *parser) strings(n *yaml.Node, what string) []string {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list of names, not %s", what, kind(n))
		return nil
	}
	var out []string
	for _, e := range n.Content {
		if s, ok := p.str(e, what); ok && strings.TrimSpace(s) != "" {
			out = append(out, s)
		} else if ok {
			p.errorf(e, "%s: an empty name", what)
		}
	}
	return out
}

func (p *parser) elicitAnswer(n *yaml.Node) ElicitAnswer {
	if n.Kind == yaml.ScalarNode {
		s, ok := p.str(n, "answer")
		if !ok {
			return ElicitAnswer{}
		}
		switch a := ElicitAction(s); a {
		case Decline, Cancel:
			return ElicitAnswer{Action: a}
		case Accept:
			p.errorf(n, "accept needs the fields' values: answer: {accept: {FIELD: VALUE, …}}")
		default:
			p.errorf(n, "answer: unknown %q (want decline, cancel or {accept: {FIELD: VALUE, …}})", s)
		}
		return ElicitAnswer{}
	}
	var a ElicitAnswer
	p.fields(n, "answer", map[string]func(k, v *yaml.Node){
		"accept": func(k, v *yaml.Node) {
			a.Action = Accept
			a.Values = map[string]Value{}
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				return // accept with no values: a form whose fields are all optional
			}
			if v.Kind != yaml.MappingNode {
				p.errorf(v, "accept must be a mapping of field: value, not %s", kind(v))
				return
			}
			for i := 0; i+1 < len(v.Content); i += 2 {
				key, val := v.Content[i], v.Content[i+1]
				name, ok := p.str(key, "a field's name")
				if !ok {
					continue
				}
				if _, dup := a.Values[name]; dup {
					p.errorf(key, "field %q given twice", name)
					continue
				}
				if x, ok := p.value(val, name); ok {
					a.Values[name] = x
					a.Keys = append(a.Keys, name)
				}
			}
		},
	})
	if n.Kind == yaml.MappingNode && a.Action == "" {
		p.errorf(n, "answer needs accept, or is decline or cancel")
	}
	return a
}

// value reads a field's value: a string, boolean or number, or a list of
// strings for a multi-select field.
func (p *parser) value(n *yaml.Node, field string) (Value, bool) {
	switch {
	case isString(n):
		return Value{Text: n.Value, Tag: "!!str"}, true
	case n.Kind == yaml.ScalarNode && (n.Tag == "!!bool" || n.Tag == "!!int" || n.Tag == "!!float"):
		return Value{Text: n.Value, Tag: n.Tag}, true
	case n.Kind == yaml.SequenceNode:
		v := Value{List: []string{}}
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
				p.errorf(e, "field %q: a list holds the options to choose, not %s", field, kind(e))
				return Value{}, false
			}
			v.List = append(v.List, e.Value)
		}
		return v, true
	}
	p.errorf(n, "field %q: a value is a string, a boolean, a number or a list of options, not %s", field, kind(n))
	return Value{}, false
}

// ElicitDecision is the outcome of matching one elicitation form.
type ElicitDecision struct {
	Action ElicitAction
	// Content is what accept sends: each value as the server's schema
	// types it.
	Content map[string]any
	Rule    string // "" when no rule matched
	File    string
	Line    int
	// Err is why the rule that matched cannot answer this form (a value
	// the schema refuses): the form is then unmatched, never guessed.
	Err error
}

// Matched reports whether a rule decided.
func (d ElicitDecision) Matched() bool { return d.Rule != "" && d.Err == nil }

// Elicit matches an MCP server's elicitation form (server, message and
// the requested JSON schema): the first rule of the first file whose when
// holds answers, its values checked against the schema.
func (s *Set) Elicit(server, message string, schema json.RawMessage) ElicitDecision {
	sc, err := parseSchema(schema)
	for _, f := range s.Files {
		for _, r := range f.Elicitations {
			if !r.When.holds(server, message, sc) {
				continue
			}
			d := ElicitDecision{Action: r.Answer.Action, Rule: r.Name, File: f.Path, Line: r.Line}
			switch {
			case r.Answer.Action != Accept:
			case err != nil:
				d.Err = err
			default:
				d.Content, d.Err = sc.content(r.Answer)
			}
			return d
		}
	}
	return ElicitDecision{}
}

// Elicits reports whether any file has elicitation rules.
func (s *Set) Elicits() bool {
	for _, f := range s.Files {
		if len(f.Elicitations) > 0 {
			return true
		}
	}
	return false
}

func (w ElicitWhen) holds(server, message string, sc schema) bool {
	if w.Server == nil || !w.Server.MatchString(server) {
		return false
	}
	if w.Message != nil && !w.Message.MatchString(message) {
		return false
	}
	for _, f := range w.Fields {
		if _, ok := sc.field(f); !ok {
			return false
		}
	}
	return true
}

// schema is the flat object schema MCP allows an elicitation: fields of
// string (enum or free), number, integer, boolean, or array of enum
// (multi-select).
type schema struct {
	Properties map[string]property `json:"properties"`
	Required   []string            `json:"required"`
}

type property struct {
	Type      string    `json:"type"`
	Title     string    `json:"title"`
	Enum      []string  `json:"enum"`
	EnumNames []string  `json:"enumNames"`
	OneOf     []choice  `json:"oneOf"`
	Items     *property `json:"items"`
	AnyOf     []choice  `json:"anyOf"`
	MinLength *int      `json:"minLength"`
	MaxLength *int      `json:"maxLength"`
	Minimum   *float64  `json:"minimum"`
	Maximum   *float64  `json:"maximum"`
	MinItems  *int      `json:"minItems"`
	MaxItems  *int      `json:"maxItems"`
	Format    string    `json:"format"`
}

// choice is an option given as {const, title}.
type choice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

func parseSchema(b json.RawMessage) (schema, error) {
	var sc schema
	if len(b) == 0 {
		return sc, fmt.Errorf("the server sent no schema")
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		return sc, fmt.Errorf("the server's schema cannot be read: %v", err)
	}
	return sc, nil
}

// field finds a field by its name, or else by its title (any case).
func (sc schema) field(key string) (string, bool) {
	if _, ok := sc.Properties[key]; ok {
		return key, true
	}
	for name, p := range sc.Properties {
		if p.Title != "" && strings.EqualFold(p.Title, key) {
			return name, true
		}
	}
	return "", false
}

// names lists the fields, for messages: name "Title".
func (sc schema) names() string {
	var out []string
	for name, p := range sc.Properties {
		if p.Title != "" && p.Title != name {
			out = append(out, fmt.Sprintf("%s (%q)", name, p.Title))
		} else {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// content builds accept's content from a rule's values: every value must
// fit its field, and every required field must have one.
func (sc schema) content(a ElicitAnswer) (map[string]any, error) {
	out := map[string]any{}
	for _, key := range a.Keys {
		name, ok := sc.field(key)
		if !ok {
			return nil, fmt.Errorf("the form has no field %q (its fields: %s)", key, sc.names())
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("field %s is given twice (by name and by title)", name)
		}
		v, err := sc.Properties[name].convert(a.Values[key])
		if err != nil {
			return nil, fmt.Errorf("field %s: %v", name, err)
		}
		out[name] = v
	}
	for _, name := range sc.Required {
		if _, ok := out[name]; !ok {
			return nil, fmt.Errorf("field %s is required and the rule gives it no value", name)
		}
	}
	return out, nil
}

// options are a field's choices: their values and, where given, titles.
func options(enum, names []string, choices []choice) (values, titles []string) {
	if len(choices) > 0 {
		for _, c := range choices {
			values, titles = append(values, c.Const), append(titles, c.Title)
		}
		return values, titles
	}
	titles = make([]string, len(enum))
	copy(titles, names)
	return enum, titles
}

// pick finds an option by its value, or else its title.
func pick(v string, values, titles []string) (string, error) {
	for _, o := range values {
		if o == v {
			return o, nil
		}
	}
	for i, t := range titles {
		if t != "" && t == v {
			return values[i], nil
		}
	}
	return "", fmt.Errorf("%q is not one of its options (%s)", v, strings.Join(values, ", "))
}

// convert checks a value against the field and returns it as JSON types
// it.
func (p property) convert(v Value) (any, error) {
	if p.Type == "array" {
		if v.List == nil {
			return nil, fmt.Errorf("a multi-select field takes a list of options")
		}
		var values, titles []string
		if p.Items != nil {
			values, titles = options(p.Items.Enum, p.Items.EnumNames, p.Items.AnyOf)
		}
		values2, titles2 := options(nil, nil, p.AnyOf)
		values, titles = append(values, values2...), append(titles, titles2...)
		out := []string{}
		for _, x := range v.List {
			o, err := pick(x, values, titles)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
		if p.MinItems != nil && len(out) < *p.MinItems || p.MaxItems != nil && len(out) > *p.MaxItems {
			return nil, fmt.Errorf("%s chosen, outside what it allows", plural(len(out), "option"))
		}
		return out, nil
	}
	if v.List != nil {
		return nil, fmt.Errorf("a list is for a multi-select field; this one is %s", p.Type)
	}
	switch p.Type {
	case "string":
		if v.Tag == "!!bool" {
			return nil, fmt.Errorf("%s is a boolean; quote it if it is text", v.Text)
		}
		values, titles := options(p.Enum, p.EnumNames, p.OneOf)
		if len(values) > 0 {
			return pick(v.Text, values, titles)
		}
		// JSON Schema counts characters, Claude Code's form UTF-16 units
		// (an emoji is two): a length holds only when both counts allow it.
		n, units := len([]rune(v.Text)), len(utf16.Encode([]rune(v.Text)))
		outside := func(k int) bool {
			return p.MinLength != nil && k < *p.MinLength || p.MaxLength != nil && k > *p.MaxLength
		}
		if outside(n) || outside(units) {
			if units != n {
				return nil, fmt.Errorf("%s (%d as Claude counts them), outside what it allows", plural(n, "character"), units)
			}
			return nil, fmt.Errorf("%s, outside what it allows", plural(n, "character"))
		}
		return v.Text, nil
	case "boolean":
		if v.Tag != "!!bool" {
			return nil, fmt.Errorf("a yes/no field takes true or false, not %q", v.Text)
		}
		return strconv.ParseBool(v.Text)
	case "number", "integer":
		if v.Tag != "!!int" && v.Tag != "!!float" {
			return nil, fmt.Errorf("a number field takes a number, not %q", v.Text)
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(v.Text, "_", ""), 64)
		if v.Tag == "!!int" {
			var i int64
			i, err = strconv.ParseInt(strings.ReplaceAll(v.Text, "_", ""), 0, 64)
			f = float64(i)
		}
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q is not a number it can take", v.Text)
		}
		if p.Type == "integer" && f != math.Trunc(f) {
			return nil, fmt.Errorf("%s is not a whole number", v.Text)
		}
		if p.Minimum != nil && f < *p.Minimum || p.Maximum != nil && f > *p.Maximum {
			return nil, fmt.Errorf("%s is outside its range", v.Text)
		}
		if p.Type == "integer" {
			return int64(f), nil
		}
		return f, nil
	}
	return nil, fmt.Errorf("its type %q is not one an elicitation form has", p.Type)
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
