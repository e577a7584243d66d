package rules

import (
	"slices"
	"strings"
)

// The builtins below set, read or test variables by name. A name with a
// subscript, or one from an expansion, has its subscript evaluated as
// arithmetic, which runs the command substitutions in it: such a part is
// opaque.

// readMapfile reads mapfile: -C runs a string as commands on each line;
// the array it fills is a name whose subscript would be evaluated.
func readMapfile(r *reader, c cmd, from string) {
	rest, met, _ := getopt{flags: "t", values: "dnOsuCc"}.scan(c.words[1:])
	if o, ok := metAny(met, []string{"-C"}); ok {
		r.runString(Part{Text: c.text(), Unjudged: "mapfile -C runs a string as commands", From: from}, []word{o.word},
			joinFrom(from, "inside mapfile -C"))
		return
	}
	p := Part{Text: c.text(), From: from}
	switch {
	case len(rest) == 0:
	case !plainName(rest[0]):
		p.Unjudged, p.Opaque = whyNamed, true
	case codeVariable(rest[0].lit) != "":
		p.Unjudged, p.Opaque = codeVariable(rest[0].lit), true // its first line is $PS4
	}
	r.add(p)
}

// whyNamed is why a builtin given a name that is not a plain name is
// opaque.
const whyNamed = "a name with a subscript, or from an expansion, has its subscript evaluated, which runs the commands in it"

// namesRunner reads a builtin that sets or tests the variables named by
// the words names picks: opaque when one is not a plain name, or is one
// whose value bash runs or expands as commands (printf -v PS4 …).
func namesRunner(o getopt, names func(rest []word, met []opt) []word) func(*reader, cmd, string) {
	return func(r *reader, c cmd, from string) {
		rest, met, _ := o.scan(c.words[1:])
		p := Part{Text: c.text(), From: from}
		for _, w := range names(rest, met) {
			switch {
			case !plainName(w):
				p.Unjudged, p.Opaque = whyNamed, true
			case codeVariable(w.lit) != "":
				p.Unjudged, p.Opaque = codeVariable(w.lit), true
			}
		}
		r.add(p)
	}
}

// readDeclare reads declare, typeset, local, export or readonly run as a
// command (builtin declare …): the integer and nameref attributes and a
// subscript evaluate text; a variable whose value bash runs is code.
func readDeclare(r *reader, c cmd, from string) {
	p := Part{Text: c.text(), From: from}
	for _, w := range c.words[1:] {
		name, _, _ := strings.Cut(w.lit, "=")
		name = strings.TrimSuffix(name, "+")
		switch {
		case !w.ok:
			p.Unjudged, p.Opaque = whyDeclExp, true
		case attributeFlags(w.lit):
			p.Unjudged, p.Opaque = whyDeclare, true
		case strings.HasPrefix(w.lit, "-") || strings.HasPrefix(w.lit, "+"):
		case !validName(name):
			p.Unjudged, p.Opaque = whyNamed, true
		default:
			r.noteCode(&p, w.lit)
		}
	}
	r.add(p)
}

// testOps are test's operators before or between operands; -v and -R,
// which evaluate a name's subscript, are not among them.
var testOps = []string{"-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x",
	"-G", "-L", "-N", "-O", "-S", "-z", "-n", "-o", "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge",
	"-nt", "-ot", "-ef"}

// readTest reads test and [: -v and -R evaluate the subscript of the name
// they test, and a word from an expansion could be -v, unless it is an
// operand by its place (after an operator, before a binary one, alone).
func readTest(r *reader, c cmd, from string) {
	words := c.words[1:]
	if c.words[0].lit == "[" && len(words) > 0 && words[len(words)-1].ok && words[len(words)-1].lit == "]" {
		words = words[:len(words)-1]
	}
	p := Part{Text: c.text(), From: from}
	op := func(i int) bool {
		return i >= 0 && i < len(words) && words[i].ok && slices.Contains(testOps, words[i].lit)
	}
	for i, w := range words {
		switch {
		case w.ok && (w.lit == "-v" || w.lit == "-R"):
			if i+1 >= len(words) || !plainName(words[i+1]) {
				p.Unjudged, p.Opaque = whyTestVar, true
			}
		case !w.ok && !op(i-1) && !op(i+1) && len(words) > 1:
			p.Unjudged, p.Opaque = "a word of test from an expansion may be -v, which evaluates a name's subscript", true
		}
	}
	r.add(p)
}
