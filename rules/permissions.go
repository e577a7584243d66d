package rules

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

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
	Command *regexp.Regexp // RE2 on each part of tool_input.command (Bash), see [ReadCommand]
	Path    string         // glob on tool_input.file_path, path or notebook_path, cleaned and absolute; ** spans folders
	Host    string         // glob on the host of tool_input.url (WebFetch)
	Input   *regexp.Regexp // RE2 on tool_input as JSON, for anything else

	// ends says Command matches only up to the end of a part ($): it spells
	// out what may follow the command's name, redirections too.
	ends bool
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
		"command": func(k, v *yaml.Node) {
			if w.Command = p.regex(v, "command"); w.Command != nil {
				w.ends = endAnchored(w.Command.String())
			}
		},
		"path":  func(k, v *yaml.Node) { w.Path = glob(v, "path") },
		"host":  func(k, v *yaml.Node) { w.Host = glob(v, "host") },
		"input": func(k, v *yaml.Node) { w.Input = p.regex(v, "input") },
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
	// Met is what a deny, fail or ask met when it is one of several: the
	// part of a command ([Part.Text]), or the path a symbolic link leads
	// to. "" otherwise.
	Met string
}

// Matched reports whether a rule decided.
func (d PermissionDecision) Matched() bool { return d.Rule != "" }

// Call is a tool call a permission rule decides: the tool, its input as
// Claude sent it, and the folder Claude works in, from which a relative
// path is taken ("" for this process's).
type Call struct {
	Tool  string
	Input json.RawMessage
	Cwd   string
}

// Permit matches a tool's permission request: the first rule of the first
// file whose when holds decides. A rule that lets the call run (allow,
// allow_session, a select that is not a No) holds only when each of its
// conditions holds for every reading of the call: every part of a Bash
// command ([ReadCommand]), none of them unjudged, and a path both as given
// and where its symbolic links lead. A deny, fail or ask holds when each
// of its conditions holds for one reading.
//
// A command part that is opaque ([Part.Opaque]) hides what it runs from a
// deny as well. So while a deny or fail rule with a command condition
// holds for the tool, a call with such a part that no deny or fail rule
// refuses is refused all the same: the decision is a deny, its rule
// [UnjudgedRule], its file and line those of the deny in force.
func (s *Set) Permit(c Call) PermissionDecision {
	in := newReading(c)
	var d PermissionDecision
	for _, f := range s.Files {
		for _, r := range f.Permissions {
			if met, ok := r.When.holds(in, r.Decide.lets()); ok {
				d = PermissionDecision{Verdict: r.Decide, Rule: r.Name, File: f.Path, Line: r.Line, Met: met}
				break
			}
		}
		if d.Matched() {
			break
		}
	}
	if d.Action == Deny || d.Action == FailRun {
		return d
	}
	if r, file := s.commandDeny(c.Tool); r != nil {
		if parts, ok := in.commandParts(); ok {
			for _, p := range parts {
				if p.Opaque {
					msg := fmt.Sprintf("claudewrap cannot tell what this command runs (%s: %s), and a deny rule is in force (%s): "+
						"run it with every command it runs named plainly in it", p.Unjudged, clip(p.Text, 200), r.Name)
					return PermissionDecision{Verdict: Verdict{Action: Deny, Message: msg}, Rule: UnjudgedRule,
						File: file, Line: r.Line, Met: p.Text}
				}
			}
		}
	}
	return d
}

// UnjudgedRule is the rule [Set.Permit] names when it refuses a command it
// cannot see into while a deny rule is in force.
const UnjudgedRule = "unjudged"

// commandDeny is the first deny or fail rule that judges the commands of
// the tool's calls (it has a command condition, and its tool matches), and
// its file; nil when none does.
func (s *Set) commandDeny(tool string) (*Permission, string) {
	for _, f := range s.Files {
		for i, r := range f.Permissions {
			if (r.Decide.Action == Deny || r.Decide.Action == FailRun) && r.When.Command != nil &&
				r.When.Tool != nil && r.When.Tool.MatchString(tool) {
				return &f.Permissions[i], f.Path
			}
		}
	}
	return nil, ""
}

// clip is s cut to n bytes at most, with … where it was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Meets is the first permission rule whose command condition p's text
// meets, the call's other conditions holding as for a deny: what `rules
// test` shows beside each part of a command. A rule with no command
// condition is not counted: it decides the call whole.
func (s *Set) Meets(c Call, p Part) PermissionDecision {
	in := newReading(c)
	in.parts, in.read = []Part{{Text: p.Text}}, true
	for _, f := range s.Files {
		for _, r := range f.Permissions {
			if r.When.Command == nil {
				continue
			}
			if _, ok := r.When.holds(in, false); ok {
				return PermissionDecision{Verdict: r.Decide, Rule: r.Name, File: f.Path, Line: r.Line}
			}
		}
	}
	return PermissionDecision{}
}

// lets reports whether v lets the call run: such a verdict needs its rule
// to hold for all of the call.
func (v Verdict) lets() bool {
	switch v.Action {
	case Allow, AllowSession:
		return true
	case SelectOption:
		return v.Label != "No" && !strings.HasPrefix(v.Label, "No, ")
	}
	return false
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

// AutoMode is how the rules answer auto mode's "can't check actions"
// dialog (stay or leave) and the file that says so; "" when none does.
func (s *Set) AutoMode() (answer, file string) {
	for _, f := range s.Files {
		if f.Dialogs.AutoMode != "" {
			return f.Dialogs.AutoMode, f.Path
		}
	}
	return "", ""
}

// APIKey is how the rules answer the custom API key question (use or
// refuse) and the file that says so; "" when none does.
func (s *Set) APIKey() (answer, file string) {
	for _, f := range s.Files {
		if f.Dialogs.APIKey != "" {
			return f.Dialogs.APIKey, f.Path
		}
	}
	return "", ""
}

// MCPServer is the rules file of the person's that says to use the
// project's new MCP server name; "" when none does. A folder's own
// .claudewrap.yaml never does, even allowed: a server the repository
// names would run the repository's code.
func (s *Set) MCPServer(name string) string {
	for _, f := range s.Files {
		if f.Source != Folder && slices.Contains(f.Dialogs.MCPServers, name) {
			return f.Path
		}
	}
	return ""
}

// reading is a call as the rules read it: its input's fields, and, read
// when a rule first needs them, its command's parts and its path's
// readings.
type reading struct {
	Call
	fields     map[string]any
	parts      []Part
	paths      []string
	read, seen bool // parts, paths hold what was read
}

func newReading(c Call) *reading {
	in := &reading{Call: c}
	_ = json.Unmarshal(c.Input, &in.fields)
	return in
}

func (in *reading) str(keys ...string) (string, bool) {
	for _, k := range keys {
		if s, ok := in.fields[k].(string); ok {
			return s, true
		}
	}
	return "", false
}

// commandParts are the parts of the call's command; false when it has none.
func (in *reading) commandParts() ([]Part, bool) {
	c, ok := in.str("command")
	if !ok {
		return nil, false
	}
	if !in.read {
		in.parts, in.read = ReadCommand(c), true
	}
	return in.parts, true
}

// writesOutside reports whether a redirection of p writes a file outside
// the folder Claude works in: a path from an expansion, ~, or one that
// leads out of the folder (through a symbolic link too). /dev/null and the
// standard streams are no file.
func (in *reading) writesOutside(p Part) bool {
	for _, w := range p.writes {
		switch {
		case w == "" || strings.HasPrefix(w, "~"):
			return true
		case w == "/dev/null" || w == "/dev/stdout" || w == "/dev/stderr" || w == "/dev/tty" || strings.HasPrefix(w, "/dev/fd/"):
			continue
		}
		cwd := in.Cwd
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		folders := PathReadings(cwd, "")
		for _, reading := range PathReadings(w, cwd) {
			if !slices.ContainsFunc(folders, func(dir string) bool { return within(reading, dir) }) {
				return true
			}
		}
	}
	return false
}

// within reports whether p is dir or a path under it, both clean and
// absolute.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// pathReadings are the call's path as Claude's hooks give it, cleaned and
// absolute, then where its symbolic links lead when that is elsewhere;
// false when it has no path.
func (in *reading) pathReadings() ([]string, bool) {
	p, ok := in.str("file_path", "path", "notebook_path")
	if !ok {
		return nil, false
	}
	if !in.seen {
		in.paths, in.seen = PathReadings(p, in.Cwd), true
	}
	return in.paths, true
}

// PathReadings are the paths a path rule matches for p: p cleaned and
// absolute as Claude's hooks give it (~ is the home folder; a relative
// path is taken from cwd, "" for this process's folder), then, when a
// symbolic link on its way leads elsewhere, where it leads: the path as
// filepath.EvalSymlinks gives it, or for a path not made yet that of its
// longest existing parent with the rest after it.
func PathReadings(p, cwd string) []string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = home + p[1:]
		}
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	if real := resolve(p, 0); real != p {
		return []string{p, real}
	}
	return []string{p}
}

// resolve is where p leads through symbolic links, p cleaned and absolute:
// a link that leads nowhere yet leads to where its target would be made.
func resolve(p string, hops int) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if hops > 40 { // a loop of links
		return p
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		return resolve(filepath.Clean(target), hops+1)
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolve(parent, hops+1), filepath.Base(p))
}

// holds reports whether w holds for the call: with every, each condition
// for all of its readings, else for one; met is the reading a condition
// met when it is one of several.
func (w PermissionWhen) holds(in *reading, every bool) (met string, ok bool) {
	if w.Tool == nil || !w.Tool.MatchString(in.Tool) {
		return "", false
	}
	if w.Command != nil {
		parts, ok := in.commandParts()
		if !ok {
			return "", false
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			switch {
			case every && p.Unjudged != "":
				return "", false
			case every && !w.ends && in.writesOutside(p):
				// A pattern that stops before the part's end did not
				// spell out a redirection that writes outside the folder.
				return "", false
			case every && p.Through:
				continue // a harmless wrapper: the part after it is judged
			}
			texts = append(texts, p.Text)
		}
		m, ok := matches(texts, every, w.Command.MatchString)
		if !ok {
			return "", false
		}
		if len(parts) > 1 {
			met = m
		}
	}
	if w.Path != "" {
		paths, ok := in.pathReadings()
		if !ok {
			return "", false
		}
		m, ok := matches(paths, every, func(p string) bool { return globMatch(w.Path, p) })
		if !ok {
			return "", false
		}
		if m != paths[0] && met == "" {
			met = m
		}
	}
	if w.Host != "" {
		raw, ok := in.str("url")
		u, err := url.Parse(raw)
		if !ok || err != nil || u.Hostname() == "" || !globMatch(w.Host, strings.ToLower(u.Hostname())) {
			return "", false
		}
	}
	if w.Input != nil && !w.Input.Match(in.Input) {
		return "", false
	}
	return met, true
}

// matches reports whether match holds for every reading (one at least), or
// for one; met is the first it holds for.
func matches(readings []string, every bool, match func(string) bool) (met string, ok bool) {
	for _, r := range readings {
		switch m := match(r); {
		case every && !m:
			return "", false
		case !every && m:
			return r, true
		}
	}
	return "", every && len(readings) > 0
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
