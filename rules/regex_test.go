package rules

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"testing"
)

// TestRegexLimits: a regular expression that compiles to more than
// MaxRegexSize instructions, and one that takes a file's past
// MaxFileRegexSize, are errors at their place, in the rules' words; a
// file of many large rules is refused at the first that is too many, and
// said so once.
func TestRegexLimits(t *testing.T) {
	big := strings.Repeat(`\pL{1000}`, 51) // 51,002 instructions
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"one rule's", "version: 1\nrules:\n  - when: {question: '" + big + "'}\n    answer: {cancel: true}\n",
			[]string{"r.yaml:3:22: question: compiles to 51002 instructions; at most 50000"}},
		{"one permission's", "version: 1\npermissions:\n  - when: {tool: Bash, command: '" + big + "'}\n    decide: allow\n",
			[]string{"r.yaml:3:33: command: compiles to 51002 instructions; at most 50000"}},
		{"the file's", bigRegexRules(3000),
			// 2,000 instructions a rule: the 251st takes the file to 502,000.
			[]string{"r.yaml:754:22: question: the file's regular expressions compile to 502000 instructions so far; at most 500000 in one file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("r.yaml", []byte(tc.in))
			es, _ := err.(Errors)
			var got []string
			for _, e := range es {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	if _, err := Parse("r.yaml", []byte(bigRegexRules(250))); err != nil {
		t.Errorf("250 rules of 2,000 instructions, 500,000 in all: %v", err)
	}
}

// bigRegexRules is a rules file of n rules whose question is
// \pL{999}\pN{999}: 2,000 instructions each.
func bigRegexRules(n int) string {
	var b strings.Builder
	b.WriteString("version: 1\nrules:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: r%d\n    when: {question: '\\pL{999}\\pN{999}'}\n    answer: {cancel: true}\n", i)
	}
	return b.String()
}

// TestRegexSize: the size counted is what syntax.Compile makes of the
// simplified expression, or one more for each star (counted as Go's
// parser counts for its own limit), for the rules' kind of expressions.
func TestRegexSize(t *testing.T) {
	for _, s := range []string{
		`(?i)which database`, `^Database$`, `(?i)(deploy|release|ship) (to|into) (prod|production|staging)`,
		`\pL{999}\pN{999}`, `^(?:Bash|Edit|Write)$`, `rm -rf`, `(?i)^git (push|commit)\b.*--force`, `.*`, `a*b+c?`,
		`(a|b){3,7}`, `[a-z]{2,}x`, `(?:foo|bar)*`, `(?s).*secret.*`, `\d{4}-\d{2}-\d{2}`, `x{0,1000}`, `(ab){5,}`,
		`^mcp__.*__delete`, `((a|b|c)+d)*e`, `(?i)\b(password|token|secret|api[_-]?key)\b`, ``, `()`, `a|`,
	} {
		re, err := syntax.Parse(s, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			t.Fatal(err)
		}
		got, compiled, stars := regexSize(re), len(prog.Inst), strings.Count(s, "*")
		if got < compiled || got > compiled+stars {
			t.Errorf("%q: counted %d, compiled %d instructions", s, got, compiled)
		}
	}
}

// TestRE2Hint: a Perl feature RE2 lacks gets Go's error and a hint saying
// so; any other mistake, Go's error alone.
func TestRE2Hint(t *testing.T) {
	const (
		look = "; RE2 (Go's regexp) has no lookaround or backreferences; see https://github.com/google/re2/wiki/Syntax"
		poss = "; RE2 (Go's regexp) has no possessive quantifiers or atomic groups; see https://github.com/google/re2/wiki/Syntax"
	)
	for _, tc := range []struct{ re, want string }{
		{`(?<=a)b`, "invalid named capture: `(?<=a)b`" + look},
		{`(?<!a)b`, "invalid named capture: `(?<!a)b`" + look},
		{`a(?=b)`, "invalid or unsupported Perl syntax: `(?=`" + look},
		{`a(?!b)`, "invalid or unsupported Perl syntax: `(?!`" + look},
		{`(a)\1`, "invalid escape sequence: `\\1`" + look},
		{`(?P<x>a)(?P=x)`, "invalid or unsupported Perl syntax: `(?P`" + look},
		{`(?<x>a)\k<x>`, "invalid escape sequence: `\\k`" + look},
		{`a*+`, "invalid nested repetition operator: `*+`" + poss},
		{`a{2}+`, "invalid nested repetition operator: `{2}+`" + poss},
		{`(?>ab)`, "invalid or unsupported Perl syntax: `(?>`" + poss},
		// Not a Perl feature RE2 lacks: no hint.
		{`a**`, "invalid nested repetition operator: `**`"},
		{`(`, "missing closing ): `(`"},
		{`x\q`, "invalid escape sequence: `\\q`"},
		{`(?z)`, "invalid or unsupported Perl syntax: `(?z`"},
	} {
		src := fmt.Sprintf("version: 1\nrules:\n  - when: {question: '%s'}\n    answer: {cancel: true}\n", tc.re)
		_, err := Parse("r.yaml", []byte(src))
		want := "r.yaml:3:22: question: bad regular expression: error parsing regexp: " + tc.want
		if err == nil || err.Error() != want {
			t.Errorf("%s:\ngot  %v\nwant %s", tc.re, err, want)
		}
	}
}
