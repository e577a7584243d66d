package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// ElicitReply reads an answer to an MCP server's form given from elsewhere
// (claudewrap answer, a remote client): action accept, decline or cancel,
// and for accept the values as a YAML or JSON mapping of field: value,
// written as a rule's accept is. The values are checked against the
// server's schema exactly as a rule's are; accept's content is returned.
// what names the values in messages (a flag, say).
func ElicitReply(schema json.RawMessage, action, values, what string) (map[string]any, error) {
	switch ElicitAction(action) {
	case Decline, Cancel:
		if values != "" {
			return nil, fmt.Errorf("%s: values go with accept, not %s", what, action)
		}
		return nil, nil
	case Accept:
	default:
		return nil, fmt.Errorf("unknown action %q (want accept, decline or cancel)", action)
	}
	a, err := parseAccept(what, []byte(values))
	if err != nil {
		return nil, err
	}
	sc, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	out, err := sc.content(a)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return out, nil
}

// parseAccept reads accept's values with the rules' own parser: empty (or
// null) is accept with no values.
func parseAccept(what string, b []byte) (ElicitAnswer, error) {
	p := &parser{file: &File{Path: what}}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return ElicitAnswer{Action: Accept, Values: map[string]Value{}}, nil
		}
		return ElicitAnswer{}, Errors{yamlError(what, b, err)}
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "accept"}
	a := p.elicitAnswer(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{key, doc.Content[0]}})
	if len(p.errs) > 0 {
		return ElicitAnswer{}, p.errs
	}
	return a, nil
}
