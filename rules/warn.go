package rules

import (
	"fmt"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
)

// Warning is a rule that loads but can never act, or can never answer:
// `rules check` says so, and a run goes on.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: warning: %s", w.File, w.Line, w.Msg) }

// maxOptions is the most options a question offers.
const maxOptions = 4

// Warnings returns the rules of f that can never act or never answer, in
// the order of the file: a rule, permission or elicitation with the same
// when as an earlier one of its list (never reached), a rule with no when
// before others (they are never reached), and a rule that selects labels
// which, with those its when requires offered, no question can offer
// together.
func (f *File) Warnings() []Warning {
	var ws []Warning
	warn := func(line int, format string, args ...any) {
		ws = append(ws, Warning{File: f.Path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	first := map[string]int{} // a when, as whenKey writes it: the line of the first rule with it
	for i, r := range f.Rules {
		if r.When.any() {
			if rest := f.Rules[i+1:]; len(rest) > 0 {
				after := fmt.Sprintf("the %d rules after it (from line %d) are", len(rest), rest[0].Line)
				if len(rest) == 1 {
					after = fmt.Sprintf("the rule after it (line %d) is", rest[0].Line)
				}
				warn(r.Line, "this rule has no when, so it answers every question: %s never reached", after)
			}
			break // the rules after it are never reached, whatever they say
		}
		k := r.When.key()
		if line, ok := first[k]; ok {
			warn(r.Line, "this rule is never reached: its when is the same as the rule's at line %d, which answers first", line)
			continue
		}
		first[k] = r.Line
		if a := r.Answer.Select; a != nil && len(r.When.Options) > 0 {
			offered := slices.Clone(r.When.Options)
			for _, l := range a.Labels {
				if !slices.Contains(offered, l) {
					offered = append(offered, l)
				}
			}
			if len(offered) > maxOptions {
				warn(r.Line, "this rule can never answer: it selects %s and its when needs %s offered, %d options, "+
					"but a question offers at most %d", quoteAll(a.Labels), quoteAll(r.When.Options), len(offered), maxOptions)
			}
		}
	}
	// once warns about an entry of a list whose when an earlier one has.
	once := func(first map[string]int, line int, key, kind, verb string) {
		if at, ok := first[key]; ok {
			warn(line, "this %s is never reached: its when is the same as the %s's at line %d, which %s first", kind, kind, at, verb)
			return
		}
		first[key] = line
	}
	perms, elicits := map[string]int{}, map[string]int{}
	for _, r := range f.Permissions {
		once(perms, r.Line, r.When.key(), "permission", "decides")
		if re := r.When.Command; re != nil {
			if op := joiner(re.String()); op != "" {
				warn(r.Line, "this permission's command can only match a compound command: %q holds %s, but each simple "+
					"command of a line is matched on its own, without what joins it to the next (a quoted %s in a word is written in quotes)",
					re.String(), op, op)
			}
			if r.Decide.lets() && !anchored(re.String()) {
				warn(r.Line, "this permission allows a command that matches %q anywhere, in another command's words too: "+
					"anchor it at the command's name with ^", re.String())
			}
			if r.Decide.lets() && !r.When.ends {
				warn(r.Line, "this permission allows any command that begins with a match of %q%s: end the pattern with $ "+
					"to allow only what it spells out (without $ it still refuses a part that writes a file outside the working folder)",
					re.String(), goesOn(re))
			}
		}
		if p := r.When.Path; p != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "**") {
			warn(r.Line, "this permission can never match: path %q is matched against absolute paths (/home/me/project/…); "+
				"begin it with / or **/", p)
		}
	}
	for _, r := range f.Elicitations {
		once(elicits, r.Line, r.When.key(), "elicitation", "answers")
	}
	if len(f.Dialogs.MCPServers) > 0 && (f.Source == Folder || filepath.Base(f.Path) == FolderFile) {
		warn(f.Dialogs.MCPServersLine, "dialogs.mcp_servers never acts in a folder's %s, even allowed: a server the repository "+
			"names would run its code; name them in a rules file of yours (--rules, or %s)", FolderFile, "$XDG_CONFIG_HOME/claudewrap/rules.yaml")
	}
	return ws
}

// key writes w so that two whens that hold for the same tool calls by the
// same conditions write the same.
func (w PermissionWhen) key() string {
	return reKey(w.Tool, w.Command, w.Input) + w.Path + "\x00" + w.Host
}

// key writes w so that two whens that hold for the same forms by the same
// conditions write the same: the fields in any order, each once.
func (w ElicitWhen) key() string {
	fields := slices.Clone(w.Fields)
	slices.Sort(fields)
	return reKey(w.Server, w.Message) + strings.Join(slices.Compact(fields), "\x00")
}

// reKey writes regexps for a when's key: "-" for one not set.
func reKey(res ...*regexp.Regexp) string {
	var b strings.Builder
	for _, re := range res {
		if re == nil {
			b.WriteString("-\x00")
			continue
		}
		b.WriteString("=" + re.String() + "\x00")
	}
	return b.String()
}

// any reports whether w holds for every question: it sets no condition.
func (w When) any() bool {
	return w.Header == nil && w.Question == nil && len(w.Options) == 0
}

// key writes w so that two whens that hold for the same questions by the
// same conditions write the same: the options in any order, each once.
func (w When) key() string {
	var b strings.Builder
	b.WriteString(reKey(w.Header, w.Question))
	opts := slices.Clone(w.Options)
	slices.Sort(opts)
	for _, o := range slices.Compact(opts) {
		b.WriteString(o + "\x00")
	}
	return b.String()
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// joiner is the shell operator that joins commands (; && || | or a
// newline) which a literal of the regular expression re holds outside a
// character class, quoted; "" for none.
func joiner(re string) string {
	tree, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return ""
	}
	var found string
	var walk func(*syntax.Regexp)
	walk = func(n *syntax.Regexp) {
		if found != "" {
			return
		}
		if n.Op == syntax.OpLiteral {
			lit := string(n.Rune)
			for _, op := range []string{"&&", "||", ";", "\n"} {
				if strings.Contains(lit, op) {
					found = strconv.Quote(op)
					return
				}
			}
			if i := strings.IndexByte(lit, '|'); i >= 0 && (i == 0 || lit[i-1] != '>') {
				found = `"|"` // not >|, a redirection
				return
			}
		}
		for _, sub := range n.Sub {
			walk(sub)
		}
	}
	walk(tree.Simplify())
	return found
}

// goesOn says what an allow's pattern re matches that it does not spell
// out, with an example when re begins with literal text.
func goesOn(re *regexp.Regexp) string {
	prefix := strings.TrimSpace(literalStart(re.String()))
	if prefix == "" {
		return ", whatever follows"
	}
	return fmt.Sprintf(", whatever follows (%q too)", prefix+" <anything> >~/.bashrc")
}

// literalStart is the literal text every match of re begins with, after
// its anchor; "" for none.
func literalStart(re string) string {
	tree, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return ""
	}
	tree = tree.Simplify()
	subs := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpConcat {
		subs = tree.Sub
	}
	var b strings.Builder
	for _, n := range subs {
		switch {
		case n.Op == syntax.OpBeginText || n.Op == syntax.OpBeginLine:
		case n.Op == syntax.OpLiteral && n.Flags&syntax.FoldCase == 0:
			b.WriteString(string(n.Rune))
		default:
			return b.String()
		}
	}
	return b.String()
}

// endAnchored reports whether the regular expression re can match only up
// to the end of a text ($, \z), in each of its alternatives.
func endAnchored(re string) bool { return anchoredAt(re, true) }

// anchored reports whether the regular expression re can match only at the
// start of a text (^, \A), in each of its alternatives.
func anchored(re string) bool { return anchoredAt(re, false) }

// anchoredAt reports whether every alternative of re is anchored at the
// end of a text (end) or at its start.
func anchoredAt(re string, end bool) bool {
	tree, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return false
	}
	var at func(*syntax.Regexp) bool
	at = func(n *syntax.Regexp) bool {
		switch n.Op {
		case syntax.OpEndText, syntax.OpEndLine:
			return end
		case syntax.OpBeginText, syntax.OpBeginLine:
			return !end
		case syntax.OpCapture:
			return at(n.Sub[0])
		case syntax.OpConcat:
			if len(n.Sub) == 0 {
				return false
			}
			if end {
				return at(n.Sub[len(n.Sub)-1])
			}
			return at(n.Sub[0])
		case syntax.OpAlternate:
			for _, sub := range n.Sub {
				if !at(sub) {
					return false
				}
			}
			return true
		}
		return false
	}
	return at(tree.Simplify())
}
