package stress

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/claudewrap/claudewrap/internal/claudetest"
)

// Question is one generated question, as Claude receives it.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header"`
	MultiSelect bool     `json:"multiSelect"`
	Options     []Option `json:"options"`
}

// Option is one offered answer; Preview is optional.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Preview     string `json:"preview,omitempty"`
}

// HasPreview reports whether Claude draws q in its preview layout: a
// single-select question with a preview on some option.
func (q Question) HasPreview() bool {
	if q.MultiSelect {
		return false
	}
	return slices.ContainsFunc(q.Options, func(o Option) bool { return o.Preview != "" })
}

// Answer is the intended answer to one question of a submitted form.
type Answer struct {
	Select []string // labels, in tick order for a multi-select question
	Type   string   // typed into "Type something"
	Notes  string   // typed with n on a preview question
}

// Case is one form and what claudewrap is meant to do with it.
type Case struct {
	ID        string
	Questions []Question
	// Answers holds one answer per question when the form is submitted.
	Answers []Answer
	// Chat, when set, is the message sent after "Chat about this";
	// Cancel presses Esc. ChatOn/CancelOn is the question whose rule says so.
	Chat     string
	Cancel   bool
	ActionOn int
	// Together: asked in the same reply as the case before it (two
	// AskUserQuestion calls at once); neither is a chat or a cancel.
	Together bool
	Classes  []string
	// Resizes change the terminal's size while the form is answered, each
	// After its first key (as the harness reads claudewrap's key event,
	// polled every 20 ms); only in a session run on a terminal, and never
	// with --answer-via hook, which presses no key.
	Resizes []Resize `json:",omitempty"`
	// Person, when set, is the person at the terminal pressing a key while
	// the form is answered (generation Person): claudewrap must hand the
	// form over, and what Claude records must be claudewrap's answer or
	// nothing. Only in a session on a terminal; never with --answer-via
	// hook, which presses no key and so starts no clock.
	Person *Keypress `json:",omitempty"`
}

// Keypress is the person pressing Keys, After the form's first key (as the
// harness reads claudewrap's key event, polled every 20 ms). Keys are what
// a terminal sends with no keyboard protocol on; a kitty's terminal with
// the flags Claude pushes sends Esc as CSI 27 u (see terminal.press).
type Keypress struct {
	Keys  string
	After time.Duration
}

// Resize is one change of the terminal's size.
type Resize struct {
	Cols, Rows int
	After      time.Duration
}

// Session is one Claude Code run at one terminal size: a prompt, then its
// cases chained one after another in the same turn, now and then two of
// them asked in one reply (see Case.Together).
type Session struct {
	Name       string
	Cols, Rows int
	Prompt     string
	Cases      []Case
	// Fullscreen has Claude draw with its fullscreen renderer (the
	// setting `/tui fullscreen` writes: the alternate screen, mouse
	// reporting, the form in a pane of its own) instead of the classic
	// one (generation Fullscreen; class "fullscreen").
	Fullscreen bool `json:",omitempty"`
	// Theme is Claude's colour theme, one of claudetest.Themes, or "" for
	// its default (generation Settings; class "theme").
	Theme string `json:",omitempty"`
	// Vim turns Claude's vim editing mode on, as `/vim` does (generation
	// Settings; class "vim"): 2.1.321 and later type "Type something" in
	// its insert mode.
	Vim bool `json:",omitempty"`
	// Terminal runs the session on a pseudo-terminal, as a person's would
	// be: claudewrap not headless, Claude drawn on it (and resized now and
	// then, see Case.Resizes). Otherwise it runs headless at Cols x Rows.
	Terminal bool `json:",omitempty"`
	// Replies names the terminal that answers Claude's queries, as a
	// person's would: "" none; "xterm" or "kitty" the device attributes
	// (DA1), the version (XTVERSION), the modes (DECRQM), the cell's size
	// (CSI 16 t), and for "kitty" the keyboard flags (CSI ? u) and a
	// graphics query too (see Answerer).
	Replies Term `json:",omitempty"`
	// Cut has the terminal send each batch of replies cut in two, inside
	// its first reply, the rest cutGap after, as a terminal across a
	// network can (generation Pieces): a reply in pieces is no key typed.
	Cut bool `json:",omitempty"`
	// Pointer has the person's pointer move over Claude's fullscreen
	// renderer throughout, a report of the pointer moving with no button
	// held every pointerEvery while Claude asks for them (?1003h), sweeping
	// the rows (Plan.AllPointer, stress's -pointer; class "pointer"). Not
	// drawn by any generation.
	Pointer bool `json:",omitempty"`
}

// Plan is everything one seed generates.
type Plan struct {
	Seed     uint64
	Sessions []Session
}

// Forms returns the number of cases in the plan.
func (p Plan) Forms() int {
	n := 0
	for _, s := range p.Sessions {
		n += len(s.Cases)
	}
	return n
}

// Generate makes sessions until they hold at least forms cases. The same
// seed and count give the same plan; a prefix of a longer plan is the
// shorter one.
func Generate(seed uint64, forms int) Plan { return GenerateWith(seed, forms, Latest) }

// Generation is what the generator draws. Each one added more and changed
// what a seed gives; an earlier one gives the seeds of the runs made with
// it their forms again.
type Generation int

const (
	// Plain is the generator before it drew emoji sequences (d67c786).
	Plain Generation = iota
	// Sequences draws emoji sequences in labels, descriptions and headers
	// (random forms runs 32 to 36).
	Sequences
	// Marks draws headers holding the tab row's own marks too ("✔ Done",
	// "Next →"; run 37).
	Marks
	// Spaces draws headers and labels with white space at their ends or
	// two spaces inside, and headers holding ", " or a quote, too (run 38).
	Spaces
	// Scripts draws labels, descriptions, headers and questions in other
	// scripts (Thai, Arabic, Hebrew, Persian, Hangul, Devanagari,
	// fullwidth Latin) and with invisible characters (a zero-width space,
	// a soft hyphen, a word joiner, U+FEFF, a direction mark, a no-break
	// space), too (runs 39 to 43).
	Scripts
	// Typed types answers and notes in other scripts too: Devanagari with
	// spacing marks, which 2.1.330 and later give a cell and must show as
	// typed, Thai, Arabic, Hebrew, Hangul, fullwidth Latin (run 44).
	Typed
	// Terminals runs some sessions on a pseudo-terminal, as a person's
	// would be, instead of headless, and resizes it while forms are
	// answered (Session.Terminal, Case.Resizes). A seed's forms, answers
	// and headless sessions are Typed's; a session on a terminal gets
	// another size, and its cases the classes "terminal" and "resized"
	// (run 45).
	Terminals
	// Replies has the terminal answer Claude's queries as nothing, an
	// xterm or a kitty would (Session.Replies; class "kitty-keyboard"), and
	// gives a session on a 24-row terminal the class "short" (run 46). The
	// sizes and resizes are Terminals'.
	Replies
	// Person has the person at a session's terminal press Down once, now
	// and then, while a form is answered (Case.Person; class "person"). The
	// forms, sizes, resizes and replies are Replies'.
	Person
	// Pieces has a terminal that replies send its replies cut in two, now
	// and then (Session.Cut; class "replies-cut"). All else is Person's.
	Pieces
	// Keys has the person press Up, Left, Right or Esc as well as Down
	// (personKeys; class "person-esc" for Esc, which cancels the form in
	// Claude's menu and must be reported so). All else is Pieces'.
	Keys
	// Shapes gives some questions options of one family instead (labels
	// that share a long start, differ in case alone, hold markdown, run on
	// without a space, or hold punctuation or a tab), and marks up some
	// question texts with markdown (shapeFamilies, markupQuestion; classes
	// "shape-FAMILY" and "markup-question"). They are drawn apart and last:
	// all else, the answers' options by their place included, is Keys'.
	Shapes
	// Fullscreen runs some sessions with Claude's fullscreen renderer, as
	// a person who took its offer (`/tui fullscreen`) has it
	// (Session.Fullscreen; class "fullscreen"). It is drawn apart and
	// last: all else is Shapes'.
	Fullscreen
	// Settings gives some sessions a colour theme of Claude's other than
	// its default (light, colour-blind friendly, ANSI colours only), as a
	// person's `/theme` leaves it (Session.Theme; class "theme"), and some
	// its vim editing mode (Session.Vim; class "vim"). They are drawn apart
	// and last: all else is Fullscreen's.
	Settings

	Latest = Settings
)

// GenerateWith is Generate with the generator of generation gen.
func GenerateWith(seed uint64, forms int, gen Generation) Plan {
	p := Plan{Seed: seed}
	n := 0
	for i := 0; n < forms; i++ {
		g := &generator{r: rand.New(rand.NewPCG(seed, uint64(i))), session: i, gen: gen,
			pairs:    rand.New(rand.NewPCG(seed^pairStream, uint64(i))),
			term:     rand.New(rand.NewPCG(seed^termStream, uint64(i))),
			person:   rand.New(rand.NewPCG(seed^personStream, uint64(i))),
			pieces:   rand.New(rand.NewPCG(seed^piecesStream, uint64(i))),
			shapes:   rand.New(rand.NewPCG(seed^shapesStream, uint64(i))),
			renderer: rand.New(rand.NewPCG(seed^rendererStream, uint64(i))),
			theme:    rand.New(rand.NewPCG(seed^themeStream, uint64(i))),
			editor:   rand.New(rand.NewPCG(seed^editorStream, uint64(i)))}
		s := g.session1(min(forms-n, 1+g.r.IntN(6)))
		n += len(s.Cases)
		p.Sessions = append(p.Sessions, s)
	}
	return p
}

type generator struct {
	r       *rand.Rand
	session int
	serial  int // unique number for question texts within the session
	// pairs draws which cases are asked together, apart from r, so that
	// a seed's forms, sizes and answers stay what they were before the
	// harness asked forms in pairs.
	pairs *rand.Rand
	// term draws which sessions run on a terminal and its resizes, apart
	// from r, so that the forms stay Typed's.
	term *rand.Rand
	// person draws the person's keys, apart from the rest, so that all
	// else stays Replies'.
	person *rand.Rand
	// pieces draws which terminals cut their replies, apart from the rest,
	// so that all else stays Person's.
	pieces *rand.Rand
	// shapes draws the families of options and the marked-up questions,
	// apart from the rest, so that all else stays Keys'.
	shapes *rand.Rand
	// renderer draws which sessions Claude draws fullscreen, apart from
	// the rest, so that all else stays Shapes'.
	renderer *rand.Rand
	// theme and editor draw the sessions' colour themes and vim modes,
	// apart from the rest, so that all else stays Fullscreen's.
	theme, editor *rand.Rand
	gen           Generation
}

// pairStream and termStream set the pairs' and the terminals' random
// streams apart from the forms'.
const (
	pairStream   = 0x7061697273
	termStream   = 0x7465726d
	personStream = 0x706572736f6e
	piecesStream = 0x706965636573
	shapesStream = 0x736861706573
	// rendererStream, themeStream and editorStream set the renderer's,
	// the themes' and the vim modes' draws apart.
	rendererStream = 0x72656e6465726572
	themeStream    = 0x7468656d65
	editorStream   = 0x656469746f72
)

// terminalChance is how likely a session is to run on a terminal;
// resizeChance how likely each of its forms is to be resized.
const (
	terminalChance = 0.3
	resizeChance   = 0.75
	// personChance is how likely the person at a session's terminal is to
	// press a key during one of its forms.
	personChance = 0.4
	// cutChance is how likely a terminal that replies is to cut them.
	cutChance = 0.5
)

// pairChance is how likely a case that may be paired with the one before
// it is.
const pairChance = 0.25

func (g *generator) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

// list is base, and with it more from generation since on.
func (g *generator) list(base []string, since Generation, more []string) []string {
	if g.gen < since {
		return base
	}
	return append(slices.Clone(base), more...)
}

func (g *generator) session1(forms int) Session {
	s := Session{Name: fmt.Sprintf("s%03d", g.session)}
	s.Cols, s.Rows = g.size()
	s.Prompt = fmt.Sprintf("stress session %s: ask me", s.Name)
	for k := 0; k < forms; k++ {
		c := g.form(fmt.Sprintf("toolu_stress_%s_%d", s.Name, k), k == forms-1)
		if k > 0 {
			c.Classes = append(c.Classes, "chained")
		}
		if s.Rows < 25 {
			c.Classes = append(c.Classes, "short")
		}
		if s.Cols < 60 {
			c.Classes = append(c.Classes, "narrow")
		}
		s.Cases = append(s.Cases, c)
	}
	g.pair(s.Cases)
	if g.gen >= Terminals {
		g.terminal(&s)
	}
	if g.gen >= Shapes {
		g.shape(s.Cases)
	}
	if g.gen >= Fullscreen && g.renderer.Float64() < fullscreenChance {
		s.fullscreen()
	}
	if g.gen >= Settings && g.theme.Float64() < themeChance {
		s.theme(claudetest.Themes[g.theme.IntN(len(claudetest.Themes))])
	}
	if g.gen >= Settings && g.editor.Float64() < vimChance {
		s.vim()
	}
	return s
}

// themeChance is how likely a session is to have a colour theme other
// than Claude's default; vimChance to have its vim mode on.
const (
	themeChance = 0.3
	vimChance   = 0.2
)

// vim turns Claude's vim mode on for s.
func (s *Session) vim() { s.Vim = true; s.classify("vim") }

// theme has Claude draw s in its colour theme name.
func (s *Session) theme(name string) { s.Theme = name; s.classify("theme") }

// fullscreen has Claude draw s with its fullscreen renderer.
func (s *Session) fullscreen() { s.Fullscreen = true; s.classify("fullscreen") }

// classify gives every case of s the class, once.
func (s *Session) classify(class string) {
	for k := range s.Cases {
		s.Cases[k].Classes = addClass(s.Cases[k].Classes, class)
	}
}

// AllVim turns Claude's vim mode on for every session of p, whatever the
// generator drew; AllTheme has Claude draw every one in its colour theme
// name, and AllFullscreen with its fullscreen renderer: to try one alone.
func (p *Plan) AllVim() { p.each((*Session).vim) }

// AllTheme: see [Plan.AllVim].
func (p *Plan) AllTheme(name string) { p.each(func(s *Session) { s.theme(name) }) }

// AllFullscreen: see [Plan.AllVim].
func (p *Plan) AllFullscreen() { p.each((*Session).fullscreen) }

// AllPointer has Claude draw every session on a terminal with its
// fullscreen renderer and the person's pointer move over it throughout
// (see Session.Pointer). Claude Code before 2.1.299 marks the option under
// the pointer, and claudewrap hands the form over there: a run with it is
// for screen.PointerVersion and later.
func (p *Plan) AllPointer() {
	p.each(func(s *Session) {
		if s.Terminal {
			s.fullscreen()
			s.Pointer = true
			s.classify("pointer")
		}
	})
}

func (p *Plan) each(f func(*Session)) {
	for i := range p.Sessions {
		f(&p.Sessions[i])
	}
}

// fullscreenChance is how likely a session is to have Claude draw with its
// fullscreen renderer.
const fullscreenChance = 0.3

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

// addClass is classes with class at its end, unless it holds it already.
func addClass(classes []string, class string) []string {
	if slices.Contains(classes, class) {
		return classes
	}
	return append(classes, class)
}

// markups are the ways markupQuestion marks up a question's text.
var markups = []string{"**%s**", "%s (see `README.md`)", "_%s_", "%s [docs](https://example.com)", "# %s", "%s\n\n- one\n- two"}

// markupQuestion is text marked up the m-th way; the text stays in it
// whole, so that it stays unique in its session.
func markupQuestion(text string, m int) string { return fmt.Sprintf(markups[m], text) }

// terminal puts a session on a terminal now and then, and resizes it
// while its forms are answered: three forms in four, 1 to 3 times each,
// within 0.6 s of the form's first key. The sizes keep at least 60x24: a
// page taller than a short terminal is handed to the person by design
// (headless, claudewrap makes the terminal taller), and the harness has no
// person.
func (g *generator) terminal(s *Session) {
	if g.term.Float64() >= terminalChance {
		return
	}
	s.Terminal = true
	s.Cols, s.Rows = g.termSize()
	for k := range s.Cases {
		c := &s.Cases[k]
		// Sized again: never narrow, short at 24 rows (Terminals left it out).
		c.Classes = slices.DeleteFunc(c.Classes, func(cl string) bool { return cl == "short" || cl == "narrow" })
		c.Classes = append(c.Classes, "terminal")
		if s.Rows < 25 && g.gen >= Replies {
			c.Classes = append(c.Classes, "short")
		}
		if g.term.Float64() < resizeChance {
			for range 1 + g.term.IntN(3) {
				cols, rows := g.termSize()
				c.Resizes = append(c.Resizes, Resize{Cols: cols, Rows: rows,
					After: time.Duration(g.term.IntN(600)) * time.Millisecond})
			}
			slices.SortFunc(c.Resizes, func(a, b Resize) int { return cmp.Compare(a.After, b.After) })
			c.Classes = append(c.Classes, "resized")
		}
		slices.Sort(c.Classes)
	}
	if g.gen < Replies {
		return
	}
	// Drawn last, so that the sizes and resizes stay Terminals'.
	s.Replies = []Term{Mute, Xterm, Kitty}[g.term.IntN(3)]
	if s.Replies == Kitty {
		for k := range s.Cases {
			s.Cases[k].Classes = append(s.Cases[k].Classes, "kitty-keyboard")
			slices.Sort(s.Cases[k].Classes)
		}
	}
	if g.gen < Person {
		return
	}
	// The person presses Down within 0.3 s of a form's first key: while
	// claudewrap answers it, as its last key goes, while Claude records
	// it or while the next form is decided, as it falls.
	if g.person.Float64() < personChance {
		c := &s.Cases[g.person.IntN(len(s.Cases))]
		c.Person = &Keypress{Keys: "\x1b[B", After: time.Duration(g.person.IntN(300)) * time.Millisecond}
		c.Classes = append(c.Classes, "person")
		if g.gen >= Keys { // drawn last, so that the rest stays Person's
			c.Person.Keys = personKeys[g.person.IntN(len(personKeys))]
			if c.Person.Keys == escKey {
				c.Classes = append(c.Classes, "person-esc")
			}
		}
		slices.Sort(c.Classes)
	}
	if g.gen < Pieces || s.Replies == Mute {
		return
	}
	if g.pieces.Float64() < cutChance {
		s.Cut = true
		for k := range s.Cases {
			s.Cases[k].Classes = append(s.Cases[k].Classes, "replies-cut")
			slices.Sort(s.Cases[k].Classes)
		}
	}
}

// escKey is the Esc key as a terminal sends it with no keyboard protocol.
const escKey = "\x1b"

// personKeys are the keys the person presses from generation Keys: Down,
// Up, Right, Left (none of which commits anything in Claude's menu, so
// that what Claude records is claudewrap's answer or nothing), and Esc,
// twice as likely, which cancels the form or leaves a text row.
var personKeys = []string{"\x1b[B", "\x1b[A", "\x1b[C", "\x1b[D", escKey, escKey}

// termSize is a terminal's size, 60x24 to 200x50, favouring the edges.
func (g *generator) termSize() (int, int) {
	cols := 60 + g.term.IntN(141)
	if g.term.Float64() < 0.3 {
		cols = []int{60, 80, 100, 120, 160, 200}[g.term.IntN(6)]
	}
	rows := 24 + g.term.IntN(27)
	if g.term.Float64() < 0.3 {
		rows = []int{24, 30, 40, 50}[g.term.IntN(4)]
	}
	return cols, rows
}

// pair marks cases to be asked in the same reply as the case before
// them, two at a time. A chat or a cancel is never paired: "Chat about
// this" and Esc end Claude's turn, and what Claude Code does with the
// other form then is not what the harness judges.
func (g *generator) pair(cs []Case) {
	plain := func(c Case) bool { return c.Chat == "" && !c.Cancel }
	for k := 1; k < len(cs); k++ {
		if cs[k-1].Together || !plain(cs[k-1]) || !plain(cs[k]) || g.pairs.Float64() >= pairChance {
			continue
		}
		cs[k].Together = true
		// Asked with the one before, not after its answer.
		cs[k].Classes = slices.DeleteFunc(cs[k].Classes, func(cl string) bool { return cl == "chained" })
		for _, i := range []int{k - 1, k} {
			cs[i].Classes = append(cs[i].Classes, "parallel")
			slices.Sort(cs[i].Classes)
		}
	}
}

// size favours the edges, where layouts change.
func (g *generator) size() (int, int) {
	cols := 40 + g.r.IntN(161)
	if g.chance(0.3) {
		cols = []int{40, 44, 50, 60, 80, 100, 120, 160, 200}[g.r.IntN(9)]
	}
	rows := 16 + g.r.IntN(35)
	if g.chance(0.3) {
		rows = []int{16, 18, 20, 24, 30, 40, 50}[g.r.IntN(7)]
	}
	return cols, rows
}

// form makes one case; cancel is allowed only as the last of a session,
// since Esc ends Claude's turn.
func (g *generator) form(id string, last bool) Case {
	c := Case{ID: id}
	nq := 1 + g.r.IntN(4)
	if g.chance(0.35) {
		nq = 1
	}
	previews := g.chance(0.2)
	for i := 0; i < nq; i++ {
		q := g.question(previews && g.chance(0.7))
		c.Questions = append(c.Questions, q)
	}
	switch {
	case last && g.chance(0.06):
		c.Cancel, c.ActionOn = true, g.r.IntN(nq)
		c.Classes = append(c.Classes, "cancel")
	case g.chance(0.07):
		c.Chat, c.ActionOn = g.chatText(), g.r.IntN(nq)
		c.Classes = append(c.Classes, "chat")
	}
	for _, q := range c.Questions {
		c.Answers = append(c.Answers, g.answer(q))
	}
	c.Classes = append(c.Classes, classes(c)...)
	slices.Sort(c.Classes)
	c.Classes = slices.Compact(c.Classes)
	return c
}

// classes names what a case exercises, for the report.
func classes(c Case) []string {
	var out []string
	if len(c.Questions) > 1 {
		out = append(out, "tabs")
	} else {
		out = append(out, "one-question")
	}
	for i, q := range c.Questions {
		a := c.Answers[i]
		switch {
		case q.MultiSelect:
			out = append(out, "multi")
		case q.HasPreview():
			out = append(out, "preview")
		default:
			out = append(out, "single")
		}
		if a.Type != "" && c.Chat == "" && !c.Cancel {
			out = append(out, "typed")
		}
		if a.Notes != "" && c.Chat == "" && !c.Cancel {
			out = append(out, "notes")
		}
		if (slices.Contains(scriptTyped, a.Type) || slices.Contains(scriptNotes, a.Notes)) && c.Chat == "" && !c.Cancel {
			out = append(out, "typed-script")
		}
		text := q.Question + q.Header
		for _, o := range q.Options {
			text += o.Label + o.Description
			if strings.Contains(o.Label, ", ") || strings.Contains(o.Label, `"`) {
				out = append(out, "comma-or-quote")
			}
			if slices.Contains(lookalikes, o.Label) {
				out = append(out, "lookalike")
			}
		}
		if len([]rune(q.Question)) > 70 {
			out = append(out, "long")
		}
		if strings.Contains(q.Question, "\n") {
			out = append(out, "multi-line")
		}
		if strings.ContainsFunc(text, func(r rune) bool { return r > 0x2e80 }) {
			out = append(out, "cjk-emoji")
		}
		if strings.ContainsFunc(text, sequencePart) {
			out = append(out, "emoji-sequence")
		}
		if slices.Contains(markHeaders, q.Header) {
			out = append(out, "mark-header")
		}
		if slices.Contains(spaceHeaders, q.Header) || slices.ContainsFunc(q.Options, func(o Option) bool {
			return slices.Contains(spaceLabels, o.Label)
		}) {
			out = append(out, "white-space")
		}
		if strings.ContainsFunc(text, func(r rune) bool {
			return r >= 0x0590 && r <= 0x0E7F || r >= 0xAC00 && r <= 0xD7AF || r >= 0xFF21 && r <= 0xFF3A
		}) { // Hebrew to Thai, Hangul, fullwidth capitals
			out = append(out, "script")
		}
		if strings.ContainsFunc(text, func(r rune) bool {
			return r == 0x200B || r == 0x200C || r == 0x200F || r == 0x00AD || r == 0x2060 || r == 0xFEFF || r == 0x00A0
		}) {
			out = append(out, "invisible")
		}
	}
	return out
}

// sequencePart tells the characters that join or change the one before
// them, or pair up (a flag's regional indicators).
func sequencePart(r rune) bool {
	return r == 0x200D || r == 0xFE0F || r == 0x20E3 || r == 0x0301 ||
		(r >= 0x1F3FB && r <= 0x1F3FF) || (r >= 0x1F1E6 && r <= 0x1F1FF)
}

var headers = []string{
	"Database", "Auth", "Layout", "Approach", "Naming", "Tests", "Deploy", "Cache", "Format",
	"API style", "Storage", "Queue", "Logging", "Runtime", "Scope", "Priority",
	"数据库", "架构", "🚀 Deploy", "テスト", "Next", "Submit", "Review", "Q1", "1. Yes",
}

var nouns = []string{
	"database", "queue", "cache", "test runner", "log format", "deployment target", "auth provider",
	"naming scheme", "API style", "storage backend", "build tool", "release cadence",
}

var longTails = []string{
	"given that the team is small, the budget is fixed and we must ship before the end of the quarter",
	"considering the constraints of the payments service, its latency budget and the on-call rota",
	"knowing that whatever we choose will be hard to change later and that the migration path matters",
}

func (g *generator) questionText() string {
	g.serial++
	n := g.serial
	noun := g.pick(nouns)
	n10 := 10
	if g.gen >= Scripts {
		n10 = 11
	}
	switch g.r.IntN(n10) {
	case 10:
		return fmt.Sprintf(g.pick([]string{"أي %s نستخدم للجزء %d؟", "באיזה %s נשתמש בחלק %d?", "भाग %[2]d के लिए कौन सा %[1]s?",
			"ส่วนที่ %[2]d ใช้ %[1]s ไหน?"}), noun, n)
	case 0:
		return fmt.Sprintf("我们应该为第%d项使用哪个%s？🚀", n, g.pick([]string{"数据库", "框架", "方案"}))
	case 1, 2:
		return fmt.Sprintf("Which %s should we adopt for item %d, %s?", noun, n, g.pick(longTails))
	case 3:
		return fmt.Sprintf("Review your answers about the %s (%d)?", noun, n)
	case 4:
		return fmt.Sprintf("1. Which %s? (%d)", noun, n)
	case 5:
		return fmt.Sprintf("Which %s should we use for part %d?\nWe need to decide today.", noun, n)
	default:
		return fmt.Sprintf("Which %s should we use for part %d?", noun, n)
	}
}

var plainLabels = []string{
	"PostgreSQL", "SQLite", "MongoDB", "Redis", "Kafka", "RabbitMQ", "None", "Yes", "No", "Later",
	"Blue-green", "Canary", "Rolling", "camelCase", "snake_case", "kebab-case", "JSON", "YAML", "TOML",
	"Go", "Rust", "Python", "Weekly", "Monthly", "Auth", "Export", "Search", "API", "Dark", "Light",
}

var longLabels = []string{
	"Blue-green deployments on two identical Kubernetes clusters behind a global load balancer",
	"A single shared PostgreSQL instance with logical replication to a read replica",
	"Keep the current setup and revisit the question after the next quarterly planning",
	"Write everything to an append-only log and derive the views from it nightly",
}

var cjkLabels = []string{"数据库 分离 🚀", "单体 📦", "Mixed 混合 ✅", "テスト駆動", "🙂 Happy path", "关系型", "文档型 📄"}

// sequenceLabels hold what terminals and width tables may measure apart:
// emoji joined by ZWJ, a variation selector 16 on a character drawn narrow
// by default, a flag, a skin tone, a keycap and a combining accent.
var sequenceLabels = []string{
	"👨\u200d💻 Dev laptop", "⚠️ Risky path", "🇯🇵 Tokyo region", "👍🏽 Fine by me", "❤️ Favourite",
	"1️⃣ First", "Cafe\u0301 au lait", "✔️ Done", "🧑\u200d🤝\u200d🧑 Pairing",
}

// lookalikes imitate the rows and marks of Claude's own form.
var lookalikes = []string{
	"1. Yes", "2. No", "Submit answers", "Submit", "Next", "Cancel", "[ ] maybe", "[✔] done", "❯ x",
	"Type something", "Type something.", "Chat about this", "→ arrow", "● dot", "☐ box", "☒ ticked",
	"Review your answers", "Enter to select", "↓ 4. more", "(no option selected)",
}

var commaLabels = []string{
	"Yes, and always", "No, never", "Maybe, later, perhaps", `Say "hi"`, `"Quoted"`, "A, B", "Worker, pool",
}

var descriptions = []string{
	"", "", "Relational, robust", "Embedded, simple", "Document store", "The default choice",
	"2. Not an option, just a description", "Fast to start with, slower to change later; most teams pick it when unsure",
	"数据库说明 🚀", "❯ not a pointer", "[ ] not a box", "Enter to select · not a footer",
}

// sequenceDescriptions and sequenceHeaders are drawn with descriptions
// and headers when the generator draws emoji sequences.
var (
	sequenceDescriptions = []string{"⚠️ Read this first", "For the 👩\u200d🚀 on call"}
	sequenceHeaders      = []string{"⚠️ Risk"}
)

// markHeaders hold the marks of Claude's tab row and header chip: a tab
// title starting with a chip, an arrow at either end (generation Marks).
var markHeaders = []string{"✔ Done", "☐ Todo", "☒ Closed", "Next →", "← Back"}

// spaceHeaders and spaceLabels hold white space at an end or two spaces
// inside, and headers ", " or a quote: 2.1.266 and later draw such a header
// as a JSON string, and show a label trimmed, its spaces made one
// (generation Spaces).
var (
	spaceHeaders = []string{" Space ", "Two  words", `Say "hi"`, "A, B", "Tail "}
	spaceLabels  = []string{"  Leading", "Trailing  ", "Two  spaces", " Both ", "A  B,  C"}
)

// scriptLabels, scriptHeaders and scriptDescriptions hold other scripts and
// invisible characters (generation Scripts). 2.1.266 and later draw a soft
// hyphen, a zero-width space, a word joiner or U+FEFF as U+FFFD and leave a
// direction mark out; 2.1.321 and older measure a Devanagari vowel sign as
// part of its letter.
var (
	scriptLabels = []string{
		"ที่นี่ ที่นั่น", "العربية", "עברית", "نیم\u200cفاصله", "한국어 선택", "ＡＢＣ", "zero\u200bwidth",
		"soft\u00adhyphen", "word\u2060joiner", "BOM\ufeff here", "\u200fRTL mark", "no\u00a0break", "हिन्दी में", "नमस्ते",
	}
	scriptHeaders      = []string{"ไทย", "한국어", "हिन्दी", "עברית", "عربي", "Zero\u200bW", "soft\u00adhy"}
	scriptDescriptions = []string{"مرحبا بالعالم", "שלום עולם", "ภาษาไทย อ่านง่าย", "a zero\u200bwidth space inside", "हिन्दी विवरण"}
)

func (g *generator) label(used map[string]bool) string {
	seq := g.gen >= Sequences
	for {
		var l string
		n := 20 // the generator before emoji sequences drew no sequenceLabels
		if seq {
			n = 21
		}
		if g.gen >= Spaces {
			n = 22 // p == 21: spaceLabels
		}
		if g.gen >= Scripts {
			n = 24 // p == 22, 23: scriptLabels
		}
		switch p := g.r.IntN(n); {
		case p < 9:
			l = g.pick(plainLabels)
		case p < 11:
			l = g.pick(longLabels)
		case p < 13:
			l = g.pick(cjkLabels)
		case seq && p < 14:
			l = g.pick(sequenceLabels)
		case seq && p < 18, !seq && p < 17:
			l = g.pick(lookalikes)
		case p == 21:
			l = g.pick(spaceLabels)
		case p >= 22:
			l = g.pick(scriptLabels)
		default:
			l = g.pick(commaLabels)
		}
		if !used[l] {
			used[l] = true
			return l
		}
	}
}

var previews = []string{
	"+------+--------+\n| nav  | main   |\n|      |        |\n+------+--------+",
	"+---------------+\n| nav           |\n+---------------+\n| main          |",
	"func main() {\n\tfmt.Println(\"hello\")\n}",
	"just content",
	"SELECT id, name\n  FROM users\n WHERE active;",
	"┌──────┐\n│ box  │\n└──────┘",
	"1. Yes\n2. No\n❯ 3. Not a menu",
	"数据库 🚀\n第二行",
	"a very long line of preview text that will not fit in the preview box of a narrow terminal and has to wrap or be cut",
}

func (g *generator) preview() string {
	if g.chance(0.15) {
		var b strings.Builder
		for i := 0; i < 10+g.r.IntN(30); i++ {
			fmt.Fprintf(&b, "line %d of a long preview\n", i+1)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	return g.pick(previews)
}

func (g *generator) header() string {
	for {
		h := g.pick(g.list(g.list(g.list(g.list(headers, Sequences, sequenceHeaders), Marks, markHeaders), Spaces, spaceHeaders),
			Scripts, scriptHeaders))
		if len(utf16.Encode([]rune(h))) <= 12 {
			return h
		}
	}
}

func (g *generator) question(preview bool) Question {
	q := Question{Question: g.questionText(), Header: g.header(), MultiSelect: g.chance(0.35)}
	n := 2 + g.r.IntN(3)
	used := map[string]bool{}
	for i := 0; i < n; i++ {
		o := Option{Label: g.label(used), Description: g.pick(g.list(g.list(descriptions, Sequences, sequenceDescriptions),
			Scripts, scriptDescriptions))}
		if preview && (i == 0 || g.chance(0.85)) {
			o.Preview = g.preview()
		}
		q.Options = append(q.Options, o)
	}
	return q
}

func (g *generator) answer(q Question) Answer {
	labels := make([]string, len(q.Options))
	for i, o := range q.Options {
		labels[i] = o.Label
	}
	switch {
	case q.MultiSelect:
		g.r.Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
		return Answer{Select: labels[:1+g.r.IntN(len(labels))]}
	case !q.HasPreview() && g.chance(0.2):
		return Answer{Type: g.pick(g.list(typed, Typed, scriptTyped))}
	}
	a := Answer{Select: []string{labels[g.r.IntN(len(labels))]}}
	if q.HasPreview() && g.chance(0.5) {
		a.Notes = g.pick(g.list(notes, Typed, scriptNotes))
	}
	return a
}

var typed = []string{
	"We use SQLite for now", "snake_case, like the rest of the repo", "Neither; ask again next week",
	`Use "both" where it matters`, "先用 SQLite 🚀", "1. Yes", "Submit answers",
}

var notes = []string{"keep it collapsible", "smaller, please", "and dark mode, too", "见设计稿 🚀", `"quoted" note`}

// scriptTyped and scriptNotes are typed text in other scripts (generation
// Typed), each something the screen can show: no virama, nukta or Thai
// vowel above, which get no cell, and no invisible character.
var (
	scriptTyped = []string{"किताब पढो", "कौन सा? यह वाला", "ทำงาน", "العربية أولا", "עברית קודם", "한국어로 해주세요", "ＳＱＬｉｔｅ"}
	scriptNotes = []string{"किताब पढो", "ทำงาน", "العربية", "한국어로"}
)

func (g *generator) chatText() string {
	return fmt.Sprintf("chat %d-%d: we should talk about this first", g.session, g.serial)
}
