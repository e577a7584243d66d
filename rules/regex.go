package rules

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Limits on the rules' regular expressions, in compiled instructions
// ([regexSize]). A hand-written condition compiles to tens of
// instructions, a long alternation of labels to a few thousand. Each
// instruction of a loaded file holds about 50 bytes and allocates about
// 150 while it loads, so a file stays within about 25 MB held.
const (
	MaxRegexSize     = 50_000  // one regular expression
	MaxFileRegexSize = 500_000 // all of one file's
)

// compileRegex compiles s as [regexp.Compile] does, once its size is
// known to be within the limits: the size is counted on the parsed
// expression, before anything is compiled, since compiling is what costs.
// p.regexSize adds up the file's; past the file's limit, the error is
// said once and later expressions are only checked.
func (p *parser) compileRegex(s string) (*regexp.Regexp, error) {
	re, err := syntax.Parse(s, syntax.Perl)
	if err != nil {
		if hint := re2Hint(s, err); hint != "" {
			return nil, fmt.Errorf("bad regular expression: %v; %s", err, hint)
		}
		return nil, fmt.Errorf("bad regular expression: %v", err)
	}
	size := regexSize(re)
	if size > MaxRegexSize {
		return nil, fmt.Errorf("compiles to %d instructions; at most %d", size, MaxRegexSize)
	}
	over := p.regexSize > MaxFileRegexSize
	p.regexSize += size
	switch {
	case over:
		return nil, nil
	case p.regexSize > MaxFileRegexSize:
		return nil, fmt.Errorf("the file's regular expressions compile to %d instructions so far; at most %d in one file",
			p.regexSize, MaxFileRegexSize)
	}
	return regexp.Compile(s)
}

// regexSize is the number of instructions re compiles to, counted on the
// parsed expression as Go's parser counts for its own limit (a star as two
// where it compiles to one), without expanding repeats: the program's
// instructions, with the two every program has (fail and match).
func regexSize(re *syntax.Regexp) int {
	return 2 + int(treeSize(re))
}

func treeSize(re *syntax.Regexp) int64 {
	var n int64
	switch re.Op {
	case syntax.OpLiteral:
		n = int64(len(re.Rune))
	case syntax.OpCapture, syntax.OpStar:
		n = 2 + treeSize(re.Sub[0])
	case syntax.OpPlus, syntax.OpQuest:
		n = 1 + treeSize(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			n += treeSize(sub)
		}
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			n += treeSize(sub)
		}
		n += int64(len(re.Sub)) - 1
	case syntax.OpRepeat:
		sub := treeSize(re.Sub[0])
		switch {
		case re.Max == -1 && re.Min == 0: // x*
			n = 2 + sub
		case re.Max == -1: // xx…x+
			n = 1 + int64(re.Min)*sub
		default: // xx(x(x)?)?
			n = int64(re.Max)*sub + int64(re.Max-re.Min)
		}
	}
	return max(1, n)
}

// re2Hint says, for a parse error of s that is a Perl feature RE2 lacks
// (lookaround, backreferences, possessive quantifiers, atomic groups),
// that Go's regexp is RE2 and where its syntax is; "" for any other error.
func re2Hint(s string, err error) string {
	const syntaxPage = "see https://github.com/google/re2/wiki/Syntax"
	var e *syntax.Error
	if !errors.As(err, &e) {
		return ""
	}
	lookaround := "RE2 (Go's regexp) has no lookaround or backreferences; " + syntaxPage
	possessive := "RE2 (Go's regexp) has no possessive quantifiers or atomic groups; " + syntaxPage
	switch e.Code {
	case syntax.ErrInvalidNamedCapture: // (?<= and (?<! read as a name
		if strings.HasPrefix(e.Expr, "(?<=") || strings.HasPrefix(e.Expr, "(?<!") {
			return lookaround
		}
	case syntax.ErrInvalidPerlOp:
		switch {
		case e.Expr == "(?=" || e.Expr == "(?!":
			return lookaround
		case e.Expr == "(?P" && strings.Contains(s, "(?P="): // a named backreference
			return lookaround
		case e.Expr == "(?>":
			return possessive
		}
	case syntax.ErrInvalidEscape: // \1 to \9, and \k<name>
		if len(e.Expr) == 2 && (e.Expr[1] >= '1' && e.Expr[1] <= '9' || e.Expr[1] == 'k') {
			return lookaround
		}
	case syntax.ErrInvalidRepeatOp: // a*+, a{2}+
		if strings.HasSuffix(e.Expr, "+") {
			return possessive
		}
	}
	return ""
}
