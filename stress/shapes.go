package stress

import (
	"fmt"
	"slices"
)

// shapeChance is how likely a question is to get a family's options;
// markupChance how likely its text is to be marked up.
const (
	shapeChance  = 0.2
	markupChance = 0.1
)

// shapeFamilies are options that only differ a little, or that a
// renderer may take for something else: what a matcher by prefix, by
// folded case, or over the rendered markdown would confuse. Each holds at
// least four, the most a question offers.
var shapeFamilies = map[string][]string{
	"prefix": {
		"Keep the current setup", "Keep the current setup for now",
		"Keep the current setup and revisit the question after the next quarterly planning",
		"Keep the current setup and revisit the question after the next release",
		"Keep the current setup and revisit the question after the next quarterly planning, with notes",
	},
	"case":     {"Yes", "yes", "YES", "Yes.", "yes!"},
	"markdown": {"**Bold** choice", "`go test ./...`", "[Docs](https://example.com/docs)", "_emphasis_ here", "# Heading", "> quoted", "- list item", "~~struck~~ out"},
	"unbroken": {
		"https://example.com/a/very/long/path/that/does/not/break/anywhere/at/all/and/keeps/going",
		"/usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js",
		"averyveryverylongidentifierwithoutanyspacesorpunctuationatallinsideit",
		`C:\Users\name\project`, "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z",
	},
	"punctuation": {"Option (a)", "Option [b]", "Option {c}", "Option: d", "Option; e", "Option — f", "100%", "$HOME/bin", "a|b", "<none>", "x & y"},
	"tab":         {"tab\there", "two\t\ttabs", "\tleading tab", "plain here"},
}

// shapeNames is shapeFamilies' names in a fixed order, for the draw.
var shapeNames = []string{"case", "markdown", "prefix", "punctuation", "tab", "unbroken"}

// shape gives some questions a family's options in their place, the
// answers taking the options at their places, and marks up some texts.
func (g *generator) shape(cs []Case) {
	for k := range cs {
		c := &cs[k]
		for i := range c.Questions {
			q := &c.Questions[i]
			if g.shapes.Float64() < markupChance {
				q.Question = markupQuestion(q.Question, g.shapes.IntN(len(markups)))
				c.Classes = addClass(c.Classes, "markup-question")
			}
			if g.shapes.Float64() >= shapeChance {
				continue
			}
			name := shapeNames[g.shapes.IntN(len(shapeNames))]
			family := slices.Clone(shapeFamilies[name])
			g.shapes.Shuffle(len(family), func(a, b int) { family[a], family[b] = family[b], family[a] })
			at := map[string]string{}
			for j := range q.Options {
				at[q.Options[j].Label] = family[j]
				q.Options[j].Label = family[j]
			}
			a := &c.Answers[i]
			a.Select = slices.Clone(a.Select)
			for j, l := range a.Select {
				a.Select[j] = at[l]
			}
			c.Classes = addClass(c.Classes, "shape-"+name)
		}
	}
}

// markups are the ways markupQuestion marks up a question's text.
var markups = []string{"**%s**", "%s (see `README.md`)", "_%s_", "%s [docs](https://example.com)", "# %s", "%s\n\n- one\n- two"}

// markupQuestion is text marked up the m-th way; the text stays in it
// whole, so that it stays unique in its session.
func markupQuestion(text string, m int) string { return fmt.Sprintf(markups[m], text) }
