package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The JSON Schema in schema/ is for editors; the loader is the truth. No
// JSON Schema library is a dependency, so these tests carry a validator for
// the keywords the schema uses (and fail on any other keyword), and check
// that the schema and the loader agree: on the example files, on the keys
// and enums at every level, and on every input the tests and fuzzers try.

const schemaPath = "../schema/rules.schema.json"

type jsonSchema struct {
	root map[string]any
}

func loadSchema(t testing.TB) *jsonSchema {
	t.Helper()
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("%s: $schema is %v, want draft 2020-12", schemaPath, root["$schema"])
	}
	return &jsonSchema{root: root}
}

// resolve follows a local $ref.
func (s *jsonSchema) resolve(sch map[string]any) map[string]any {
	ref, ok := sch["$ref"].(string)
	if !ok {
		return sch
	}
	var cur any = s.root
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		cur = cur.(map[string]any)[part]
	}
	return s.resolve(cur.(map[string]any))
}

// validate returns the places where v breaks sch; none when it is valid.
func (s *jsonSchema) validate(sch map[string]any, v any, at string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	for kw, arg := range sch {
		switch kw {
		case "$schema", "$id", "$defs", "title", "description", "format":
		case "$ref":
			errs = append(errs, s.validate(s.resolve(sch), v, at)...)
		case "type":
			if !hasType(v, arg.(string)) {
				fail("want %s, not %T", arg, v)
			}
		case "const":
			if !jsonEqual(v, arg) {
				fail("want %v", arg)
			}
		case "enum":
			if !slices.ContainsFunc(arg.([]any), func(e any) bool { return jsonEqual(v, e) }) {
				fail("want one of %v", arg)
			}
		case "properties":
			if m, ok := v.(map[string]any); ok {
				for k, sub := range arg.(map[string]any) {
					if val, ok := m[k]; ok {
						errs = append(errs, s.validate(sub.(map[string]any), val, at+"."+k)...)
					}
				}
			}
		case "additionalProperties":
			if arg != false {
				panic("additionalProperties other than false")
			}
			if m, ok := v.(map[string]any); ok {
				props, _ := sch["properties"].(map[string]any)
				for k := range m {
					if _, ok := props[k]; !ok {
						fail("unknown property %q", k)
					}
				}
			}
		case "required":
			if m, ok := v.(map[string]any); ok {
				for _, k := range arg.([]any) {
					if _, ok := m[k.(string)]; !ok {
						fail("missing %q", k)
					}
				}
			}
		case "items":
			if a, ok := v.([]any); ok {
				for i, e := range a {
					errs = append(errs, s.validate(arg.(map[string]any), e, fmt.Sprintf("%s[%d]", at, i))...)
				}
			}
		case "minItems":
			if a, ok := v.([]any); ok && float64(len(a)) < arg.(float64) {
				fail("fewer than %v items", arg)
			}
		case "uniqueItems":
			if a, ok := v.([]any); ok && arg == true {
				for i := range a {
					for j := i + 1; j < len(a); j++ {
						if jsonEqual(a[i], a[j]) {
							fail("items %d and %d are equal", i, j)
						}
					}
				}
			}
		case "minLength":
			if str, ok := v.(string); ok && float64(utf8.RuneCountInString(str)) < arg.(float64) {
				fail("shorter than %v", arg)
			}
		case "pattern":
			if str, ok := v.(string); ok && !regexp.MustCompile(arg.(string)).MatchString(str) {
				fail("does not match %q", arg)
			}
		case "minimum", "maximum":
			if f, ok := number(v); ok && (kw == "minimum" && f < arg.(float64) || kw == "maximum" && f > arg.(float64)) {
				fail("%s is %v", kw, arg)
			}
		case "oneOf":
			n := 0
			for _, sub := range arg.([]any) {
				if len(s.validate(sub.(map[string]any), v, at)) == 0 {
					n++
				}
			}
			if n != 1 {
				fail("%d of oneOf hold, want exactly 1", n)
			}
		case "not":
			if len(s.validate(arg.(map[string]any), v, at)) == 0 {
				fail("matches a not")
			}
		default:
			panic(fmt.Sprintf("%s: the test's validator does not know the keyword %q", at, kw))
		}
	}
	return errs
}

func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := number(v)
		return ok
	case "integer":
		f, ok := number(v)
		return ok && f == math.Trunc(f)
	}
	panic("unknown type " + t)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func jsonEqual(a, b any) bool {
	fa, aok := number(a)
	fb, bok := number(b)
	if aok || bok {
		return aok && bok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

// errBlind marks YAML the schema cannot judge the way the loader does: it
// is not plain JSON data (aliases, merge keys, custom tags, repeated keys,
// several documents), or fails for a reason JSON Schema cannot express.
var errBlind = errors.New("beyond the schema")

// jsonValue converts YAML to the JSON value an editor validates.
func jsonValue(b []byte) (any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, nil
	} else if err != nil {
		return nil, errBlind
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errBlind
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return nodeValue(doc.Content[0])
}

func nodeValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if !isString(k) {
				return nil, errBlind
			}
			if _, dup := m[k.Value]; dup {
				return nil, errBlind
			}
			v, err := nodeValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		a := []any{}
		for _, c := range n.Content {
			v, err := nodeValue(c)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		return a, nil
	case yaml.ScalarNode:
		switch {
		case isString(n):
			return n.Value, nil
		case n.Tag == "!!null":
			return nil, nil
		case n.Tag == "!!bool":
			return strconv.ParseBool(n.Value)
		case n.Tag == "!!int":
			if i, ok := intValue(n); ok {
				return i, nil
			}
		case n.Tag == "!!float":
			// A whole float (1.0) is an integer to JSON Schema but not to
			// the loader, which wants integers written as such.
			if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && f != math.Trunc(f) {
				return f, nil
			}
		}
	}
	return nil, errBlind
}

// schemaBlind reports loader errors that JSON Schema cannot express:
// RE2 syntax, and durations too long for Go.
func schemaBlind(err error) bool {
	var es Errors
	if !errors.As(err, &es) {
		return false
	}
	for _, e := range es {
		// Names unique across a list's objects are beyond JSON Schema too.
		if !strings.Contains(e.Msg, "bad regular expression") && !tooLong(e.Msg) && !strings.Contains(e.Msg, "is used twice (first at line") {
			return false
		}
	}
	return true
}

// tooLong reports an answer_timeout refused only for its size: with every
// number made 1, Go would take it.
func tooLong(msg string) bool {
	m := regexp.MustCompile(`^answer_timeout: want a positive duration such as 3m, not (".*")$`).FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	s, err := strconv.Unquote(m[1])
	if err != nil {
		return false
	}
	_, err = time.ParseDuration(regexp.MustCompile(`[0-9]+`).ReplaceAllString(s, "1"))
	return err == nil
}

// checkAgrees fails when the loader and the schema judge a file
// differently.
func checkAgrees(t testing.TB, s *jsonSchema, name string, in []byte) {
	t.Helper()
	v, err := jsonValue(in)
	if err != nil {
		return
	}
	_, loadErr := Parse(name, in)
	if loadErr != nil && schemaBlind(loadErr) {
		return
	}
	schemaErrs := s.validate(s.root, v, "$")
	switch {
	case loadErr == nil && len(schemaErrs) > 0:
		t.Errorf("%s: the loader accepts %q, the schema does not:\n%s", name, in, strings.Join(schemaErrs, "\n"))
	case loadErr != nil && len(schemaErrs) == 0:
		t.Errorf("%s: the schema accepts %q, the loader does not:\n%v", name, in, loadErr)
	}
}

// agreementCases are valid and invalid inputs beyond errorCases, for the
// edges of types, patterns and enums.
var agreementCases = []string{
	"version: 0x1\n",
	"version: 1.0\n",
	"version: 1.5\n",
	"version: true\n",
	"version: 1\nrules: []\ndefaults: {}\n",
	"version: 1\nrules:\n  - answer: {cancel: True}\n",
	"version: 1\nrules:\n  - answer: {cancel: 1}\n",
	"version: 1\nrules:\n  - answer: {select: {index: 4}}\n",
	"version: 1\nrules:\n  - answer: {select: {index: 1.5}}\n",
	"version: 1\nrules:\n  - answer: {select: {index: -1}}\n",
	"version: 1\nrules:\n  - answer: {select: {}}\n",
	"version: 1\nrules:\n  - answer: {select: 2024-01-01}\n",
	"version: 1\nrules:\n  - answer: {select: [a, b]}\n",
	"version: 1\nrules:\n  - answer: {select: [a, a]}\n",
	"version: 1\nrules:\n  - answer: {select: [[a]]}\n",
	"version: 1\nrules:\n  - answer: {select: null}\n",
	"version: 1\nrules:\n  - answer: {type: \"\\u00a0\\u3000\"}\n",
	"version: 1\nrules:\n  - answer: {type: \"\\u00a0x\\u3000\"}\n",
	"version: 1\nrules:\n  - answer: {type: \"caf\\u00e9 \\u2603\"}\n",
	"version: 1\nrules:\n  - answer: {type: \"a\\u0085b\"}\n",
	"version: 1\nrules:\n  - answer: {type: \"a\\x7fb\"}\n",
	"version: 1\nrules:\n  - answer: {chat: \"a\\tb\\nc\"}\n",
	"version: 1\nrules:\n  - answer: {chat: \"a\\vb\"}\n",
	"version: 1\nrules:\n  - answer: {chat: 42}\n",
	"version: 1\nrules:\n  - answer: {chat: \"\"}\n",
	"version: 1\nrules:\n  - {answer: {cancel: true}, when: {options: []}}\n",
	"version: 1\nrules:\n  - {answer: {cancel: true}, when: {options: [\"\"]}}\n",
	"version: 1\nrules:\n  - {answer: {cancel: true}, when: null}\n",
	"version: 1\nrules:\n  - {answer: {cancel: true}, name: \"\"}\n",
	"version: 1\nrules:\n  - {answer: {cancel: true}, when: {header: \"(?<h>x)\"}}\n",
	"version: 1\ndefaults: {fallback: {type: x}}\n",
	"version: 1\ndefaults: {fallback: {chat: x}}\n",
	"version: 1\ndefaults: {fallback: {cancel: true}}\n",
	"version: 1\ndefaults: {fallback: {}}\n",
	"version: 1\ndefaults: {fallback: null}\n",
	"version: 1\ndefaults: {on_unmatched: null}\n",
	"version: 1\ndefaults: {on_unmatched: FAIL}\n",
	"version: 1\ndefaults: {answer_timeout: 1h30m}\n",
	"version: 1\ndefaults: {answer_timeout: +1.5h}\n",
	"version: 1\ndefaults: {answer_timeout: .5s}\n",
	"version: 1\ndefaults: {answer_timeout: 1.s}\n",
	"version: 1\ndefaults: {answer_timeout: 500µs}\n",
	"version: 1\ndefaults: {answer_timeout: 500μs}\n",
	"version: 1\ndefaults: {answer_timeout: 1us}\n",
	"version: 1\ndefaults: {answer_timeout: 0.000s}\n",
	"version: 1\ndefaults: {answer_timeout: 0h0m1s}\n",
	"version: 1\ndefaults: {answer_timeout: -1m}\n",
	"version: 1\ndefaults: {answer_timeout: 1d}\n",
	"version: 1\ndefaults: {answer_timeout: 1}\n",
	"version: 1\ndefaults: {answer_timeout: \"0\"}\n",
	"version: 1\ndefaults: {answer_timeout: 1m 30s}\n",
	"version: 1\ndefaults: {answer_timeout: 1M}\n",
	"version: 1\ndefaults: {answer_timeout: \"\"}\n",
	"version: 1\ndialogs: {bypass_permissions: accept}\n",
	"version: 1\ndialogs: {bypass_permissions: \"accept\"}\n",
	"version: 1\ndialogs: {bypass_permissions: true}\n",
	"version: 1\ndialogs: {bypass_permissions: Accept}\n",
	"version: 1\ndialogs: {bypass_permissions: null}\n",
	"version: 1\ndialogs: {bypass_permissions: [accept]}\n",
	"version: 1\ndialogs: {trust: true, bypass_permissions: accept}\n",
	"[]\n",
	"~\n",
	"version\n",
}

func TestSchemaAgreesWithLoader(t *testing.T) {
	s := loadSchema(t)
	for _, tc := range errorCases {
		checkAgrees(t, s, tc.name, []byte(tc.in))
	}
	for _, in := range agreementCases {
		checkAgrees(t, s, "agreement", []byte(in))
	}
	for _, path := range examplePaths(t) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkAgrees(t, s, path, b)
	}
}

func TestSchemaValidatesExamples(t *testing.T) {
	s := loadSchema(t)
	for _, path := range examplePaths(t) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonValue(b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if errs := s.validate(s.root, v, "$"); len(errs) > 0 {
			t.Errorf("%s does not validate:\n%s", path, strings.Join(errs, "\n"))
		}
	}
	// And the validator does reject things, so the check above means
	// something.
	if errs := s.validate(s.root, map[string]any{"version": int64(1), "rule": []any{}}, "$"); len(errs) == 0 {
		t.Error("the schema accepts an unknown key")
	}
}

// loaderKeys returns the keys the loader knows in a mapping, from the
// message for an unknown key placed there.
func loaderKeys(t *testing.T, in string) []string {
	t.Helper()
	_, err := Parse("r.yaml", []byte(in))
	m := regexp.MustCompile(`unknown key "zz" in [^(]*\(want one of ([^)]*)\)`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil {
		t.Fatalf("%q: no unknown-key error in %v", in, err)
	}
	return strings.Split(m[1], ", ")
}

// schemaKeys returns the property names a schema allows, across its
// oneOf branches.
func (s *jsonSchema) keys(sch map[string]any) []string {
	sch = s.resolve(sch)
	var ks []string
	if props, ok := sch["properties"].(map[string]any); ok {
		if sch["additionalProperties"] != false {
			panic("an object without additionalProperties: false")
		}
		for k := range props {
			ks = append(ks, k)
		}
	}
	if alts, ok := sch["oneOf"].([]any); ok {
		for _, a := range alts {
			for _, k := range s.keys(a.(map[string]any)) {
				if !slices.Contains(ks, k) {
					ks = append(ks, k)
				}
			}
		}
	}
	sort.Strings(ks)
	return ks
}

// at follows properties from the root, resolving references.
func (s *jsonSchema) at(path ...string) map[string]any {
	cur := s.root
	for _, p := range path {
		if items, ok := cur["items"].(map[string]any); ok && p == "[]" {
			cur = s.resolve(items)
			continue
		}
		cur = s.resolve(cur["properties"].(map[string]any)[p].(map[string]any))
	}
	return cur
}

func TestSchemaKeysMatchLoader(t *testing.T) {
	s := loadSchema(t)
	var selectIndex map[string]any // the {index: N} form of select
	for _, alt := range s.at("rules", "[]", "answer")["oneOf"].([]any) {
		if sel, ok := s.resolve(alt.(map[string]any))["properties"].(map[string]any)["select"]; ok {
			for _, form := range s.resolve(sel.(map[string]any))["oneOf"].([]any) {
				if form.(map[string]any)["type"] == "object" {
					selectIndex = form.(map[string]any)
				}
			}
		}
	}
	for _, tc := range []struct {
		where  string
		schema map[string]any
		yaml   string
	}{
		{"top", s.root, "version: 1\nzz: 1\n"},
		{"defaults", s.at("defaults"), "version: 1\ndefaults: {zz: 1}\n"},
		{"rule", s.at("rules", "[]"), "version: 1\nrules: [{zz: 1, answer: {cancel: true}}]\n"},
		{"when", s.at("rules", "[]", "when"), "version: 1\nrules: [{when: {zz: 1}, answer: {cancel: true}}]\n"},
		{"answer", s.at("rules", "[]", "answer"), "version: 1\nrules: [{answer: {zz: 1, cancel: true}}]\n"},
		{"select", selectIndex, "version: 1\nrules: [{answer: {select: {zz: 1, index: 1}}}]\n"},
		{"dialogs", s.at("dialogs"), "version: 1\ndialogs: {zz: 1}\n"},
	} {
		got, want := s.keys(tc.schema), loaderKeys(t, tc.yaml)
		if !slices.Equal(got, want) {
			t.Errorf("%s: schema keys %q, loader keys %q", tc.where, got, want)
		}
	}

	// The fallback takes every answer key but select.
	fb := s.keys(s.at("defaults", "fallback"))
	want := slices.DeleteFunc(loaderKeys(t, "version: 1\ndefaults: {fallback: {zz: 1}}\n"), func(k string) bool { return k == "select" })
	if !slices.Equal(fb, want) {
		t.Errorf("fallback: schema keys %q, loader keys %q without select", fb, want)
	}

	// on_unmatched: the schema's enum is exactly the policies.
	var enum []string
	for _, e := range s.at("defaults", "on_unmatched")["enum"].([]any) {
		enum = append(enum, e.(string))
		if _, err := ParsePolicy(e.(string)); err != nil {
			t.Errorf("schema policy %q: %v", e, err)
		}
	}
	_, err := ParsePolicy("zz")
	m := regexp.MustCompile(`\(want (.*)\)`).FindStringSubmatch(err.Error())
	policies := strings.Split(strings.Replace(m[1], " or ", ", ", 1), ", ")
	sort.Strings(enum)
	sort.Strings(policies)
	if !slices.Equal(enum, policies) {
		t.Errorf("on_unmatched: schema %q, loader %q", enum, policies)
	}

	// version and index bounds.
	if c := s.at("version")["const"]; c != float64(1) {
		t.Errorf("version const %v", c)
	}
	for i := -1; i <= 6; i++ {
		in := fmt.Sprintf("version: 1\nrules: [{answer: {select: {index: %d}}}]\n", i)
		checkAgrees(t, s, fmt.Sprintf("index %d", i), []byte(in))
	}
}

// examplePaths lists the example rule files.
func examplePaths(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	return paths
}
