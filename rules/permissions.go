package rules

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Permission is one entry of permissions: what to do when a tool asks for
// the person's permission (Bash, Write, WebFetch, an MCP tool…) or Claude
// asks to leave plan mode (tool ExitPlanMode).
type Permission struct {
	Name   string
	When   PermissionWhen
	Decide Verdict
	Line   int
}

// PermissionWhen holds a permission rule's conditions; all set fields
// must hold.
type PermissionWhen struct {
	Tool    *regexp.Regexp // RE2 on the whole tool name
	Command *regexp.Regexp // RE2 on tool_input.command (Bash)
	Path    string         // glob on tool_input.file_path, path or notebook_path; ** spans folders
	Host    string         // glob on the host of tool_input.url (WebFetch)
	Input   *regexp.Regexp // RE2 on tool_input as JSON, for anything else
}

// Action is what a permission rule decides.
type Action string

// Permission actions.
const (
	Allow        Action = "allow"         // this once
	AllowSession Action = "allow_session" // "Yes, and don't ask again …" (drawn on the screen)
	Deny         Action = "deny"          // with a message Claude reads
	AskPerson    Action = "ask"           // the person answers Claude's own dialog
	FailRun      Action = "fail"          // end the run (exit 7)
	SelectOption Action = "select"        // an option of the dialog by its label
)

// Verdict is a permission rule's decision.
type Verdict struct {
	Action  Action
	Message string // deny: what Claude is told
	Label   string // select: the option
}

func (v Verdict) String() string {
	switch v.Action {
	case Deny:
		return fmt.Sprintf("deny %q", v.Message)
	case SelectOption:
		return fmt.Sprintf("select %q", v.Label)
	}
	return string(v.Action)
}

// permission parses one permission rule and returns the name it was given
// ("" for none).
func (p *parser) permission(n *yaml.Node) string {
	r := Permission{Line: n.Line}
	var sawDecide, sawWhen, sawTool bool
	before := len(p.errs)
	p.fields(n, "a permission", map[string]func(k, v *yaml.Node){
		"name": func(k, v *yaml.Node) {
			if s, ok := p.str(v, "name"); ok {
				r.Name = s
			}
		},
		"when": func(k, v *yaml.Node) {
			sawWhen = true
			sawTool = p.permissionWhen(v, &r.When)
		},
		"decide": func(k, v *yaml.Node) {
			sawDecide = true
			r.Decide = p.verdict(v)
		},
	})
	if n.Kind != yaml.MappingNode {
		return ""
	}
	typo := p.typoSince(before)
	if !sawDecide && !typo {
		p.errorf(n, "permission has no decide")
	}
	if (!sawWhen && !typo) || (sawWhen && !sawTool) {
		p.errorf(n, "permission needs when: {tool: …}: a decision for every tool is a decision nobody reviewed")
	}
	named := r.Name
	if r.Name == "" {
		r.Name = fmt.Sprintf("permission at line %d", n.Line)
	}
	p.file.Permissions = append(p.file.Permissions, r)
	return named
}

// permissionWhen reads a permission's when, and reports whether it names a
// tool (a tool that is a bad regular expression is named, and said).
func (p *parser) permissionWhen(n *yaml.Node, w *PermissionWhen) (named bool) {
	glob := func(v *yaml.Node, what string) string {
		s, ok := p.str(v, what)
		if !ok {
			return ""
		}
		if _, err := path.Match(strings.ReplaceAll(s, "**", "*"), ""); err != nil || s == "" {
			p.errorf(v, "%s: bad glob %q", what, s)
			return ""
		}
		return s
	}
	p.fields(n, "when", map[string]func(k, v *yaml.Node){
		"tool": func(k, v *yaml.Node) {
			named = true
			if re := p.regex(v, "tool"); re != nil {
				w.Tool = regexp.MustCompile("^(?:" + re.String() + ")$")
			}
		},
		"command": func(k, v *yaml.Node) { w.Command = p.regex(v, "command") },
		"path":    func(k, v *yaml.Node) { w.Path = glob(v, "path") },
		"host":    func(k, v *yaml.Node) { w.Host = glob(v, "host") },
		"input":   func(k, v *yaml.Node) { w.Input = p.regex(v, "input") },
	})
	return named
}

func (p *parser) verdict(n *yaml.Node) Verdict {
	if n.Kind == yaml.ScalarNode {
		s, ok := p.str(n, "decide")
		if !ok {
			return Verdict{}
		}
		switch a := Action(s); a {
		case Allow, AllowSession, AskPerson, FailRun:
			return Verdict{Action: a}
		case Deny:
			p.errorf(n, "deny needs a message Claude reads: decide: {deny: \"why\"}")
		default:
			p.errorf(n, "decide: unknown %q (want allow, allow_session, ask, fail, {deny: MESSAGE} or {select: LABEL})", s)
		}
		return Verdict{}
	}
	var v Verdict
	var actions []string
	p.fields(n, "decide", map[string]func(k, v *yaml.Node){
		"deny": func(k, val *yaml.Node) {
			actions = append(actions, "deny")
			if s, ok := p.str(val, "deny"); ok {
				if strings.TrimSpace(s) == "" {
					p.errorf(val, "deny: the message is empty")
					return
				}
				v = Verdict{Action: Deny, Message: s}
			}
		},
		"select": func(k, val *yaml.Node) {
			actions = append(actions, "select")
			if s, ok := p.str(val, "select"); ok {
				if strings.TrimSpace(s) == "" {
					p.errorf(val, "select: the label is empty")
					return
				}
				v = Verdict{Action: SelectOption, Label: s}
			}
		},
	})
	if n.Kind == yaml.MappingNode && len(actions) != 1 {
		p.errorf(n, "decide needs exactly one of deny, select")
		return Verdict{}
	}
	return v
}

// PermissionDecision is the outcome of matching one permission request.
type PermissionDecision struct {
	Verdict
	Rule string // "" when no rule matched
	File string
	Line int
}

// Matched reports whether a rule decided.
func (d PermissionDecision) Matched() bool { return d.Rule != "" }

// Permit matches a tool's permission request: the first rule of the first
// file whose when holds decides.
func (s *Set) Permit(tool string, input json.RawMessage) PermissionDecision {
	for _, f := range s.Files {
		for _, r := range f.Permissions {
			if r.When.holds(tool, input) {
				return PermissionDecision{Verdict: r.Decide, Rule: r.Name, File: f.Path, Line: r.Line}
			}
		}
	}
	return PermissionDecision{}
}

// Denies reports whether a permission rule denies or fails a tool: such a
// rule must be enforced for every tool call, not only those Claude asks
// about.
func (s *Set) Denies() bool {
	for _, f := range s.Files {
		for _, r := range f.Permissions {
			if r.Decide.Action == Deny || r.Decide.Action == FailRun {
				return true
			}
		}
	}
	return false
}

// AnswersDialogs reports whether a permission rule allows, asks or
// selects: such rules act only on the dialogs Claude shows, which some of
// its modes never do.
func (s *Set) AnswersDialogs() bool {
	for _, f := range s.Files {
		for _, r := range f.Permissions {
			if r.Decide.Action != Deny && r.Decide.Action != FailRun {
				return true
			}
		}
	}
	return false
}

// Trust is the first rules file that says to answer the trust dialog
// "Yes"; "" when none does.
func (s *Set) Trust() string {
	for _, f := range s.Files {
		if f.Dialogs.Trust {
			return f.Path
		}
	}
	return ""
}

// Bypass is the first rules file that says to accept the
// bypass-permissions confirmation; "" when none does.
func (s *Set) Bypass() string {
	for _, f := range s.Files {
		if f.Dialogs.Bypass {
			return f.Path
		}
	}
	return ""
}

func (w PermissionWhen) holds(tool string, input json.RawMessage) bool {
	if w.Tool == nil || !w.Tool.MatchString(tool) {
		return false
	}
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	str := func(keys ...string) (string, bool) {
		for _, k := range keys {
			if s, ok := in[k].(string); ok {
				return s, true
			}
		}
		return "", false
	}
	if w.Command != nil {
		c, ok := str("command")
		if !ok || !w.Command.MatchString(c) {
			return false
		}
	}
	if w.Path != "" {
		p, ok := str("file_path", "path", "notebook_path")
		if !ok || !globMatch(w.Path, p) {
			return false
		}
	}
	if w.Host != "" {
		raw, ok := str("url")
		u, err := url.Parse(raw)
		if !ok || err != nil || u.Hostname() == "" || !globMatch(w.Host, strings.ToLower(u.Hostname())) {
			return false
		}
	}
	if w.Input != nil && !w.Input.Match(input) {
		return false
	}
	return true
}

// globMatch is path.Match with "**" spanning folders.
func globMatch(pattern, name string) bool {
	if !strings.Contains(pattern, "**") {
		ok, _ := path.Match(pattern, name)
		return ok
	}
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			re.WriteString(".*")
			i++
		case c == '*':
			re.WriteString("[^/]*")
		case c == '?':
			re.WriteString("[^/]")
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	ok, _ := regexp.MatchString(re.String(), name)
	return ok
}
