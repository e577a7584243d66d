package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/safefile"
)

// Policy is what happens to a question no rule answers.
type Policy string

// Policies for a question no rule answers (docs/run.md, --on-unmatched).
const (
	Passthrough Policy = "passthrough"
	Ask         Policy = "ask"
	Fallback    Policy = "fallback"
	Wait        Policy = "wait" // an answer from anywhere: claudewrap answer, the person at the screen
	CancelForm  Policy = "cancel"
	Fail        Policy = "fail"
)

// Policies lists the policies, for completion and messages.
var Policies = []Policy{Passthrough, Ask, Fallback, Wait, CancelForm, Fail}

// ParsePolicy checks a policy name.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case Passthrough, Ask, Fallback, Wait, CancelForm, Fail:
		return p, nil
	}
	return "", fmt.Errorf("unknown policy %q (want passthrough, ask, fallback, wait, cancel or fail)", s)
}

// File is one loaded rules file.
type File struct {
	Path string
	// Sum is the SHA-256 of the content checked ([Sum]).
	Sum         string
	Version     int
	Defaults    Defaults
	Rules       []Rule
	Permissions []Permission
	// Elicitations answer MCP servers' input forms.
	Elicitations []Elicitation
	Dialogs      Dialogs
	// Source is where the file was found without --rules (a folder's, the
	// person's config folder's); "" for a file named with --rules.
	Source Source
}

// Dialogs are a file's answers to dialogs that are no tool's: the folder
// trust dialog, the bypass-permissions confirmation, auto mode's dialog
// when its check cannot run, the custom API key question, a project's new
// MCP servers.
type Dialogs struct {
	Trust bool // answer "Yes, I trust this folder" (as --trust does)
	// Bypass answers "Yes, I accept" to the confirmation
	// --dangerously-skip-permissions asks for (bypass_permissions: accept);
	// no flag and no default does.
	Bypass bool
	// AutoMode answers auto mode's "can't check actions" dialog: stay (in
	// auto mode, Enter) or leave (for accept-edits mode, shift+Tab); ""
	// answers nothing.
	AutoMode string
	// APIKey answers the custom API key question: use (the key in Claude's
	// environment) or refuse; "" answers nothing.
	APIKey string
	// MCPServers are the names of a project's new MCP servers to use; a
	// folder's rules file cannot name any (see Set.MCPServer).
	MCPServers []string
	// MCPServersLine is where mcp_servers is set, for the warning a
	// folder's file gets.
	MCPServersLine int
}

// Defaults are a file's defaults block.
type Defaults struct {
	OnUnmatched   Policy        // "" when not set
	AnswerTimeout time.Duration // 0 when not set
	Fallback      *Answer       // nil when not set
	Notify        string        // the --notify command; "" when not set
	AnswerVia     string        // "screen" or "hook"; "" when not set
	// OnUnmatchedAt and AnswerTimeoutAt are where those are set, for
	// messages; zero when not set.
	OnUnmatchedAt, AnswerTimeoutAt Pos
}

// Pos is a place in a rules file, for messages.
type Pos struct{ Line, Col int }

// Rule is one entry of rules:.
type Rule struct {
	Name   string
	When   When
	Answer Answer
	Line   int // where the rule starts, for messages
}

// When holds a rule's conditions; all set fields must hold.
type When struct {
	Header   *regexp.Regexp
	Question *regexp.Regexp
	Options  []string // every label must be offered
}

// Answer is a rule's action: exactly one of Select, Type, Chat and Cancel
// is set. Notes go with Select on a question whose options have previews.
type Answer struct {
	Select *Select
	Type   *string
	Chat   *string
	Cancel bool
	Notes  *string
	// Exec hands the question to a program (argv): the question as JSON
	// on its stdin, an answer like this one (without exec) as JSON on its
	// stdout. Rules only.
	Exec []string
	// ExecLine and ExecCol are where the program is named, for messages.
	ExecLine, ExecCol int
	// TextAt is where the text of Type, Chat or Notes is, for messages.
	TextAt Pos
}

// Select names the options to pick: labels, or a 1-based position.
type Select struct {
	Labels []string
	List   bool // written as a list (multi-select only)
	Index  int  // 1-based, 0 when labels are used
}

// Error is a problem at a place in a rules file.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errors is every problem found in a file, in the order of the file.
type Errors []*Error

func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// MaxFileSize bounds a rules file: rules are written by hand, and a file
// far larger is a mistake (a log, a device) that must not take minutes or
// gigabytes to refuse.
const MaxFileSize = 4 << 20

// LoadFile reads and checks one rules file. Only a regular file is read:
// a FIFO nobody writes would wait for ever, a device never end.
func LoadFile(path string) (*File, error) {
	return loadFile(path, checks{})
}

// CheckFile is LoadFile that also reports, among the file's other
// problems, what a run with this file alone refuses of its defaults
// ([Set.Check]) and, with programs, every rule's exec program that cannot
// be run from here (not found, not executable): what `rules check` tells.
func CheckFile(path string, programs bool) (*File, error) {
	return loadFile(path, checks{defaults: true, programs: programs})
}

func loadFile(path string, c checks) (*File, error) {
	b, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, b, c)
}

// checks are what [CheckFile] adds to loading.
type checks struct {
	defaults bool // what a run with the file alone refuses of its defaults
	programs bool // the rules' exec programs can be run from here
}

// ReadFile reads a rules file whole, as loading does: only a regular file
// (a FIFO nobody writes would wait for ever, a device never end), opened
// without blocking, of at most MaxFileSize bytes ([safefile.ReadFile]).
// What it returns is what [Parse] checks and what an allowance's hash
// ([Sum]) is of, read once.
// An error is a [*FileError] that says why in a person's words.
func ReadFile(path string) ([]byte, error) {
	b, err := safefile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, &FileError{Path: path, Why: unreadable(path, err), Err: err}
	}
	return b, nil
}

// FileError is a rules file that cannot be read. Its message names the file
// and the reason without the system's words ("stat", "no such file or
// directory"); Err is the error underneath, for [errors.Is].
type FileError struct {
	Path string
	Why  string
	Err  error
}

func (e *FileError) Error() string { return "rules file " + e.Path + ": " + e.Why }

func (e *FileError) Unwrap() error { return e.Err }

// unreadable says why the rules file at path could not be read (err).
func unreadable(path string, err error) string {
	var refused *safefile.RefusedError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, syscall.ENOTDIR):
		return "no such file (a part of its path is a file, not a folder)"
	case errors.Is(err, fs.ErrPermission):
		return "no permission to read it"
	case errors.As(err, &refused):
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return "a folder, not a file; name the rules file in it"
		}
		return refused.Why
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // without the operation and the path, said once already
	}
	return "cannot be read: " + err.Error()
}

// Parse checks the rules in b, read from path. Loading is strict: unknown
// keys, wrong types, bad regular expressions, several actions in one answer
// and a missing version are errors with their line and column.
func Parse(path string, b []byte) (*File, error) {
	return parse(path, b, checks{})
}

func parse(path string, b []byte, c checks) (*File, error) {
	p := &parser{file: &File{Path: path, Sum: Sum(b)}}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{File: path, Line: 1, Col: 1, Msg: "empty file: want version: 1 and rules"}}
		}
		return nil, Errors{yamlError(path, b, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errorf(&extra, "only one YAML document is allowed")
	} else if !errors.Is(err, io.EOF) {
		return nil, Errors{yamlError(path, b, err)}
	}
	if len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" && doc.Content[0].Value == "" {
		p.errorf(&doc, "empty file: want version: 1 and rules")
	} else {
		p.top(doc.Content[0])
	}
	if c.defaults && len(p.errs) == 0 {
		// Only on defaults read whole: one left out by a mistake would
		// be reported missing too.
		var e *Error
		if err := (&Set{Files: []*File{p.file}}).Check(); errors.As(err, &e) {
			p.errs = append(p.errs, e)
		}
	}
	if c.programs {
		p.errs = append(p.errs, p.file.programErrors()...)
	}
	if len(p.errs) > 0 {
		// In the order of the file, as compilers report.
		sort.SliceStable(p.errs, func(i, j int) bool {
			a, b := p.errs[i], p.errs[j]
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		return nil, p.errs
	}
	return p.file, nil
}

func (p *parser) top(n *yaml.Node) {
	var sawVersion bool
	ok := p.fields(n, "the file", map[string]func(k, v *yaml.Node){
		"version": func(k, v *yaml.Node) {
			sawVersion = true
			if i, ok := intValue(v); !ok || i != 1 {
				p.errorf(v, "version must be 1")
				return
			}
			p.file.Version = 1
		},
		"defaults":     func(k, v *yaml.Node) { p.defaults(v) },
		"permissions":  func(k, v *yaml.Node) { p.entries(v, "permissions", "permission", p.permission) },
		"elicitations": func(k, v *yaml.Node) { p.entries(v, "elicitations", "elicitation", p.elicitation) },
		"dialogs": func(k, v *yaml.Node) {
			p.fields(v, "dialogs", map[string]func(k, v *yaml.Node){
				"trust": func(k, v *yaml.Node) {
					b, err := strconv.ParseBool(v.Value)
					if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || err != nil {
						p.errorf(v, "trust must be true or false, not %s", kind(v))
						return
					}
					p.file.Dialogs.Trust = b
				},
				"bypass_permissions": func(k, v *yaml.Node) {
					// Only the word: true, or a word like it, accepts nothing.
					switch {
					case !isString(v):
						p.errorf(v, "bypass_permissions must be accept, not %s", kind(v))
					case v.Value != "accept":
						p.errorf(v, "bypass_permissions: unknown %q (want accept)", v.Value)
					default:
						p.file.Dialogs.Bypass = true
					}
				},
				"auto_mode": func(k, v *yaml.Node) {
					if w, ok := p.word(v, "auto_mode", "stay", "leave"); ok {
						p.file.Dialogs.AutoMode = w
					}
				},
				"api_key": func(k, v *yaml.Node) {
					if w, ok := p.word(v, "api_key", "use", "refuse"); ok {
						p.file.Dialogs.APIKey = w
					}
				},
				"mcp_servers": func(k, v *yaml.Node) {
					p.file.Dialogs.MCPServersLine = v.Line
					if v.Kind != yaml.SequenceNode {
						p.errorf(v, "mcp_servers must be a list of server names, not %s", kind(v))
						return
					}
					for _, e := range v.Content {
						if !isString(e) || e.Value == "" {
							p.errorf(e, "mcp_servers: a server name, not %s", kind(e))
							continue
						}
						p.file.Dialogs.MCPServers = append(p.file.Dialogs.MCPServers, e.Value)
					}
				},
			})
		},
		"rules": func(k, v *yaml.Node) { p.entries(v, "rules", "rule", p.rule) },
	})
	if ok && !sawVersion {
		p.errorf(n, "missing version: 1")
	}
}

// word reads one of a key's words.
func (p *parser) word(v *yaml.Node, key string, words ...string) (string, bool) {
	if !isString(v) {
		p.errorf(v, "%s must be %s, not %s", key, strings.Join(words, " or "), kind(v))
		return "", false
	}
	if !slices.Contains(words, v.Value) {
		p.errorf(v, "%s: unknown %q (want %s)", key, v.Value, strings.Join(words, " or "))
		return "", false
	}
	return v.Value, true
}

func (p *parser) defaults(n *yaml.Node) {
	d := &p.file.Defaults
	p.fields(n, "defaults", map[string]func(k, v *yaml.Node){
		"on_unmatched": func(k, v *yaml.Node) {
			if s, ok := p.str(v, "on_unmatched"); ok {
				pol, err := ParsePolicy(s)
				if err != nil {
					p.errorf(v, "on_unmatched: %v", err)
					return
				}
				d.OnUnmatched = pol
				d.OnUnmatchedAt = Pos{v.Line, v.Column}
			}
		},
		"answer_via": func(k, v *yaml.Node) {
			if s, ok := p.str(v, "answer_via"); ok {
				if s != "screen" && s != "hook" {
					p.errorf(v, "answer_via: want screen or hook, not %q", s)
					return
				}
				d.AnswerVia = s
			}
		},
		"notify": func(k, v *yaml.Node) {
			if s, ok := p.str(v, "notify"); ok {
				if strings.TrimSpace(s) == "" {
					p.errorf(v, "notify: want a command, run with sh -c")
					return
				}
				d.Notify = s
			}
		},
		"answer_timeout": func(k, v *yaml.Node) {
			if n, err := strconv.ParseFloat(v.Value, 64); v.Kind == yaml.ScalarNode && err == nil && n > 0 {
				// A bare number, quoted or not: Go durations need a unit.
				p.errorf(v, "answer_timeout: %s needs a unit: write %ss (seconds) or %sm (minutes)", v.Value, v.Value, v.Value)
				return
			}
			if s, ok := p.str(v, "answer_timeout"); ok {
				dur, err := time.ParseDuration(s)
				if err != nil || dur <= 0 {
					p.errorf(v, "answer_timeout: want a positive duration such as 3m, not %q", s)
					return
				}
				d.AnswerTimeout = dur
				d.AnswerTimeoutAt = Pos{v.Line, v.Column}
			}
		},
		"fallback": func(k, v *yaml.Node) {
			a, ok := p.answer(v, "fallback")
			if ok {
				if a.Select != nil {
					p.errorf(v, "fallback must be type, chat or cancel: a select cannot fit every question")
					return
				}
				d.Fallback = &a
			}
		},
	})
}

// rule parses one rule and returns the name it was given ("" for none).
func (p *parser) rule(n *yaml.Node) string {
	r := Rule{Line: n.Line}
	var sawAnswer bool
	before := len(p.errs)
	p.fields(n, "a rule", map[string]func(k, v *yaml.Node){
		"name": func(k, v *yaml.Node) {
			if s, ok := p.str(v, "name"); ok {
				r.Name = s
			}
		},
		"when": func(k, v *yaml.Node) { p.when(v, &r.When) },
		"answer": func(k, v *yaml.Node) {
			sawAnswer = true
			if a, ok := p.answer(v, "answer"); ok {
				r.Answer = a
			}
		},
	})
	if n.Kind != yaml.MappingNode {
		return ""
	}
	if !sawAnswer && !p.typoSince(before) {
		p.errorf(n, "rule has no answer")
	}
	named := r.Name
	if r.Name == "" {
		r.Name = fmt.Sprintf("rule at line %d", n.Line)
	}
	p.file.Rules = append(p.file.Rules, r)
	return named
}

func (p *parser) when(n *yaml.Node, w *When) {
	p.fields(n, "when", map[string]func(k, v *yaml.Node){
		"header":   func(k, v *yaml.Node) { w.Header = p.regex(v, "header") },
		"question": func(k, v *yaml.Node) { w.Question = p.regex(v, "question") },
		"options": func(k, v *yaml.Node) {
			if v.Kind != yaml.SequenceNode {
				p.errorf(v, "options must be a list of labels, not %s", kind(v))
				return
			}
			for _, o := range v.Content {
				if s, ok := p.str(o, "an option label"); ok {
					w.Options = append(w.Options, s)
				}
			}
		},
	})
}

func (p *parser) answer(n *yaml.Node, what string) (Answer, bool) {
	var a Answer
	var actions []string
	before := len(p.errs)
	keys := map[string]func(k, v *yaml.Node){
		"select": func(k, v *yaml.Node) {
			actions = append(actions, "select")
			a.Select = p.selectAnswer(v)
		},
		"type": func(k, v *yaml.Node) {
			actions = append(actions, "type")
			if s, ok := p.str(v, "type"); ok {
				if err := answer.CheckTyped(s); err != nil {
					p.errorf(v, "type: %v", err)
					return
				}
				a.Type = &s
				a.TextAt = Pos{v.Line, v.Column}
			}
		},
		"chat": func(k, v *yaml.Node) {
			actions = append(actions, "chat")
			if s, ok := p.str(v, "chat"); ok {
				if err := answer.CheckChat(s); err != nil {
					p.errorf(v, "chat: %v", err)
					return
				}
				a.Chat = &s
				a.TextAt = Pos{v.Line, v.Column}
			}
		},
		"cancel": func(k, v *yaml.Node) {
			actions = append(actions, "cancel")
			if b, err := strconv.ParseBool(v.Value); v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || err != nil || !b {
				p.errorf(v, "cancel must be true")
				return
			}
			a.Cancel = true
		},
	}
	if what != "fallback" && !strings.HasPrefix(what, "the program's answer") {
		keys["exec"] = func(k, v *yaml.Node) {
			actions = append(actions, "exec")
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				p.errorf(v, "exec: want the program and its arguments as a list, e.g. [./decide, --strict]")
				return
			}
			for _, e := range v.Content {
				s, ok := p.str(e, "exec")
				if !ok {
					return
				}
				if s == "" {
					p.errorf(e, "exec: an empty word")
					return
				}
				if a.Exec == nil {
					a.ExecLine, a.ExecCol = e.Line, e.Column
				}
				a.Exec = append(a.Exec, s)
			}
		}
	}
	if what != "fallback" {
		keys["notes"] = func(k, v *yaml.Node) {
			if s, ok := p.str(v, "notes"); ok {
				if err := answer.CheckNotes(s); err != nil {
					p.errorf(v, "notes: %v", err)
					return
				}
				a.Notes = &s
				a.TextAt = Pos{v.Line, v.Column}
			}
		}
	}
	fieldsFrom := len(p.errs)
	p.fields(n, what, keys)
	if a.Notes != nil && len(actions) == 1 && actions[0] != "select" {
		p.errorf(n, "notes go with select (on a question whose options have previews), not with %s", actions[0])
	}
	if n.Kind == yaml.MappingNode {
		switch len(actions) {
		case 0:
			if p.typoSince(fieldsFrom) {
				break
			}
			if what == "fallback" {
				p.errorf(n, "fallback needs one of type, chat, cancel")
			} else {
				p.errorf(n, "%s needs one of select, type, chat, cancel, exec", what)
			}
		case 1:
		default:
			p.errorf(n, "%s has several actions (%s): give exactly one", what, strings.Join(actions, ", "))
		}
	}
	return a, len(p.errs) == before
}

func (p *parser) selectAnswer(n *yaml.Node) *Select {
	switch n.Kind {
	case yaml.ScalarNode:
		if !isString(n) {
			p.errorf(n, "select: want a label, a list of labels, or {index: N}, not %s", kind(n))
			return nil
		}
		if n.Value == "" {
			p.errorf(n, "select: the label is empty")
			return nil
		}
		return &Select{Labels: []string{n.Value}}
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			p.errorf(n, "select: the list is empty")
			return nil
		}
		sel := &Select{List: true}
		seen := map[string]bool{}
		for _, o := range n.Content {
			s, ok := p.str(o, "a label in select")
			if !ok {
				continue
			}
			if s == "" {
				p.errorf(o, "select: the label is empty")
				continue
			}
			if seen[s] {
				p.errorf(o, "select: %q named twice", s)
			}
			seen[s] = true
			sel.Labels = append(sel.Labels, s)
		}
		return sel
	case yaml.MappingNode:
		sel := &Select{}
		var sawIndex bool
		from := len(p.errs)
		p.fields(n, "select", map[string]func(k, v *yaml.Node){
			"index": func(k, v *yaml.Node) {
				sawIndex = true
				if v.Kind != yaml.ScalarNode || v.Tag != "!!int" && v.Tag != "!!float" {
					p.errorf(v, "index must be a number, not %s", kind(v))
					return
				}
				i, ok := intValue(v)
				if !ok || i < 1 || i > 4 {
					p.errorf(v, "index must be a whole number from 1 to 4")
					return
				}
				sel.Index = int(i)
			},
		})
		if !sawIndex {
			if !p.typoSince(from) {
				p.errorf(n, "select: want a label, a list of labels, or {index: N}")
			}
			return nil
		}
		if sel.Index == 0 {
			return nil
		}
		return sel
	default:
		p.errorf(n, "select: want a label, a list of labels, or {index: N}, not %s", kind(n))
	}
	return nil
}
