package rules

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError places a YAML syntax error. yaml.v3 names the line where the
// enclosing construct starts (and, for parser errors, one line early), so
// the line is found instead as the first whose prefix of the file fails with
// the same message. Once the bad line is in, every longer prefix fails the
// same way, so a binary search finds it: a few parses, not one per line.
func yamlError(path string, b []byte, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		fmt.Sscan(m[1], &line)
		msg = m[2]
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	// ends[k] is where the prefix of k lines ends.
	ends := make([]int, len(lines)+1)
	for i, l := range lines {
		ends[i+1] = ends[i] + len(l)
	}
	failsSame := func(k int) bool {
		var n yaml.Node
		perr := yaml.Unmarshal(b[:ends[k]], &n)
		if perr == nil {
			return false
		}
		pm := strings.TrimPrefix(perr.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(perr.Error()); m != nil {
			pm = m[2]
		}
		return pm == msg
	}
	reported := line
	lo, hi := max(line-1, 1), len(lines)
	if lo <= hi && failsSame(hi) {
		for lo < hi {
			mid := lo + (hi-lo)/2
			if failsSame(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		line = lo
	}
	if strings.Contains(msg, "found unknown escape character") {
		// yaml.v3 names the line the string starts on: it is found there.
		if e := badEscape(path, lines, reported); e != nil {
			return e
		}
	}
	return &Error{File: path, Line: max(line, 1), Col: 1, Msg: syntaxMessage(msg)}
}

// yamlEscapes are the characters YAML takes after a backslash in a
// double-quoted string (and a line break, which continues the line).
const yamlEscapes = "0abt\tnvfre \"/\\N_LPxuU\n\r"

// badEscape places a backslash YAML does not take in a double-quoted
// string, a regular expression's \d most often: the string that starts on
// line (from 1) and holds it, at its opening quote, with the two ways to
// write it. nil when no such string starts there.
func badEscape(path string, lines [][]byte, line int) *Error {
	if line < 1 || line > len(lines) {
		return nil
	}
	rest := bytes.Join(lines[line-1:], nil)
	first := lines[line-1]
	for i := 0; i < len(first); i++ {
		switch first[i] {
		case '#':
			if i == 0 || first[i-1] == ' ' || first[i-1] == '\t' {
				return nil // a comment: no string starts after it
			}
		case '\'':
			if quoteStarts(first, i) {
				// A single-quoted string: no escapes in it, and no quote starts inside.
				for i++; i < len(first); i++ {
					if first[i] == '\'' && (i+1 >= len(first) || first[i+1] != '\'') {
						break
					}
					if first[i] == '\'' {
						i++
					}
				}
			}
		case '"':
			if !quoteStarts(first, i) {
				continue
			}
			raw, bad, end := scanDoubleQuoted(rest[i+1:])
			if bad == "" {
				i += end + 1
				continue
			}
			return &Error{File: path, Line: line, Col: len([]rune(string(first[:i]))) + 1, Msg: escapeMessage(raw, bad)}
		}
	}
	return nil
}

// escapeMessage says why the double-quoted string raw (its text between
// the quotes) is refused for the backslash before bad, and how to write it:
// in single quotes, where a backslash is a backslash, when nothing else in
// it needs double quotes; else with each such backslash doubled.
func escapeMessage(raw, bad string) string {
	var doubled strings.Builder
	escapes := false // a backslash that does mean an escape: single quotes would change the text
	for i := 0; i < len(raw); i++ {
		doubled.WriteByte(raw[i])
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		r, n := utf8.DecodeRuneInString(raw[i+1:])
		if !strings.ContainsRune(yamlEscapes, r) {
			doubled.WriteByte('\\')
		} else {
			escapes = true
		}
		doubled.WriteString(raw[i+1 : i+1+n])
		i += n
	}
	what := `"` + raw + `"`
	if strings.Contains(raw, "\n") {
		what = "this string"
	}
	fix := fmt.Sprintf(`write it with each such backslash doubled, "%s"`, doubled.String())
	switch {
	case strings.Contains(raw, "\n"):
		fix = fmt.Sprintf(`double each such backslash (\\%s)`, bad)
	case !escapes && !strings.Contains(raw, "'"):
		fix = fmt.Sprintf(`write '%s' in single quotes, or "%s"`, raw, doubled.String())
	}
	return fmt.Sprintf("YAML syntax error: %s: in double quotes YAML reads a backslash as an escape, and \\%s is none: %s; the rest of the file was not checked",
		what, bad, fix)
}

// quoteStarts reports whether the quote at b[i] opens a quoted string: it
// starts a value, not inside a plain one (it's).
func quoteStarts(b []byte, i int) bool {
	j := i - 1
	for j >= 0 && (b[j] == ' ' || b[j] == '\t') {
		j--
	}
	return j < 0 || strings.IndexByte(":[{,-?", b[j]) >= 0 && j < i-1 || strings.IndexByte("[{,", b[j]) >= 0
}

// scanDoubleQuoted reads a double-quoted string's text after its opening
// quote: its raw text up to the closing quote, the first character after a
// backslash that is no YAML escape ("" for none), and where the closing
// quote is.
func scanDoubleQuoted(b []byte) (raw, bad string, end int) {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			return string(b[:i]), bad, i
		case '\\':
			if i+1 < len(b) {
				r, _ := utf8.DecodeRune(b[i+1:])
				if bad == "" && !strings.ContainsRune(yamlEscapes, r) {
					bad = string(r)
				}
				i++
			}
		}
	}
	return string(b), bad, len(b)
}

// syntaxHints say in a person's words what yaml.v3's commonest syntax
// errors mean.
var syntaxHints = []struct{ raw, hint string }{
	{"did not find expected ',' or '}'", "a { … } opened here or above is not closed"},
	{"did not find expected ',' or ']'", "a [ … ] opened here or above is not closed"},
	{"mapping values are not allowed in this context", "a ':' where a value was expected: quote the value, or check the indentation"},
	{"did not find expected key", "this line's indentation does not line up with the keys above it"},
	{"did not find expected '-' indicator", "this list item's indentation does not line up with the items above it"},
	{"found character that cannot start any plain scalar", "a value starts with a character YAML reserves (` @ % or a tab): quote it"},
	{"found a tab character", "a tab in the indentation: YAML indents with spaces"},
	{"could not find expected ':'", "a key without its ':' (or a line that belongs to the text above it)"},
	{"found unexpected end of stream", "the file ends inside a quoted string, a { … } or a [ … ]"},
	{"did not find expected node content", "a value is missing here, or a [ … ] or { … } is not closed"},
	{"found character that cannot start any token", "a tab, or a character YAML reserves, where a key or value starts (YAML indents with spaces)"},
	{"found undefined tag handle", "a '!' starts a YAML tag: quote the value"},
}

// syntaxMessage is a YAML syntax error for a person: what it likely means,
// the parser's own words, and that nothing after it was checked (a parser
// cannot go on past a syntax error).
func syntaxMessage(raw string) string {
	hint := ""
	for _, h := range syntaxHints {
		if strings.Contains(raw, h.raw) {
			hint = h.hint + " "
			break
		}
	}
	return fmt.Sprintf("YAML syntax error: %s(the parser says: %s); the rest of the file was not checked", hint, raw)
}

// parser reads a rules file's YAML nodes strictly, gathering every
// problem with its place.
type parser struct {
	file      *File
	errs      Errors
	regexSize int // what the file's regular expressions compile to so far
}

// typoSince reports whether an unknown key was reported since the error
// count was before: a missing key is then most likely that typo, and is
// not reported again.
func (p *parser) typoSince(before int) bool {
	for _, e := range p.errs[before:] {
		if strings.HasPrefix(e.Msg, "unknown key ") {
			return true
		}
	}
	return false
}

// unique reports a name given to two rules (or two permissions) of a file:
// events and rules test name the rule that answered, so each must say which.
func (p *parser) unique(n *yaml.Node, what, name string, seen map[string]int) {
	if name == "" {
		return
	}
	if first, dup := seen[name]; dup {
		p.errorf(n, "%s name %q is used twice (first at line %d)", what, name, first)
		return
	}
	seen[name] = n.Line
}

// entries parses the list under key, each entry with parse, which returns
// the name the entry was given ("" for none): names must differ.
func (p *parser) entries(n *yaml.Node, key, what string, parse func(*yaml.Node) string) {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list, not %s", key, kind(n))
		return
	}
	names := map[string]int{}
	for _, e := range n.Content {
		p.unique(e, what, parse(e), names)
	}
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file.Path, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)})
}

// fields walks a mapping, calling each known key's handler and reporting
// unknown and repeated keys.
func (p *parser) fields(n *yaml.Node, what string, known map[string]func(k, v *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping, not %s", what, kind(n))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := known[k.Value]
		switch {
		case !isString(k):
			p.errorf(k, "keys in %s must be names, not %s", what, kind(k))
		case !ok:
			p.errorf(k, "unknown key %q in %s (want one of %s)", k.Value, what, keyList(known))
		case seen[k.Value]:
			p.errorf(k, "%q given twice in %s", k.Value, what)
		default:
			seen[k.Value] = true
			f(k, v)
		}
	}
	return true
}

func keyList(m map[string]func(k, v *yaml.Node)) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!null":
		return "empty"
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	case "!!str":
		return "a string"
	case "!!merge":
		return "a merge key (<<)"
	}
	return "a value tagged " + n.Tag
}

// isString reports whether n is a string. A plain scalar that looks like a
// date is one too: YAML 1.2, which editors follow, has no timestamps.
func isString(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode &&
		(n.Tag == "!!str" || n.Tag == "!!timestamp" && n.Style&yaml.TaggedStyle == 0)
}

// intValue returns the value of an integer scalar, written as YAML allows
// (2, 0x2, 0o2, 1_000).
func intValue(n *yaml.Node) (int64, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, false
	}
	i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	return i, err == nil
}

func (p *parser) str(n *yaml.Node, what string) (string, bool) {
	if !isString(n) {
		p.errorf(n, "%s must be a string, not %s", what, kind(n))
		return "", false
	}
	return n.Value, true
}

func (p *parser) regex(n *yaml.Node, what string) *regexp.Regexp {
	s, ok := p.str(n, what)
	if !ok {
		return nil
	}
	re, err := p.compileRegex(s)
	if err != nil {
		p.errorf(n, "%s: %v", what, err)
		return nil
	}
	return re
}
