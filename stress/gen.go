package stress

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// Generate makes sessions until they hold at least forms cases. The same
// seed and count give the same plan; a prefix of a longer plan is the
// shorter one.
func Generate(seed uint64, forms int) Plan { return GenerateWith(seed, forms, Latest) }

// Generation is what the generator draws. Each one adds to the one before
// and changes what a seed gives, so a plan is repeated with the generation
// it was drawn with.
type Generation int

const (
	// Plain is the first generator: no emoji sequences.
	Plain Generation = iota
	// Sequences draws emoji sequences in labels, descriptions and headers.
	Sequences
	// Marks draws headers holding the tab row's own marks too ("✔ Done",
	// "Next →").
	Marks
	// Spaces draws headers and labels with white space at their ends or
	// two spaces inside, and headers holding ", " or a quote, too.
	Spaces
	// Scripts draws labels, descriptions, headers and questions in other
	// scripts (Thai, Arabic, Hebrew, Persian, Hangul, Devanagari,
	// fullwidth Latin) and with invisible characters (a zero-width space,
	// a soft hyphen, a word joiner, U+FEFF, a direction mark, a no-break
	// space), too.
	Scripts
	// Typed types answers and notes in other scripts too: Devanagari with
	// spacing marks, which 2.1.330 and later give a cell and must show as
	// typed, Thai, Arabic, Hebrew, Hangul, fullwidth Latin.
	Typed
	// Terminals runs some sessions on a pseudo-terminal, as a person's
	// would be, instead of headless, and resizes it while forms are
	// answered (Session.Terminal, Case.Resizes). A seed's forms, answers
	// and headless sessions are Typed's; a session on a terminal gets
	// another size, and its cases the classes "terminal" and "resized".
	Terminals
	// Replies has the terminal answer Claude's queries as nothing, an
	// xterm or a kitty would (Session.Replies; class "kitty-keyboard"), and
	// gives a session on a 24-row terminal the class "short". The sizes and
	// resizes are Terminals'.
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

// fullscreenChance is how likely a session is to have Claude draw with its
// fullscreen renderer.
const fullscreenChance = 0.3

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
