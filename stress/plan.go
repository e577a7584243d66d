package stress

import (
	"slices"
	"time"
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
	// polled every 20 ms), so what a resize meets on the screen varies from
	// one try to the next; only in a session run on a terminal, and never
	// with --answer-via hook, which presses no key.
	Resizes []Resize `json:",omitempty"`
	// Dialog, when set, makes the case a dialog instead of a form
	// (GenerateDialogs): a permission prompt, plan approval, the trust
	// dialog, the bypass confirmation or an MCP server's form. Questions
	// and Answers are empty.
	Dialog *Dialog `json:",omitempty"`
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
	// Mode, when set, is the permission mode Claude starts in
	// (--permission-mode): "default" for permission prompts, "plan" for
	// plan approval (GenerateDialogs).
	Mode string `json:",omitempty"`
	// Files are written before the session starts, path to content, the
	// paths holding the project's or the folder beside it's placeholder.
	Files map[string]string `json:",omitempty"`
}

// Plan is everything one seed generates.
type Plan struct {
	Seed     uint64
	Sessions []Session
}

// Forms returns the number of forms in the plan.
func (p Plan) Forms() int {
	n := 0
	for _, s := range p.Sessions {
		for _, c := range s.Cases {
			if c.Dialog == nil {
				n++
			}
		}
	}
	return n
}

// Dialogs returns the number of dialog cases in the plan.
func (p Plan) Dialogs() int {
	n := 0
	for _, s := range p.Sessions {
		for _, c := range s.Cases {
			if c.Dialog != nil {
				n++
			}
		}
	}
	return n
}

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

// addClass is classes with class at its end, unless it holds it already.
func addClass(classes []string, class string) []string {
	if slices.Contains(classes, class) {
		return classes
	}
	return append(classes, class)
}
