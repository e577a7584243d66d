package rules

import (
	"fmt"
	"regexp"
	"regexp/syntax"
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
