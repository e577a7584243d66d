package rules

import (
	"strings"
)

// maxStarts bounds how many words of a piece a fragment may start at.
const maxStarts = 12

// unquoted drops quotes and backslashes.
var unquoted = strings.NewReplacer(`'`, "", `"`, "", `\`, "")

// fragments are the pieces of src, text that was not parsed, a deny may
// match as it would a command's part: src is cut at what may end or begin
// a command (; & | newlines, brackets, braces, backquotes, $( ), quotes and
// backslashes are dropped, blanks made one space, and each piece is read
// from each of its first words that is not an option or an assignment
// (which a wrapper, a keyword or an assignment may stand before), by its
// name too when it is a path. It is more than a parse would give, never
// less: a deny errs on the side of refusing.
func fragments(src string) []string {
	var out []string
	seen := map[string]bool{src: true}
	emit := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	pieces := strings.FieldsFunc(src, func(c rune) bool { return strings.ContainsRune(";&|\n\r(){}`", c) })
	for _, piece := range pieces {
		words := strings.Fields(unquoted.Replace(piece))
		starts := 0
		for i, w := range words {
			if starts == maxStarts {
				break
			}
			if w == "$" || w == "!" || strings.HasPrefix(w, "-") || isAssignment(w) {
				continue
			}
			starts++
			rest := strings.Join(words[i+1:], " ")
			emit(strings.TrimSpace(w + " " + rest))
			if b := pathBase(w); b != w {
				emit(strings.TrimSpace(b + " " + rest))
			}
		}
	}
	return out
}
