package rules

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestElicitationErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"not a list", "version: 1\nelicitations: {server: x}\n",
			[]string{`r.yaml:2:15: elicitations must be a list, not a mapping`}},
		{"no server", "version: 1\nelicitations:\n  - when: {message: x}\n    answer: decline\n",
			[]string{`r.yaml:3:5: elicitation needs when: {server: …}: an answer for every server's form is an answer nobody reviewed`}},
		{"no answer", "version: 1\nelicitations:\n  - when: {server: demo}\n",
			[]string{`r.yaml:3:5: elicitation has no answer`}},
		{"unknown when key", "version: 1\nelicitations:\n  - when: {server: demo, title: x}\n    answer: decline\n",
			[]string{`r.yaml:3:26: unknown key "title" in when (want one of fields, message, server)`}},
		{"bare accept", "version: 1\nelicitations:\n  - when: {server: demo}\n    answer: accept\n",
			[]string{`r.yaml:4:13: accept needs the fields' values: answer: {accept: {FIELD: VALUE, …}}`}},
		{"unknown action", "version: 1\nelicitations:\n  - when: {server: demo}\n    answer: maybe\n",
			[]string{`r.yaml:4:13: answer: unknown "maybe" (want decline, cancel or {accept: {FIELD: VALUE, …}})`}},
		{"a mapping as a value", "version: 1\nelicitations:\n  - when: {server: demo}\n    answer: {accept: {env: {a: b}}}\n",
			[]string{`r.yaml:4:28: field "env": a value is a string, a boolean, a number or a list of options, not a mapping`}},
		{"a field twice", "version: 1\nelicitations:\n  - when: {server: demo}\n    answer: {accept: {env: a, env: b}}\n",
			[]string{`r.yaml:4:31: field "env" given twice`}},
		{"fields not a list", "version: 1\nelicitations:\n  - when: {server: demo, fields: env}\n    answer: decline\n",
			[]string{`r.yaml:3:34: fields must be a list of names, not a string`}},
		{"a name twice", "version: 1\nelicitations:\n  - {name: a, when: {server: x}, answer: cancel}\n  - {name: a, when: {server: y}, answer: cancel}\n",
			[]string{`r.yaml:4:5: elicitation name "a" is used twice (first at line 3)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("r.yaml", []byte(tc.in))
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}

// deploySchema is the form the project's MCP test server asks.
const deploySchema = `{"type":"object","properties":{
	"env":{"type":"string","title":"Environment","enum":["staging","production"]},
	"confirm":{"type":"boolean","title":"Really deploy?"},
	"replicas":{"type":"integer","minimum":1,"maximum":5},
	"note":{"type":"string","maxLength":10},
	"regions":{"type":"array","items":{"type":"string","enum":["eu","us","ap"]}},
	"tier":{"type":"string","oneOf":[{"const":"t1","title":"Small"},{"const":"t2","title":"Large"}]}},
	"required":["env"]}`

func TestElicit(t *testing.T) {
	f, err := Parse("r.yaml", []byte(`version: 1
elicitations:
  - name: billing
    when: {server: billing}
    answer: decline
  - name: by-title
    when: {server: deploy, message: "(?i)environment", fields: [Environment]}
    answer: {accept: {Environment: staging, confirm: false, replicas: 3, regions: [eu, us], tier: Large}}
  - name: wrong-option
    when: {server: deploy, message: "^wrong option"}
    answer: {accept: {env: qa}}
  - name: missing-required
    when: {server: deploy, message: "^missing"}
    answer: {accept: {confirm: true}}
  - name: types
    when: {server: deploy, message: "^types (.*)"}
    answer: {accept: {env: staging, replicas: "3"}}
  - name: range
    when: {server: deploy, message: "^range"}
    answer: {accept: {env: staging, replicas: 9}}
  - name: long
    when: {server: deploy, message: "^long"}
    answer: {accept: {env: staging, note: "far too long a note"}}
  - name: emoji
    when: {server: deploy, message: "^emoji"}
    answer: {accept: {env: staging, note: "ship 🚀🚀🚀"}}
  - name: unknown-field
    when: {server: deploy, message: "^unknown"}
    answer: {accept: {env: staging, colour: red}}
  - name: bool-text
    when: {server: deploy, message: "^bool"}
    answer: {accept: {env: staging, confirm: "yes"}}
  - name: rest
    when: {server: deploy}
    answer: cancel
`))
	if err != nil {
		t.Fatal(err)
	}
	set := &Set{Files: []*File{f}}
	schema := json.RawMessage(deploySchema)
	d := set.Elicit("deploy", "Which environment?", schema)
	want := map[string]any{"env": "staging", "confirm": false, "replicas": int64(3), "regions": []string{"eu", "us"}, "tier": "t2"}
	if !d.Matched() || d.Rule != "by-title" || d.Action != Accept || !reflect.DeepEqual(d.Content, want) || d.Line != 6 {
		t.Errorf("by title: %+v (%v)", d, d.Err)
	}
	if d := set.Elicit("billing", "pay?", schema); !d.Matched() || d.Action != Decline || d.Content != nil {
		t.Errorf("billing: %+v", d)
	}
	if d := set.Elicit("deployer", "x", schema); d.Rule != "" {
		t.Errorf("the server is matched whole: %+v", d)
	}
	if d := set.Elicit("deploy", "something else", schema); !d.Matched() || d.Action != Cancel {
		t.Errorf("rest: %+v", d)
	}
	// A rule that matches but whose values the schema refuses leaves the
	// form unmatched, with the reason; no later rule is tried.
	for msg, why := range map[string]string{
		"wrong option": `field env: "qa" is not one of its options (staging, production)`,
		"missing":      `field env is required and the rule gives it no value`,
		"types x":      `field replicas: a number field takes a number, not "3"`,
		"range":        `field replicas: 9 is outside its range`,
		"long":         `field note: 19 characters, outside what it allows`,
		"emoji":        `field note: 8 characters (11 as Claude counts them), outside what it allows`,
		"unknown":      `the form has no field "colour" (its fields: confirm ("Really deploy?"), env ("Environment"), note, regions, replicas, tier)`,
		"bool":         `field confirm: a yes/no field takes true or false, not "yes"`,
	} {
		d := set.Elicit("deploy", msg, schema)
		if d.Matched() || d.Rule == "" || d.Err == nil || d.Err.Error() != why {
			t.Errorf("%s: %+v, err %v; want %q", msg, d, d.Err, why)
		}
	}
	// A form without the field a rule names is not that rule's.
	small := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)
	if d := set.Elicit("deploy", "Which environment?", small); d.Rule != "rest" {
		t.Errorf("fields: %+v", d)
	}
	if d := set.Elicit("deploy", "wrong option", json.RawMessage(`not json`)); d.Matched() || d.Err == nil {
		t.Errorf("unreadable schema: %+v", d)
	}
	if !set.Elicits() || (&Set{}).Elicits() {
		t.Error("Elicits")
	}
}
