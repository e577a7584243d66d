package rules

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates some text of a line as code after the line was read, and
// what that runs is not in the line: arithmetic reads a variable's value
// as an expression, and an array subscript in it (a[$(touch F)]) is
// expanded, running the command substitutions it holds; so is the
// subscript of a name given to read, printf -v, test -v or unset, of an
// indirect expansion ${!x}, a nameref's target; ${x@P} expands a value as
// a prompt; PS4, BASH_ENV and PROMPT_COMMAND hold text bash expands or
// runs. A statement that does any of this with text that is not a plain
// number makes its parts opaque: no rule allows them, and a deny in force
// refuses the call ([Set.Permit]).

// Why a statement's parts are opaque.
const (
	whyArithm    = "arithmetic evaluates the names in it, and a subscript in a variable's value runs the commands it holds"
	whySubscript = "a subscript is arithmetic, which runs the commands a variable's value holds"
	whyIndirect  = "an indirect expansion ${!…} evaluates the name its variable holds, subscript and all"
	whyPrompt    = "${…@P} expands a value as a prompt, running the commands in it"
	whyOtherExp  = "a zsh or mksh expansion, which may evaluate a value as code"
	whyTestArith = "[[ … -eq … ]] compares by arithmetic, which runs the commands a variable's value holds"
	whyTestVar   = "-v and -R evaluate the subscript of the name they test"
	whyDeclare   = "declare -i makes assignments arithmetic and -n makes a name a reference, which evaluate subscripts"
	whyDeclExp   = "a declaration from an expansion may name a subscript, which is evaluated"
	whyFdName    = "a {name}> redirection with a subscript evaluates it"
)

// evaluation is why the nodes (a statement's own words, not the
// statements nested in them) make bash evaluate text as code; "" when
// they do not.
func evaluation(nodes ...syntax.Node) string {
	why := ""
	for _, n := range nodes {
		if n == nil || why != "" {
			continue
		}
		syntax.Walk(n, func(n syntax.Node) bool {
			if why != "" {
				return false
			}
			switch n := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.Stmt:
				return false // a statement of its own, judged on its own
			case *syntax.ArithmExp:
				if !pureArithm(n.X) {
					why = whyArithm
				}
			case *syntax.ArithmCmd:
				if !pureArithm(n.X) {
					why = whyArithm
				}
			case *syntax.LetClause:
				for _, x := range n.Exprs {
					if !pureArithm(x) {
						why = whyArithm
					}
				}
			case *syntax.CStyleLoop:
				if !pureArithm(n.Init) || !pureArithm(n.Cond) || !pureArithm(n.Post) {
					why = whyArithm
				}
			case *syntax.ParamExp:
				why = paramEvaluation(n)
			case *syntax.Assign:
				switch {
				case n.Index != nil && !pureArithm(n.Index):
					why = whySubscript
				case n.Name != nil && codeVariable(n.Name.Value) != "":
					why = codeVariable(n.Name.Value)
				}
			case *syntax.ArrayElem:
				if n.Index != nil && !pureArithm(n.Index) {
					why = whySubscript
				}
			case *syntax.DeclClause:
				why = declEvaluation(n)
			case *syntax.BinaryTest:
				switch n.Op {
				case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
					if !pureArithm(testWord(n.X)) || !pureArithm(testWord(n.Y)) {
						why = whyTestArith
					}
				}
			case *syntax.UnaryTest:
				if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
					if w, ok := n.X.(*syntax.Word); !ok || !plainName(wordOf(w)) {
						why = whyTestVar
					}
				}
			case *syntax.Redirect:
				if n.N != nil && strings.Contains(n.N.Value, "[") {
					why = whyFdName
				}
			}
			return why == ""
		})
	}
	return why
}

// testWord is x as an arithmetic operand: a word, or nil for anything
// else (which is not pure).
func testWord(x syntax.TestExpr) syntax.ArithmExpr {
	if w, ok := x.(*syntax.Word); ok {
		return w
	}
	return &syntax.Word{}
}

// paramEvaluation is why p evaluates text as code; "" for a plain $x,
// ${x}, ${#x}, ${x:-word}, ${x#pattern}, ${x/a/b}, ${x^^}, ${x@Q},
// ${a[@]}, ${!a[@]}, ${!prefix*} and the like, whose words are judged on
// their own.
func paramEvaluation(p *syntax.ParamExp) string {
	whole := func(x syntax.ArithmExpr) bool { // [@] or [*]: every element, no arithmetic
		w, ok := x.(*syntax.Word)
		return ok && (w.Lit() == "@" || w.Lit() == "*")
	}
	switch {
	case p.Flags != nil || p.NestedParam != nil || p.Width || p.IsSet || len(p.Modifiers) > 0 ||
		p.Split != syntax.OptUnset || p.GlobSubst != syntax.OptUnset || p.RcExpand != syntax.OptUnset:
		return whyOtherExp
	case p.Excl && p.Names == 0 && (p.Index == nil || !whole(p.Index)):
		return whyIndirect
	case p.Index != nil && !whole(p.Index) && !pureArithm(p.Index):
		return whySubscript
	case p.Slice != nil && (!pureArithm(p.Slice.Offset) || !pureArithm(p.Slice.Length)):
		return whySubscript
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P"):
		return whyPrompt
	case p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) && p.Param != nil:
		return codeVariable(p.Param.Value) // ${PS4:=…} sets PS4
	}
	return ""
}

// declEvaluation is why a declaration (declare, typeset, local, export,
// readonly) evaluates text: an integer or nameref attribute, or a name
// from an expansion. Its assignments are walked on their own.
func declEvaluation(d *syntax.DeclClause) string {
	if d.Variant.Value == "nameref" {
		return whyDeclare
	}
	for _, a := range d.Args {
		if !a.Naked || a.Name != nil || a.Value == nil {
			continue
		}
		v, _, ok := literal(a.Value)
		switch {
		case !ok:
			return whyDeclExp
		case attributeFlags(v):
			return whyDeclare
		}
	}
	return ""
}

// attributeFlags reports whether s is a declaration's option word that
// sets the integer or nameref attribute: -i, -n, -ai, +i….
func attributeFlags(s string) bool {
	return len(s) > 1 && (s[0] == '-' || s[0] == '+') && strings.ContainsAny(s[1:], "in")
}

// pureArithm reports whether x is arithmetic on plain numbers only (or
// absent): it names no variable, so nothing in it can run.
func pureArithm(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.BinaryArithm:
		return pureArithm(x.X) && pureArithm(x.Y)
	case *syntax.UnaryArithm:
		return pureArithm(x.X)
	case *syntax.ParenArithm:
		return pureArithm(x.X)
	case *syntax.Word:
		if len(x.Parts) == 1 {
			// $# $? $$ $!: always a number.
			if p, ok := x.Parts[0].(*syntax.ParamExp); ok && p.Param != nil && strings.Contains("#?$!", p.Param.Value) &&
				len(p.Param.Value) == 1 && paramEvaluation(p) == "" && p.Exp == nil && p.Repl == nil && p.Slice == nil && !p.Length {
				return true
			}
		}
		return isNumber(x.Lit())
	}
	return false
}

// isNumber reports whether s is an arithmetic number: 12, 0x1f, 2#101.
func isNumber(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '#' || c == '@' || c == '_') {
			return false
		}
	}
	return true
}

// validName reports whether s is a shell variable's name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// plainName reports whether w is a variable's name with no subscript.
func plainName(w word) bool { return w.ok && validName(w.lit) }

// wordOf reads w as a word of its own (its text is not needed).
func wordOf(w *syntax.Word) word {
	v, glob, ok := literal(w)
	return word{lit: v, ok: ok, glob: glob}
}

// codeVariable is why assigning the variable name makes bash run or
// expand its value as commands, or makes a name run another command; ""
// for any other variable.
func codeVariable(name string) string {
	switch {
	case name == "PS0" || name == "PS1" || name == "PS2" || name == "PS4":
		return "bash expands " + name + " as a prompt, running the commands in it"
	case name == "PROMPT_COMMAND":
		return "bash runs PROMPT_COMMAND as commands"
	case name == "BASH_ENV" || name == "ENV":
		return "a shell expands " + name + " and runs the file it names"
	case name == "BASH_ALIASES" || name == "BASH_CMDS":
		return name + " makes a name run another command"
	case strings.HasPrefix(name, "BASH_FUNC_"):
		return "a variable BASH_FUNC_… defines a function in the bash it starts"
	}
	return ""
}

// ownNodes are the parts of a statement's command that are its own: its
// words, assignments and header, not the statements in its body.
func ownNodes(c syntax.Command) []syntax.Node {
	switch c := c.(type) {
	case *syntax.CallExpr:
		ns := make([]syntax.Node, 0, len(c.Assigns)+len(c.Args))
		for _, a := range c.Assigns {
			ns = append(ns, a)
		}
		for _, w := range c.Args {
			ns = append(ns, w)
		}
		return ns
	case *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause:
		return []syntax.Node{c}
	}
	return headerNodes(c)
}

// headerNodes are the words of a compound command's header: a for loop's
// list or arithmetic, a case's word and patterns.
func headerNodes(c syntax.Command) []syntax.Node {
	switch c := c.(type) {
	case *syntax.ForClause:
		return []syntax.Node{c.Loop}
	case *syntax.CaseClause:
		ns := []syntax.Node{c.Word}
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				ns = append(ns, p)
			}
		}
		return ns
	}
	return nil
}

// redirNodes are rs as nodes.
func redirNodes(rs []*syntax.Redirect) []syntax.Node {
	ns := make([]syntax.Node, len(rs))
	for i, rd := range rs {
		ns[i] = rd
	}
	return ns
}
