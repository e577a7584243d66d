package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// FormField is one field of an elicitation's requested schema, as Claude
// Code draws it: in the schema's order of properties, under its title (its
// name when it has none).
type FormField struct {
	Name  string
	Title string
	// Type is the schema's: string, boolean, number, integer or array.
	Type string
	// Values are an enum's or a multi-select's option values; Labels what
	// Claude draws for each (enumNames where given, else the values).
	Values, Labels []string
	// Titled says the options are given as oneOf or anyOf {const, title}.
	Titled bool
	// Format is a string field's format (email, uri, date, date-time).
	Format string
	// Default is the schema's default value, if any (Claude shows it set).
	Default json.RawMessage
	// Required says the server requires a value (Claude marks it "*").
	Required bool
}

// FormFields reads an elicitation's requested schema into its fields, in
// the order the schema lists them.
func FormFields(b json.RawMessage) ([]FormField, error) {
	sc, err := parseSchema(b)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	order, err := objectKeys(raw.Properties)
	if err != nil {
		return nil, fmt.Errorf("the server's schema cannot be read: %v", err)
	}
	var defaults map[string]struct {
		Default json.RawMessage `json:"default"`
	}
	_ = json.Unmarshal(raw.Properties, &defaults)
	required := map[string]bool{}
	for _, r := range sc.Required {
		required[r] = true
	}
	var out []FormField
	for _, name := range order {
		p := sc.Properties[name]
		f := FormField{Name: name, Title: p.Title, Type: p.Type, Format: p.Format, Default: defaults[name].Default, Required: required[name]}
		if f.Title == "" {
			f.Title = name
		}
		var names []string
		switch {
		case p.Type == "array" && p.Items != nil:
			f.Values, names = p.Items.Enum, p.Items.EnumNames
			f.Titled = len(p.Items.AnyOf) > 0 || len(p.AnyOf) > 0
		case p.Type == "array":
			f.Titled = len(p.AnyOf) > 0
		default:
			f.Values, names = p.Enum, p.EnumNames
			f.Titled = len(p.OneOf) > 0
		}
		f.Labels = append([]string(nil), f.Values...)
		if len(names) == len(f.Values) {
			copy(f.Labels, names)
		}
		out = append(out, f)
	}
	return out, nil
}

// objectKeys lists a JSON object's keys in the order written.
func objectKeys(b json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("properties is not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
