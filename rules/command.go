package rules

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Part is one command of a Bash command line, as a command rule reads it.
// A line gives a part for each simple command it holds, wherever it is
// (a list, a pipeline, a subshell, a loop's body, a command substitution,
// a function's body), and more for one command where there is more to see:
// the wrapper around it (sudo, nohup, env), its path as written, its words
// with their assignments or braces expanded.
type Part struct {
	// Text is what a command regex is matched against: the command's name
	// as it runs (a path's last element), its words one space apart (a word
	// holding a blank, a quote or a shell operator in single quotes), then
	// its redirections (>out, 2>&1, <<EOF). A word with an expansion is
	// written as in the command ($X, "$HOME/x", $(date)).
	Text string
	// Through marks a harmless wrapper's own text (nohup, timeout, nice,
	// env with nothing to set): a deny or ask sees it, an allow needs only
	// the command it runs, which is the next part.
	Through bool
	// Unjudged says why no rule can allow this part: what it runs is not in
	// its text (eval, sh -c, source, a name from an expansion, text that
	// does not parse). "" when it can be judged.
	Unjudged string
	// From says where the part was read, for people: "" for a command as it
	// stands in the line, else "run by sudo", "inside bash -c"….
	From string
}

// Limits on what [ReadCommand] parses. The parser and the tree's walk
// recurse, and a line of Claude's is not trusted: past these, the line is
// one part that no rule can allow.
const (
	MaxCommand     = 64 << 10 // bytes of one command line
	maxNesting     = 200      // brackets open at once: ( { [
	maxScriptDepth = 4        // a script inside a script (bash -c 'eval "…"')
	maxBraceWords  = 256      // words of one command after brace expansion
)

// ReadCommand reads a Bash command line into the parts a command rule
// judges, in the order they stand. A line that cannot be parsed (or is
// too long or too deep to) is one part: its raw text, unjudged.
func ReadCommand(command string) []Part {
	r := &reader{}
	r.script(command, "")
	return r.parts
}

// reader collects the parts of a command line.
type reader struct {
	parts []Part
	depth int      // scripts read inside the line (bash -c, eval)
	src   []string // the source of each script being read, innermost last
}

func (r *reader) add(p Part) { r.parts = append(r.parts, p) }

// script reads src, a command line or a script given to a shell inside
// one; from says where it stands ("" for the line itself).
func (r *reader) script(src, from string) {
	raw := func(why string) {
		r.add(Part{Text: src, Unjudged: why, From: from})
	}
	switch {
	case len(src) > MaxCommand:
		raw(fmt.Sprintf("longer than %d KiB: not parsed", MaxCommand>>10))
		return
	case nesting(src) > maxNesting:
		raw(fmt.Sprintf("brackets nested more than %d deep: not parsed", maxNesting))
		return
	case r.depth > maxScriptDepth:
		raw(fmt.Sprintf("a script inside scripts %d deep: not read", maxScriptDepth))
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		raw("cannot be parsed as Bash: " + err.Error())
		return
	}
	r.depth++
	r.src = append(r.src, src)
	defer func() {
		r.depth--
		r.src = r.src[:len(r.src)-1]
	}()
	at := len(r.parts)
	syntax.Walk(f, r.visit)
	if from != "" {
		for i := at; i < len(r.parts); i++ {
			r.parts[i].From = joinFrom(from, r.parts[i].From)
		}
	}
}

func joinFrom(outer, inner string) string {
	switch {
	case inner == "":
		return outer
	case outer == "":
		return inner
	}
	return outer + ", " + inner
}

// nesting is how many brackets are open at most in s, quotes not minded:
// at least as deep as the parser would recurse on them.
func nesting(s string) int {
	depth, most := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[':
			depth++
			most = max(most, depth)
		case ')', '}', ']':
			depth = max(0, depth-1)
		}
	}
	return most
}

// visit is the tree walk's: each statement is read as it comes; a chain of
// && || | is walked as a list, not one level deeper for each link.
func (r *reader) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		r.stmt(n)
	case *syntax.BinaryCmd:
		var links []*syntax.Stmt
		for b := n; ; {
			links = append(links, b.Y)
			x, ok := b.X.Cmd.(*syntax.BinaryCmd)
			if !ok {
				links = append(links, b.X)
				break
			}
			for _, rd := range b.X.Redirs {
				syntax.Walk(rd, r.visit)
			}
			b = x
		}
		for i := len(links) - 1; i >= 0; i-- {
			syntax.Walk(links[i], r.visit)
		}
		return false
	}
	return true
}

// stmt reads one statement's command; what it holds (substitutions,
// bodies) the walk reaches on its own.
func (r *reader) stmt(s *syntax.Stmt) {
	redirs := r.redirs(s.Redirs)
	switch c := s.Cmd.(type) {
	case nil:
		if redirs != "" { // >file: a file made or emptied
			r.add(Part{Text: redirs})
		}
	case *syntax.CallExpr:
		r.call(c, s.Redirs, redirs)
	case *syntax.DeclClause:
		words := []string{c.Variant.Value}
		for _, a := range c.Args {
			words = append(words, r.source(a))
		}
		r.add(Part{Text: join(strings.Join(words, " "), redirs)})
	case *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause:
		r.add(Part{Text: join(strings.Join(strings.Fields(r.source(c)), " "), redirs)})
	case *syntax.TimeClause:
		// The time keyword: the command it times is read as its statement.
		r.add(Part{Text: join(strings.Join(strings.Fields(r.source(c)), " "), redirs), Through: true})
	default:
		// A compound command (a loop, a group, a subshell) is read through
		// its body; what it redirects is a part of its own.
		if redirs != "" {
			r.add(Part{Text: redirs, From: "the redirections of a compound command"})
		}
	}
}

// source is n as written in the script being read.
func (r *reader) source(n syntax.Node) string {
	src := r.src[len(r.src)-1]
	from, to := int(n.Pos().Offset()), int(n.End().Offset())
	if from < 0 || to > len(src) || from > to {
		return ""
	}
	return src[from:to]
}

// redirs writes redirections as a rule sees them: >out 2>&1 <<EOF.
func (r *reader) redirs(rs []*syntax.Redirect) string {
	out := make([]string, 0, len(rs))
	for _, rd := range rs {
		s := ""
		if rd.N != nil {
			s = rd.N.Value
		}
		s += rd.Op.String()
		if rd.Word != nil {
			s += r.word(rd.Word).text
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func join(text, redirs string) string {
	switch {
	case text == "":
		return redirs
	case redirs == "":
		return text
	}
	return text + " " + redirs
}

// word is one word of a command, as read.
type word struct {
	text   string // as a rule sees it: its value, quoted where needed, or as written
	lit    string // its value, when it has no expansion
	ok     bool   // lit holds its value
	glob   bool   // an unquoted * ? or [ … ] in it: a pattern the shell expands
	ext    bool   // an extended pattern in it: @(…), *(…)
	braces bool   // a brace expansion in it: {a,b}, {1..3}
}

// word reads w.
func (r *reader) word(w *syntax.Word) word {
	if v, glob, ok := literal(w); ok {
		return word{text: quote(v), lit: v, ok: true, glob: glob}
	}
	ext := false
	for _, p := range w.Parts {
		_, isExt := p.(*syntax.ExtGlob)
		ext = ext || isExt
	}
	return word{text: r.source(w), ext: ext}
}

// expanded reads w, a word brace expansion made: not in the source, so
// written out when it is not a literal.
func (r *reader) expanded(w *syntax.Word) word {
	if v, glob, ok := literal(w); ok {
		return word{text: quote(v), lit: v, ok: true, glob: glob}
	}
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, w); err != nil {
		return word{text: r.source(w)}
	}
	return word{text: b.String()}
}

// literal is the value of a word with no expansion in it (no $, no
// substitution, no pattern or brace expansion): its quotes and escapes
// removed. glob says whether an unquoted part is a pattern.
func literal(w *syntax.Word) (v string, glob, ok bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
			glob = glob || isPattern(p.Value)
		case *syntax.SglQuoted:
			if !p.Dollar {
				b.WriteString(p.Value)
				continue
			}
			s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}})
			if err != nil {
				return "", false, false
			}
			b.WriteString(s)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, isLit := q.(*syntax.Lit)
				if !isLit {
					return "", false, false
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", false, false
		}
	}
	return b.String(), glob, true
}

// unescape removes the backslashes Bash removes: before any character
// outside quotes; inside double quotes only before $ ` " \ and a newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// isPattern reports whether an unquoted literal holds a pattern the shell
// would match against file names: * ? or a bracket expression.
func isPattern(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// quote writes a word's value so that its words stay apart: as it is when
// it holds no blank, quote, backslash, shell operator or unprintable
// character, else quoted as Bash would read it back.
func quote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, c := range s {
		if c == utf8.RuneError || !unicode.IsPrint(c) || strings.ContainsRune(" \t\n\r'\"\\;&|<>()$`", c) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return q
}

// call reads a simple command: its words as written, and again with their
// braces expanded when they have any.
func (r *reader) call(c *syntax.CallExpr, rs []*syntax.Redirect, redirs string) {
	// Braces are split in copies: the tree's walk knows no brace nodes.
	split := make([]*syntax.Word, len(c.Args))
	braces := false
	words := make([]word, len(c.Args))
	for i, w := range c.Args {
		words[i] = r.word(w)
		cp := *w
		split[i] = &cp
		if syntax.SplitBraces(&cp) && expands(&cp) {
			braces, words[i].braces = true, true
		}
	}
	assigns := make([]string, len(c.Assigns))
	for i, a := range c.Assigns {
		assigns[i] = r.source(a)
	}
	r.read(cmd{assigns: assigns, words: words, redirs: redirs, stmt: rs}, "")
	if !braces {
		return
	}
	var expanded []word
	for _, w := range split {
		for x, err := range expand.BracesSeq(nil, w) {
			if err != nil || len(expanded) == maxBraceWords {
				r.add(Part{Text: r.source(c), Unjudged: "brace expansion too large to read", From: "braces expanded"})
				return
			}
			expanded = append(expanded, r.expanded(x))
		}
	}
	r.read(cmd{words: expanded, redirs: redirs, stmt: rs}, "braces expanded")
}

// expands reports whether a word split by [syntax.SplitBraces] expands to
// more than itself: {a,b} and {1..3} do, {} and {a} do not.
func expands(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if b, ok := p.(*syntax.BraceExp); ok && (b.Sequence || len(b.Elems) > 1) {
			return true
		}
	}
	return false
}

// cmd is a simple command being read.
type cmd struct {
	assigns []string // NAME=value before the name, as written
	words   []word
	redirs  string
	stmt    []*syntax.Redirect // its statement's redirections (a heredoc a shell reads)
}

func (c cmd) text() string {
	ws := make([]string, 0, len(c.assigns)+len(c.words))
	ws = append(ws, c.assigns...)
	for _, w := range c.words {
		ws = append(ws, w.text)
	}
	return join(strings.Join(ws, " "), c.redirs)
}

// with is c running words instead of its own, with no assignments.
func (c cmd) with(words []word) cmd {
	return cmd{words: words, redirs: c.redirs, stmt: c.stmt}
}

// read reads one command: the command as it stands, then what it runs,
// each a part.
func (r *reader) read(c cmd, from string) {
	if len(c.assigns) > 0 {
		// A=1 cmd: the command with its environment, then the command.
		r.add(Part{Text: c.text(), From: from})
		if len(c.words) == 0 {
			return
		}
		c = c.with(c.words)
		from = joinFrom(from, "without its assignments")
	}
	if len(c.words) == 0 {
		return
	}
	name := c.words[0]
	switch {
	case !name.ok:
		r.add(Part{Text: c.text(), Unjudged: "the command's name comes from an expansion", From: from})
		return
	case name.glob:
		r.add(Part{Text: c.text(), Unjudged: "the command's name is a pattern", From: from})
		return
	case name.braces:
		r.add(Part{Text: c.text(), Unjudged: "the command's name has braces the shell expands", From: from})
		return
	}
	if strings.Contains(name.lit, "/") && path.Base(name.lit) != name.lit {
		// /usr/bin/touch: the path as written, then the command by its name.
		r.add(Part{Text: c.text(), From: from})
		c.words = append([]word{named(path.Base(name.lit))}, c.words[1:]...)
		from = joinFrom(from, "by its name")
	}
	base := c.words[0].lit
	if len(base) > 1 && base[0] == '=' {
		// zsh runs =touch as the touch its PATH finds.
		r.add(Part{Text: c.text(), Unjudged: "zsh runs =NAME as the command NAME", From: from})
		r.read(c.with(append([]word{named(base[1:])}, c.words[1:]...)), joinFrom(from, "as zsh reads it"))
		return
	}
	if run, ok := runners[base]; ok {
		run(r, c, from)
		return
	}
	r.add(Part{Text: c.text(), Unjudged: patterns(c), From: from})
}

// named is a word that is the plain name s.
func named(s string) word { return word{text: quote(s), lit: s, ok: true} }

// patterns is why c cannot be judged for an extended pattern in its words
// (@(…), *(…)): zsh reads some as glob qualifiers, which run commands.
func patterns(c cmd) string {
	for _, w := range c.words {
		if w.ext {
			return "a pattern like *(…): zsh may run commands from it"
		}
	}
	return ""
}
