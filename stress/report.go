package stress

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Tally counts verdicts of one kind.
type Tally struct {
	Asked, Right, Wrong, Failed int
	// Theirs counts the forms left to the person, who typed (Case.Person).
	Theirs int
	// Resized is how many of the forms asked had a resize land while they
	// were open, Resizes how many resizes did.
	Resized, Resizes int
}

func (t *Tally) add(v Verdict) {
	if v.Outcome == NotAsked {
		return
	}
	t.Asked++
	if v.Resized > 0 {
		t.Resized++
		t.Resizes += v.Resized
	}
	switch v.Outcome {
	case Right:
		t.Right++
	case Wrong:
		t.Wrong++
	case Failed:
		t.Failed++
	case Theirs:
		t.Theirs++
	}
}

// Answered is the share of asked forms answered as intended, in percent;
// forms left to the person, who typed, are not counted.
func (t Tally) Answered() float64 {
	if t.Asked-t.Theirs == 0 {
		return 0
	}
	return 100 * float64(t.Right) / float64(t.Asked-t.Theirs)
}

// Summary is the verdicts tallied per version and per case class.
type Summary struct {
	Versions  []string
	ByVersion map[string]*Tally
	Classes   []string
	ByClass   map[string]map[string]*Tally // class -> version -> tally
	Total     Tally
	NotAsked  int
	// Dialogs tallies the dialog cases (Verdict.Dialog) apart from the
	// forms; nil when there were none.
	Dialogs *Summary
}

// Summarize tallies verdicts, the forms' and the dialogs' apart.
func Summarize(vs []Verdict) Summary {
	var forms, dialogs []Verdict
	for _, v := range vs {
		if v.Dialog {
			dialogs = append(dialogs, v)
		} else {
			forms = append(forms, v)
		}
	}
	s := summarize(forms)
	if len(dialogs) > 0 {
		d := summarize(dialogs)
		s.Dialogs = &d
	}
	return s
}

func summarize(vs []Verdict) Summary {
	s := Summary{ByVersion: map[string]*Tally{}, ByClass: map[string]map[string]*Tally{}}
	for _, v := range vs {
		if v.Outcome == NotAsked {
			s.NotAsked++
			continue
		}
		if s.ByVersion[v.Version] == nil {
			s.ByVersion[v.Version] = &Tally{}
			s.Versions = append(s.Versions, v.Version)
		}
		s.ByVersion[v.Version].add(v)
		s.Total.add(v)
		for _, c := range v.Classes {
			if s.ByClass[c] == nil {
				s.ByClass[c] = map[string]*Tally{}
				s.Classes = append(s.Classes, c)
			}
			if s.ByClass[c][v.Version] == nil {
				s.ByClass[c][v.Version] = &Tally{}
			}
			s.ByClass[c][v.Version].add(v)
		}
	}
	slices.Sort(s.Classes)
	return s
}

// Markdown writes the summary as two tables: per version, and per class
// and version (right/asked); between them, when there were any, a line
// counting the resizes that landed while a form was open. The dialogs'
// tables follow the forms', under a line of their own.
func (s Summary) Markdown(w io.Writer) {
	if s.Total.Asked > 0 || s.Dialogs == nil {
		s.markdown(w, "forms")
	}
	if s.Dialogs != nil {
		if s.Total.Asked > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "Dialogs (permission prompts, plan approval, the trust dialog, the bypass confirmation, MCP servers' forms), "+
			"judged by what Claude recorded or the MCP server received:\n\n")
		s.Dialogs.markdown(w, "dialogs")
		fmt.Fprintln(w)
		s.Dialogs.kinds(w)
	}
}

// dialogKinds are the kinds of dialog cases, by the class that marks them
// (none: a permission prompt), in the order the report gives them.
var dialogKinds = []struct{ class, name string }{
	{"", "permission prompt"}, {"plan", "plan approval"}, {"trust", "trust dialog"},
	{"bypass", "bypass confirmation"}, {"elicitation", "MCP server's form"},
}

// kinds writes a table of the dialogs per kind and version.
func (s Summary) kinds(w io.Writer) {
	fmt.Fprintf(w, "| dialog kind | Claude Code | asked | right | wrong | not answered |\n|---|---|---|---|---|---|\n")
	for _, k := range dialogKinds {
		for _, v := range s.Versions {
			var t *Tally
			if k.class != "" {
				t = s.ByClass[k.class][v]
			} else {
				t = s.ByVersion[v].minus(s, v)
			}
			if t == nil || t.Asked == 0 {
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d |\n", k.name, v, t.Asked, t.Right, t.Wrong, t.Failed)
		}
	}
}

// minus is t, a version's tally, less the dialogs of every kind but
// permission prompts.
func (t *Tally) minus(s Summary, version string) *Tally {
	out := *t
	for _, k := range dialogKinds[1:] {
		if o := s.ByClass[k.class][version]; o != nil {
			out.Asked -= o.Asked
			out.Right -= o.Right
			out.Wrong -= o.Wrong
			out.Failed -= o.Failed
			out.Theirs -= o.Theirs
		}
	}
	return &out
}

func (s Summary) markdown(w io.Writer, what string) {
	// The column of forms left to the person shows only when there are some.
	theirs := s.Total.Theirs > 0
	row := func(name string, t *Tally) {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d |", name, t.Asked, t.Right, t.Wrong, t.Failed)
		if theirs {
			fmt.Fprintf(w, " %d |", t.Theirs)
		}
		fmt.Fprintf(w, " %.1f %% |\n", t.Answered())
	}
	if theirs {
		fmt.Fprintf(w, "| Claude Code | %s asked | right | wrong | not answered | left to the person, who typed | answered |\n|---|---|---|---|---|---|---|\n", what)
	} else {
		fmt.Fprintf(w, "| Claude Code | %s asked | right | wrong | not answered | answered |\n|---|---|---|---|---|---|\n", what)
	}
	for _, v := range s.Versions {
		row(v, s.ByVersion[v])
	}
	t := s.Total
	row("all", &t)
	fmt.Fprintln(w)
	if t.Resizes > 0 {
		var per []string
		for _, v := range s.Versions {
			per = append(per, fmt.Sprintf("%s %d on %d", v, s.ByVersion[v].Resizes, s.ByVersion[v].Resized))
		}
		fmt.Fprintf(w, "Resizes that landed while a form was open (between its first key and its end, as the events were read; one counted for each form open then): %d on %d forms (%s).\n\n",
			t.Resizes, t.Resized, strings.Join(per, ", "))
	}
	fmt.Fprintf(w, "| case class | %s |\n|---|%s\n", strings.Join(s.Versions, " | "), strings.Repeat("---|", len(s.Versions)))
	for _, c := range s.Classes {
		var cells []string
		for _, v := range s.Versions {
			t := s.ByClass[c][v]
			if t == nil {
				cells = append(cells, "–")
				continue
			}
			cell := fmt.Sprintf("%d/%d", t.Right, t.Asked)
			if t.Wrong > 0 {
				cell += fmt.Sprintf(" (**%d wrong**)", t.Wrong)
			}
			if t.Theirs > 0 {
				cell += fmt.Sprintf(" (%d theirs)", t.Theirs)
			}
			cells = append(cells, cell)
		}
		fmt.Fprintf(w, "| %s | %s |\n", c, strings.Join(cells, " | "))
	}
}
