package rules

import (
	"reflect"
	"strings"
	"testing"
)

const replySchema = `{"type":"object","properties":{` +
	`"env":{"type":"string","title":"Environment","enum":["staging","production"]},` +
	`"confirm":{"type":"boolean","title":"Really deploy?"},` +
	`"count":{"type":"integer"},` +
	`"regions":{"type":"array","items":{"type":"string","enum":["eu","asia"]}}},"required":["env"]}`

// TestElicitReply: an answer from elsewhere is read and checked as a
// rule's: values by name or title, typed by the schema; what the schema
// refuses is an error naming the field.
func TestElicitReply(t *testing.T) {
	for _, tc := range []struct {
		action, values string
		want           map[string]any
		err            string
	}{
		{"accept", "{Environment: staging, confirm: true, count: 3, regions: [eu]}",
			map[string]any{"env": "staging", "confirm": true, "count": int64(3), "regions": []string{"eu"}}, ""},
		{"accept", `{"env": "production"}`, map[string]any{"env": "production"}, ""},
		{"decline", "", nil, ""},
		{"cancel", "", nil, ""},
		{"accept", "{env: dev}", nil, `field env: "dev" is not one of its options`},
		{"accept", "{confirm: true}", nil, "field env is required"},
		{"accept", "{env: staging, confirm: maybe}", nil, "a yes/no field takes true or false"},
		{"accept", "{env: staging, colour: red}", nil, `the form has no field "colour"`},
		{"accept", "[staging]", nil, "accept must be a mapping"},
		{"decline", "{env: staging}", nil, "values go with accept"},
		{"maybe", "", nil, `unknown action "maybe"`},
	} {
		got, err := ElicitReply([]byte(replySchema), tc.action, tc.values, "--accept")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: error %v, want %q", tc.action, tc.values, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s: %v %v, want %v", tc.action, tc.values, got, err, tc.want)
		}
	}
}

// TestElicitReplyCounts: a value outside the schema's bounds is said with
// its count, which agrees with its noun.
func TestElicitReplyCounts(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"code":{"type":"string","minLength":2},` +
		`"tags":{"type":"array","minItems":2,"items":{"type":"string","enum":["a","b"]}}}}`)
	for values, want := range map[string]string{
		"{code: x}":   "field code: 1 character, outside what it allows",
		"{code: ''}":  "field code: 0 characters, outside what it allows",
		"{tags: [a]}": "field tags: 1 option chosen, outside what it allows",
	} {
		if _, err := ElicitReply(schema, "accept", values, "--accept"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", values, err, want)
		}
	}
}
