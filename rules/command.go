package rules

import (
	"fmt"
	"path"
	"slices"
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
	// Opaque marks an unjudged part whose commands a deny cannot see in the
	// line either: a command named by an expansion or a pattern, a string
	// from an expansion run as commands, arithmetic or an expansion that
	// runs what a variable holds, a name the line makes run another command
	// (alias, hash -p, enable), text that does not parse. While a deny or
	// fail rule judges Bash commands, [Set.Permit] refuses a call with such
	// a part.
	Opaque bool
	// From says where the part was read, for people: "" for a command as it
	// stands in the line, else "run by sudo", "inside bash -c"….
	From string

	// writes are the files the part's redirections write (>, >>, &>, <>),
	// as written; "" for one named by an expansion.
	writes []string
}

// Limits on what [ReadCommand] parses. The parser and the tree's walk
// recurse, and a line of Claude's is not trusted: past these, the line is
// a part that no rule can allow, and a deny reads pieces of its raw text.
const (
	MaxCommand     = 64 << 10 // bytes of one command line
	maxNesting     = 200      // brackets open at once: ( { [
	maxScriptDepth = 4        // a script inside a script (bash -c 'eval "…"')
	maxBraceWords  = 256      // words of one command after brace expansion
	maxQuoted      = 4 * MaxCommand
)

// fromQuoted is where a part read from a quoted text was read.
const fromQuoted = "a quoted text read as commands, which bash may evaluate"

// ReadCommand reads a Bash command line into the parts a command rule
// judges, in the order they stand. A line that cannot be parsed (or is
// too long or too deep to) is a part of its raw text, opaque, followed by
// the pieces of that text a deny may match ([fragments]).
//
// When the line has an opaque part, bash may evaluate text the line gives
// as data (a variable's value in arithmetic, ${x@P}, a subscript): each
// quoted text in it that holds a command substitution, $(…) or `…`, is
// then read as commands too, so that a deny sees them.
func ReadCommand(command string) []Part {
	r := &reader{runs: map[string]string{}, scripts: map[string]bool{}}
	r.script(command, "")
	r.finish()
	return r.parts
}

// reader collects the parts of a command line.
type reader struct {
	parts []Part
	depth int      // scripts read inside the line (bash -c, eval)
	src   []string // the source of each script being read, innermost last
	// quoted are the literal texts of the line bash may evaluate as
	// commands: those that hold $( or `, a value of PS4 or PROMPT_COMMAND.
	quoted  []string
	scripts map[string]bool // texts read as scripts, and quoted texts met
	// runs are the names the line makes run something else, and what:
	// alias NAME=TEXT, hash -p PATH NAME.
	runs map[string]string
	// substs is set once a command or process substitution is met.
	substs bool
	// onCall, when set, is given each command as written (not the readings
	// derived from it: its name without a path, braces expanded).
	onCall func(cmd)
}

func (r *reader) add(p Part) { r.parts = append(r.parts, p) }

// finish reads the line's quoted texts as commands when a part is opaque.
func (r *reader) finish() {
	if !slices.ContainsFunc(r.parts, func(p Part) bool { return p.Opaque }) {
		return
	}
	budget := maxQuoted
	for i := 0; i < len(r.quoted); i++ {
		q := r.quoted[i]
		if budget -= len(q); budget < 0 {
			r.add(Part{Text: q, Unjudged: "too much quoted text to read", Opaque: true, From: fromQuoted})
			return
		}
		if !parses(q) && parses(": "+q) {
			q = ": " + q // a[$(…)]: a word, as a subscript's text is expanded
		}
		r.script(q, fromQuoted)
	}
}

// parses reports whether src is within the limits and parses as Bash.
func parses(src string) bool {
	if len(src) > MaxCommand || nesting(src) > maxNesting {
		return false
	}
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	return err == nil
}

// script reads src, a command line or a script given to a shell inside
// one; from says where it stands ("" for the line itself).
func (r *reader) script(src, from string) {
	r.scripts[src] = true
	switch {
	case len(src) > MaxCommand:
		r.raw(src, from, fmt.Sprintf("longer than %d KiB: not parsed", MaxCommand>>10))
		return
	case nesting(src) > maxNesting:
		r.raw(src, from, fmt.Sprintf("brackets nested more than %d deep: not parsed", maxNesting))
		return
	case r.depth > maxScriptDepth:
		r.raw(src, from, fmt.Sprintf("a script inside scripts %d deep: not read", maxScriptDepth))
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		r.raw(src, from, "cannot be parsed as Bash: "+err.Error())
		return
	}
	r.depth++
	r.src = append(r.src, src)
	defer func() {
		r.depth--
		r.src = r.src[:len(r.src)-1]
	}()
	r.defines(f)
	at := len(r.parts)
	syntax.Walk(f, r.visit)
	if from != "" {
		for i := at; i < len(r.parts); i++ {
			r.parts[i].From = joinFrom(from, r.parts[i].From)
		}
	}
}

// raw adds src, text that was not parsed, as an opaque part, then each
// piece of it a deny may match.
func (r *reader) raw(src, from, why string) {
	r.add(Part{Text: src, Unjudged: why, Opaque: true, From: from})
	for _, f := range fragments(src) {
		r.add(Part{Text: f, Unjudged: "a piece of text that was not parsed", From: joinFrom(from, "a piece of the text not parsed")})
	}
}

// defines notes the names f makes run something else, wherever they are
// used in the line: alias NAME=TEXT (the text, when it is literal) and
// hash -p PATH NAME.
func (r *reader) defines(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		words := make([]word, len(c.Args))
		for i, w := range c.Args {
			words[i] = r.word(w)
		}
		r.define(words)
		return true
	})
}

// define notes what the command words makes a name run, when it is alias
// or hash -p.
func (r *reader) define(words []word) {
	if len(words) == 0 || !words[0].ok {
		return
	}
	switch words[0].lit {
	case "alias":
		for _, w := range words[1:] {
			if name, text, ok := strings.Cut(w.lit, "="); w.ok && ok {
				r.runs[name] = text
			}
		}
	case "hash":
		rest, met, _ := hashOptions.scan(words[1:])
		if p, ok := metAny(met, []string{"-p"}); ok {
			runs := p.word.text
			if p.word.ok {
				runs = pathBase(p.value)
			}
			for _, w := range rest {
				if w.ok {
					r.runs[w.lit] = runs
				}
			}
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
// && || | is walked as a list, not one level deeper for each link. Quoted
// text that holds a command substitution is noted for [reader.finish].
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
	case *syntax.CmdSubst, *syntax.ProcSubst:
		r.substs = true
	case *syntax.Assign:
		if n.Name != nil && n.Value != nil && codeVariable(n.Name.Value) != "" {
			if v, _, ok := literal(n.Value); ok {
				r.code(v) // PS4='…', PROMPT_COMMAND='…'
			}
		}
	case *syntax.Lit:
		r.quote(unescape(n.Value, false))
	case *syntax.SglQuoted:
		if !n.Dollar {
			r.quote(n.Value)
		} else if s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{n}}); err == nil {
			r.quote(s)
		}
	}
	return true
}

// quote notes s, a literal text of the line, when it holds a command
// substitution bash would run were it to evaluate s.
func (r *reader) quote(s string) {
	if strings.Contains(s, "$(") || strings.Contains(s, "`") {
		r.code(s)
	}
}

// code notes s, a literal text of the line, as text bash may run as
// commands.
func (r *reader) code(s string) {
	if s != "" && !r.scripts[s] {
		r.scripts[s] = true
		r.quoted = append(r.quoted, s)
	}
}

// stmt reads one statement's command; what it holds (substitutions,
// bodies) the walk reaches on its own. A statement that evaluates text
// as code (arithmetic, ${!x}, ${x@P}, a subscript) makes its parts opaque.
func (r *reader) stmt(s *syntax.Stmt) {
	at := len(r.parts)
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
		// its body; what it redirects is a part of its own, and so is a
		// header that evaluates text (for ((…)), case $((…)) in).
		if redirs != "" {
			r.add(Part{Text: redirs, From: "the redirections of a compound command"})
		}
		if h := r.header(c); h != "" && evaluation(headerNodes(c)...) != "" {
			r.add(Part{Text: h, From: "the header of a compound command"})
		}
	}
	why := evaluation(append(ownNodes(s.Cmd), redirNodes(s.Redirs)...)...)
	writes := writesOf(s.Redirs)
	for i := at; i < len(r.parts); i++ {
		p := &r.parts[i]
		if why != "" {
			if p.Unjudged == "" {
				p.Unjudged = why
			}
			p.Opaque, p.Through = true, false
		}
		if len(writes) > 0 {
			p.writes = append(p.writes, writes...)
		}
	}
}

// header is how a compound command's header reads, for a part of its own:
// for ((…)), for x in …, case … in ….
func (r *reader) header(c syntax.Command) string {
	fields := func(n syntax.Node) string { return strings.Join(strings.Fields(r.source(n)), " ") }
	switch c := c.(type) {
	case *syntax.ForClause:
		kw := "for "
		if c.Select {
			kw = "select "
		}
		return kw + fields(c.Loop)
	case *syntax.CaseClause:
		var pats []string
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				pats = append(pats, fields(p))
			}
		}
		return "case " + fields(c.Word) + " in " + strings.Join(pats, " | ")
	}
	return ""
}

// writesOf are the files rs write, as written: "" for a name from an
// expansion. A duplication (2>&1, >&-) writes no file.
func writesOf(rs []*syntax.Redirect) []string {
	var out []string
	for _, rd := range rs {
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		case syntax.DplOut:
			if v, _, ok := literal(rd.Word); ok && strings.Trim(v, "0123456789-") == "" {
				continue
			}
		default:
			continue
		}
		v, _, ok := literal(rd.Word)
		if !ok {
			v = ""
		}
		out = append(out, v)
	}
	return out
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
				r.add(Part{Text: r.source(c), Unjudged: "brace expansion too large to read", Opaque: true, From: "braces expanded"})
				return
			}
			expanded = append(expanded, r.expanded(x))
		}
	}
	r.read(cmd{words: expanded, redirs: redirs, stmt: rs, derived: true}, "braces expanded")
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
	derived bool               // a reading of a command the line writes otherwise (braces expanded)
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
	return cmd{words: words, redirs: c.redirs, stmt: c.stmt, derived: c.derived}
}

// as is c read otherwise than it is written: words instead of its own.
func (c cmd) as(words []word) cmd {
	d := c.with(words)
	d.derived = true
	return d
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
	if r.onCall != nil && !c.derived {
		r.onCall(c)
	}
	name := c.words[0]
	switch {
	case !name.ok:
		r.add(Part{Text: c.text(), Unjudged: "the command's name comes from an expansion", Opaque: true, From: from})
		return
	case name.glob:
		r.add(Part{Text: c.text(), Unjudged: "the command's name is a pattern", Opaque: true, From: from})
		return
	case name.braces:
		r.add(Part{Text: c.text(), Unjudged: "the command's name has braces the shell expands", From: from})
		return
	}
	if strings.Contains(name.lit, "/") && path.Base(name.lit) != name.lit {
		// /usr/bin/touch: the path as written, then the command by its name.
		r.add(Part{Text: c.text(), From: from})
		c = c.as(append([]word{named(path.Base(name.lit))}, c.words[1:]...))
		from = joinFrom(from, "by its name")
	}
	base := c.words[0].lit
	if len(base) > 1 && base[0] == '=' {
		// zsh runs =touch as the touch its PATH finds.
		r.add(Part{Text: c.text(), Unjudged: "zsh runs =NAME as the command NAME", From: from})
		r.read(c.as(append([]word{named(base[1:])}, c.words[1:]...)), joinFrom(from, "as zsh reads it"))
		return
	}
	if runs, ok := r.runs[base]; ok {
		// A name the line made run something else (alias, hash -p): read
		// as that too, for a deny.
		r.add(Part{Text: c.text(), Unjudged: "the line makes " + base + " run " + runs + " (alias or hash -p)", Opaque: true, From: from})
		args := make([]string, 0, len(c.words))
		args = append(args, runs)
		for _, w := range c.words[1:] {
			args = append(args, w.text)
		}
		if r.depth <= maxScriptDepth {
			r.script(strings.Join(args, " "), joinFrom(from, "as the line defines "+base))
		}
		return
	}
	if run, ok := runners[base]; ok {
		run(r, c, from)
		return
	}
	r.add(Part{Text: c.text(), Unjudged: patterns(c), Opaque: patterns(c) != "", From: from})
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
