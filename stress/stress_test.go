package stress

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/session"
)

func TestGenerateIsReproducible(t *testing.T) {
	a, b := Generate(7, 60), Generate(7, 60)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two plans")
	}
	if a.Forms() < 60 {
		t.Errorf("%d forms, want at least 60", a.Forms())
	}
	// A shorter plan is the start of a longer one.
	short := Generate(7, 10)
	if !reflect.DeepEqual(short.Sessions[0], a.Sessions[0]) {
		t.Error("the first session differs between counts")
	}
	if reflect.DeepEqual(Generate(8, 60), a) {
		t.Error("two seeds gave the same plan")
	}
}

// TestGeneratedFormsAreValid: every form passes Claude Code's input checks
// (as the fake API applies them), question texts are unique in a session,
// and the generated rules load and answer every question as intended.
// TestGenerations: each generation gives a seed the forms it gave when it
// was the newest (e2e TestTallPage replays seeds of Plain; random forms
// runs 32 to 36 were made with Sequences), and draws what it added.
func TestGenerations(t *testing.T) {
	count := func(p Plan, class string) int {
		n := 0
		for _, s := range p.Sessions {
			for _, c := range s.Cases {
				if slices.Contains(c.Classes, class) {
					n++
				}
			}
		}
		return n
	}
	if n := count(GenerateWith(1, 400, Plain), "emoji-sequence"); n != 0 {
		t.Errorf("%d forms with emoji sequences in generation Plain, want none", n)
	}
	if n := count(GenerateWith(1, 400, Sequences), "mark-header"); n != 0 {
		t.Errorf("%d forms with a mark header in generation Sequences, want none", n)
	}
	if n := count(GenerateWith(1, 400, Marks), "white-space"); n != 0 {
		t.Errorf("%d forms with white space in generation Marks, want none", n)
	}
	for _, class := range []string{"script", "invisible"} {
		if n := count(GenerateWith(1, 400, Spaces), class); n != 0 {
			t.Errorf("%d forms of class %s in generation Spaces, want none", n, class)
		}
	}
	for _, s := range append(slices.Clone(scriptTyped), scriptNotes...) {
		if !screen.Typable(s) {
			t.Errorf("%q is typed, but the screen cannot show it as typed (screen.Typable): every such form would be refused", s)
		}
	}
	if n := count(GenerateWith(1, 400, Scripts), "typed-script"); n != 0 {
		t.Errorf("%d forms with text typed in other scripts in generation Scripts, want none", n)
	}
	for _, class := range []string{"terminal", "resized", "kitty-keyboard"} {
		if n := count(GenerateWith(1, 400, Typed), class); n != 0 {
			t.Errorf("%d forms of class %s in generation Typed, want none", n, class)
		}
	}
	if n := count(GenerateWith(1, 400, Terminals), "kitty-keyboard"); n != 0 {
		t.Errorf("%d forms of class kitty-keyboard in generation Terminals, want none", n)
	}
	if n := count(GenerateWith(1, 400, Replies), "person"); n != 0 {
		t.Errorf("%d forms of class person in generation Replies, want none", n)
	}
	// Person draws the person's keys apart: without them, a seed's plan is
	// Replies'; only a form on a terminal gets one.
	replies, person := GenerateWith(1, 400, Replies), GenerateWith(1, 400, Person)
	for i := range person.Sessions {
		s := person.Sessions[i]
		for k := range s.Cases {
			c := &s.Cases[k]
			if c.Person != nil {
				if !s.Terminal || c.Person.Keys != "\x1b[B" || c.Person.After < 0 || c.Person.After >= 300*time.Millisecond {
					t.Errorf("%s: the person's key %+v (on a terminal: %t)", c.ID, *c.Person, s.Terminal)
				}
				c.Person = nil
				c.Classes = slices.DeleteFunc(slices.Clone(c.Classes), func(cl string) bool { return cl == "person" })
			}
		}
		if !reflect.DeepEqual(s, replies.Sessions[i]) {
			t.Errorf("%s: the session, without the person's key, differs from generation Replies'", s.Name)
		}
	}
	// Pieces draws its cut replies apart: without them, a seed's plan is
	// Person's; only a terminal that replies cuts them.
	pieces, person := GenerateWith(1, 400, Pieces), GenerateWith(1, 400, Person) // the loop above took the keys out
	for i := range pieces.Sessions {
		s := pieces.Sessions[i]
		if s.Cut {
			if !s.Terminal || s.Replies == Mute {
				t.Errorf("%s: cut replies on a terminal (%t) that replies %q", s.Name, s.Terminal, s.Replies)
			}
			s.Cut = false
			s.Cases = slices.Clone(s.Cases)
			for k := range s.Cases {
				s.Cases[k].Classes = slices.DeleteFunc(slices.Clone(s.Cases[k].Classes), func(cl string) bool { return cl == "replies-cut" })
			}
		}
		if !reflect.DeepEqual(s, person.Sessions[i]) {
			t.Errorf("%s: the session, with its replies whole, differs from generation Person's", s.Name)
		}
	}
	if n := count(GenerateWith(1, 400, Person), "replies-cut"); n != 0 {
		t.Errorf("%d forms of class replies-cut in generation Person, want none", n)
	}
	// Keys draws the person's key last: with each key Down again, a seed's
	// plan is Pieces'; every key is one of personKeys, all of them drawn.
	keys, pieces := GenerateWith(1, 400, Keys), GenerateWith(1, 400, Pieces)
	drawn := map[string]int{}
	for i := range keys.Sessions {
		s := keys.Sessions[i]
		s.Cases = slices.Clone(s.Cases)
		for k := range s.Cases {
			c := &s.Cases[k]
			if c.Person == nil {
				continue
			}
			drawn[c.Person.Keys]++
			if !slices.Contains(personKeys, c.Person.Keys) || slices.Contains(c.Classes, "person-esc") != (c.Person.Keys == escKey) {
				t.Errorf("%s: the person's key %q, classes %v", c.ID, c.Person.Keys, c.Classes)
			}
			p := *c.Person
			p.Keys = "\x1b[B"
			c.Person = &p
			c.Classes = slices.DeleteFunc(slices.Clone(c.Classes), func(cl string) bool { return cl == "person-esc" })
		}
		if !reflect.DeepEqual(s, pieces.Sessions[i]) {
			t.Errorf("%s: the session, with Down for the person's key, differs from generation Pieces'", s.Name)
		}
	}
	if len(drawn) != 5 {
		t.Errorf("the person's keys drawn in 400 forms: %v, want all of %q", drawn, personKeys)
	}
	if n := count(GenerateWith(1, 400, Pieces), "person-esc"); n != 0 {
		t.Errorf("%d forms of class person-esc in generation Pieces, want none", n)
	}
	// Shapes draws its families and marked-up texts apart: with the labels
	// and texts put back by their places, a seed's plan is Keys'.
	shapes, keys := GenerateWith(1, 400, Shapes), GenerateWith(1, 400, Keys)
	families := map[string]int{}
	for i := range shapes.Sessions {
		s, was := shapes.Sessions[i], keys.Sessions[i]
		s.Cases = slices.Clone(s.Cases)
		for k := range s.Cases {
			c, w := &s.Cases[k], was.Cases[k]
			c.Questions = slices.Clone(c.Questions)
			c.Answers = slices.Clone(c.Answers)
			for j := range c.Questions {
				q := &c.Questions[j]
				q.Options = slices.Clone(q.Options)
				if q.Question != w.Questions[j].Question && !slices.ContainsFunc(markups, func(m string) bool { return fmt.Sprintf(m, w.Questions[j].Question) == q.Question }) {
					t.Errorf("%s q%d: %q is not %q marked up", c.ID, j+1, q.Question, w.Questions[j].Question)
				}
				q.Question = w.Questions[j].Question
				back, moved := map[string]string{}, false
				for o := range q.Options {
					l := q.Options[o].Label
					back[l] = w.Questions[j].Options[o].Label
					moved = moved || l != back[l]
					q.Options[o].Label = back[l]
				}
				if moved {
					a := &c.Answers[j]
					a.Select = slices.Clone(a.Select)
					for x, l := range a.Select {
						a.Select[x] = back[l]
					}
				}
			}
			for _, cl := range c.Classes {
				if f, ok := strings.CutPrefix(cl, "shape-"); ok {
					families[f]++
				}
			}
			c.Classes = slices.DeleteFunc(slices.Clone(c.Classes), func(cl string) bool {
				return strings.HasPrefix(cl, "shape-") || cl == "markup-question"
			})
		}
		if !reflect.DeepEqual(s, was) {
			t.Errorf("%s: the session, with its labels and texts put back, differs from generation Keys'", s.Name)
		}
	}
	if len(families) != len(shapeFamilies) {
		t.Errorf("families drawn in 400 forms: %v, want all of them", families)
	}
	// Fullscreen draws its renderer apart: without the flag and its
	// class, a seed's plan is Shapes'; AllFullscreen sets every session.
	full := GenerateWith(1, 400, Fullscreen)
	drawnFull := 0
	for i := range full.Sessions {
		s, was := full.Sessions[i], shapes.Sessions[i]
		if s.Fullscreen {
			drawnFull++
		}
		s.Fullscreen = false
		s.Cases = slices.Clone(s.Cases)
		for k := range s.Cases {
			c := &s.Cases[k]
			if slices.Contains(c.Classes, "fullscreen") != full.Sessions[i].Fullscreen {
				t.Errorf("%s: classes %q, fullscreen %v", c.ID, c.Classes, full.Sessions[i].Fullscreen)
			}
			c.Classes = slices.DeleteFunc(slices.Clone(c.Classes), func(cl string) bool { return cl == "fullscreen" })
		}
		if !reflect.DeepEqual(s, was) {
			t.Errorf("%s: the session, drawn classic, differs from generation Shapes'", s.Name)
		}
	}
	if drawnFull == 0 || drawnFull == len(full.Sessions) {
		t.Errorf("%d of %d sessions drawn fullscreen, want some", drawnFull, len(full.Sessions))
	}
	// Settings draws its themes and vim modes apart: without them, a
	// seed's plan is Fullscreen's; AllTheme and AllVim set every session's.
	themed := GenerateWith(1, 400, Settings)
	drawnThemes, vims := map[string]int{}, 0
	for i := range themed.Sessions {
		s, was := themed.Sessions[i], full.Sessions[i]
		drawnThemes[s.Theme]++
		if s.Vim {
			vims++
		}
		s.Cases = slices.Clone(s.Cases)
		for k := range s.Cases {
			c := &s.Cases[k]
			if slices.Contains(c.Classes, "theme") != (s.Theme != "") || slices.Contains(c.Classes, "vim") != s.Vim {
				t.Errorf("%s: classes %q, theme %q, vim %v", c.ID, c.Classes, s.Theme, s.Vim)
			}
			c.Classes = slices.DeleteFunc(slices.Clone(c.Classes), func(cl string) bool { return cl == "theme" || cl == "vim" })
		}
		s.Theme, s.Vim = "", false
		if !reflect.DeepEqual(s, was) {
			t.Errorf("%s: the session, in the default theme and out of vim mode, differs from generation Fullscreen's", s.Name)
		}
	}
	if len(drawnThemes) != len(claudetest.Themes)+1 || vims == 0 || vims == len(themed.Sessions) {
		t.Errorf("themes drawn in 400 forms: %v, want every one and the default; %d of %d in vim mode", drawnThemes, vims, len(themed.Sessions))
	}
	themed.AllTheme("light-ansi")
	themed.AllVim()
	for _, s := range themed.Sessions {
		if s.Theme != "light-ansi" || !s.Vim || !slices.Contains(s.Cases[0].Classes, "theme") || !slices.Contains(s.Cases[0].Classes, "vim") {
			t.Errorf("%s: theme %q, vim %v after AllTheme and AllVim", s.Name, s.Theme, s.Vim)
		}
	}
	full.AllFullscreen()
	for _, s := range full.Sessions {
		if !s.Fullscreen || !slices.Contains(s.Cases[0].Classes, "fullscreen") {
			t.Errorf("%s: not fullscreen after AllFullscreen", s.Name)
		}
	}
	pointed := GenerateWith(20261123, 400, Settings)
	pointed.AllPointer()
	terminals := 0
	for _, s := range pointed.Sessions {
		if s.Pointer != s.Terminal || s.Terminal && (!s.Fullscreen || !slices.Contains(s.Cases[0].Classes, "pointer")) {
			t.Errorf("%s: on a terminal %v, pointer %v, fullscreen %v after AllPointer", s.Name, s.Terminal, s.Pointer, s.Fullscreen)
		}
		if s.Terminal {
			terminals++
		}
	}
	if terminals == 0 {
		t.Errorf("no session of 400 forms on a terminal: AllPointer tried nothing")
	}
	for name, f := range shapeFamilies {
		if len(f) < 4 || len(slices.Compact(slices.Sorted(slices.Values(f)))) != len(f) || !slices.Contains(shapeNames, name) {
			t.Errorf("family %s: %q: want four or more labels, each once, and its name in shapeNames", name, f)
		}
	}
	// Terminals draws its terminals apart: a seed's forms and answers, and
	// its headless sessions whole, are Typed's.
	typed, terms := GenerateWith(1, 400, Typed), GenerateWith(1, 400, Terminals)
	if len(typed.Sessions) != len(terms.Sessions) {
		t.Fatalf("%d sessions in generation Typed, %d in Terminals", len(typed.Sessions), len(terms.Sessions))
	}
	for i, s := range terms.Sessions {
		was := typed.Sessions[i]
		if !s.Terminal {
			if !reflect.DeepEqual(s, was) {
				t.Errorf("%s: a headless session differs from generation Typed's", s.Name)
			}
			continue
		}
		for k, c := range s.Cases {
			if !reflect.DeepEqual(c.Questions, was.Cases[k].Questions) || !reflect.DeepEqual(c.Answers, was.Cases[k].Answers) ||
				c.Chat != was.Cases[k].Chat || c.Cancel != was.Cases[k].Cancel || c.Together != was.Cases[k].Together {
				t.Errorf("%s: the form differs from generation Typed's", c.ID)
			}
		}
	}
	for _, class := range []string{"emoji-sequence", "mark-header", "white-space", "script", "invisible", "typed-script", "terminal", "resized", "kitty-keyboard", "person", "replies-cut", "person-esc", "markup-question"} {
		if n := count(Generate(1, 400), class); n == 0 {
			t.Errorf("no form of class %s in 400", class)
		}
	}
	// sha256 of the plans' JSON: Plain's as the generator of fd35f45 gave
	// them, Sequences' as that of 7bc3752, Marks' as that of d34d26c,
	// Spaces' as that of 9a0149b, Scripts' as that of b8961b1 (random forms
	// run 43), Typed's as that of 6d63f84 (run 44, and the CI sample then),
	// Terminals' as that of a524bee (run 45), Replies' as runs 46 and 48's,
	// Person's as run 50's, Pieces' as run 54's, Keys' as runs 59's and 69's.
	for _, tc := range []struct {
		gen  Generation
		seed uint64
		want string
	}{
		{Plain, 6070619087335327480, "8b67fdbef9a3a63506beca5d092c65cb9e5a26affff311aaf711b4bda2ded993"},
		{Plain, 11851546580518840268, "c87c7581f1001c5d1280db6db7b22c33725aed01b9a8406cb4b6e16fa2586f8d"},
		{Plain, 12353519114840221176, "854a58f911a3b6beb30d7846bba505c017fe0853fe5282e2b18ce86ce8c0699e"},
		{Sequences, 1764070800, "df68a27e840be48fc6001de3b15a450fc5dab2a550f8151555e7fe711874e56c"},
		{Sequences, 1764077000, "be4410c7facfa3c3e0ad98a7e4561a4774af823108f91617b162e575b76fe9b9"},
		{Marks, 1764080100, "1d9d0807ec8fe90635d6c69dfb4282fd4a00730318b391c16a3e036d16d36010"},
		{Marks, 20261123, "f4564dfb95f4389b6a1ee377a87a80d9d45f40d9abf01b6c1eadd9911e08a1eb"},
		{Spaces, 1764082200, "ff9fff1451528586239d5cbdafbd73e93b4fae0c77887ff4c449c28f79544bff"},
		{Spaces, 20261123, "bf4ceb83f72acbe074e8863dfe9d9e93172981da07414ac9b5966ffd8838d80e"},
		{Scripts, 1764101300, "7ca201da2652b34dff2551d0c55161799190bcc0dfc7ef639be27590bc9654d8"},
		{Typed, 1764108900, "71a32f3ad3717516dbf9ac52e1bebcdf006bfe1bcf782a05474f677722937815"},
		{Typed, 20261123, "2d02e9b7fe912ba1ff48f604cc10baad277b3a2648de558df5732df2b22f4561"},
		{Terminals, 1764119000, "1bd477b77a06b1d04c6b1da16f4d066fef5ad3b1f91d005e0416d95528b282c4"},
		{Replies, 1764123500, "c2371a56a7327d9e621feb4e6626888ba8d639a4aa2aa91dbdf94ff46a47e91b"},
		{Replies, 1764130000, "efafbef9dfd1a4e167c34d1e76cdf456b441e4bac01472ea1a4133b31c10f3eb"},
		{Person, 1764130000, "c707c565c2be884bd9ac8bbbe67baf87c3de765b137466bd1270df57967d6981"},
		{Pieces, 1764150000, "c6bb043e8208e95912817dae6ebe28fffa61f711d8e8a576fffbb0f59dbc7dc8"},
		{Keys, 1764200000, "296a156a3c2e6b40c3820909098be69c030a09bfb8418e1c22314fa7fd9c6e32"},
		{Keys, 1764321961, "d295686e36ddf1da8d17106ebc33c7f404ba42f139a4886e14cc9ad96a72845d"},
	} {
		b, err := json.Marshal(GenerateWith(tc.seed, 150, tc.gen))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != tc.want {
			t.Errorf("generation %d, seed %d: other forms than it gave: %s", tc.gen, tc.seed, got)
		}
	}
}

func TestGeneratedFormsAreValid(t *testing.T) {
	classes := map[string]int{}
	for _, s := range Generate(1, 400).Sessions {
		if s.Cols < 40 || s.Cols > 200 || s.Rows < 16 || s.Rows > 50 {
			t.Errorf("%s: size %dx%d out of range", s.Name, s.Cols, s.Rows)
		}
		// On a terminal no size is shorter than 24 rows: a page taller than
		// the terminal is handed to the person, and the harness has none.
		if s.Terminal && (s.Cols < 60 || s.Rows < 24) {
			t.Errorf("%s: a terminal of %dx%d", s.Name, s.Cols, s.Rows)
		}
		for _, c := range s.Cases {
			if len(c.Resizes) > 0 && !s.Terminal {
				t.Errorf("%s: resized headless", c.ID)
			}
			for i, r := range c.Resizes {
				if r.Cols < 60 || r.Cols > 200 || r.Rows < 24 || r.Rows > 50 || r.After < 0 || r.After >= 600*time.Millisecond ||
					i > 0 && r.After < c.Resizes[i-1].After {
					t.Errorf("%s: resizes %v", c.ID, c.Resizes)
				}
			}
		}
		_, f := loadSession(t, s)
		set := &rules.Set{Files: []*rules.File{f}}
		seen := map[string]bool{}
		for k, c := range s.Cases {
			if c.Cancel && k != len(s.Cases)-1 {
				t.Errorf("%s: cancel before the last form", c.ID)
			}
			for _, cl := range c.Classes {
				classes[cl]++
			}
			for i, q := range c.Questions {
				if seen[q.Question] {
					t.Errorf("%s: question %q twice in the session", c.ID, q.Question)
				}
				seen[q.Question] = true
				d := set.Decide(hookQuestion(q))
				if !d.Matched() {
					t.Errorf("%s q%d: unmatched: %s", c.ID, i+1, d.Unmatched)
					continue
				}
				a := c.Answers[i]
				switch {
				case c.Cancel && i == c.ActionOn, c.Chat != "" && i == c.ActionOn:
				case a.Type != "":
					if d.Text != a.Type {
						t.Errorf("%s q%d: decided %+v, want type %q", c.ID, i+1, d.Decision, a.Type)
					}
				default:
					if strings.Join(d.Labels, "|") != strings.Join(a.Select, "|") || d.Notes != a.Notes {
						t.Errorf("%s q%d: decided %+v, want %+v", c.ID, i+1, d.Decision, a)
					}
				}
			}
		}
	}
	for _, want := range []string{"multi", "preview", "notes", "typed", "chat", "cancel", "tabs", "lookalike",
		"comma-or-quote", "cjk-emoji", "long", "short", "narrow", "chained", "parallel", "terminal", "resized"} {
		if classes[want] == 0 {
			t.Errorf("no case of class %s in 400 forms", want)
		}
	}
}

// TestPairedForms: cases asked together come as tool_use blocks of one
// reply, two at most, never a chat or a cancel, and what follows them
// waits for the second's tool_result; the judge learns both were asked
// from that one reply.
func TestPairedForms(t *testing.T) {
	pairs := 0
	for _, s := range Generate(1, 400).Sessions {
		sc, err := s.Scenario()
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range s.Cases {
			if !c.Together {
				continue
			}
			pairs++
			if k == 0 {
				t.Fatalf("%s: the first case asked together with none before it", c.ID)
			}
			prev := s.Cases[k-1]
			switch {
			case prev.Together:
				t.Errorf("%s: three forms in one reply", c.ID)
			case c.Chat != "" || c.Cancel || prev.Chat != "" || prev.Cancel:
				t.Errorf("%s: a chat or a cancel paired", c.ID)
			case !slices.Contains(c.Classes, "parallel") || !slices.Contains(prev.Classes, "parallel") || slices.Contains(c.Classes, "chained"):
				t.Errorf("%s: classes %v and %v", c.ID, prev.Classes, c.Classes)
			}
			var asking []fakeapi.Rule
			for _, r := range sc.Rules {
				if r.When.ToolResultFor == prev.ID {
					t.Errorf("%s: a rule waits for the first of a pair alone: %+v", c.ID, r)
				}
				for _, b := range r.Reply {
					if b.ID == prev.ID || b.ID == c.ID {
						asking = append(asking, r)
					}
				}
			}
			if len(asking) != 2 || asking[0].Name != asking[1].Name || len(asking[0].Reply) != 2 ||
				asking[0].Reply[0].ID != prev.ID || asking[0].Reply[1].ID != c.ID {
				t.Errorf("%s: not asked in one reply, first then second: %+v", c.ID, asking)
				continue
			}
			reply := "rule 3 (" + asking[0].Name + ")"
			if !askedBy(reply, prev.ID) || !askedBy(reply, c.ID) || askedBy(reply, c.ID+"0") || askedBy("rule 4 ("+c.ID+" chat)", c.ID) {
				t.Errorf("askedBy misreads %q", reply)
			}
			if !slices.ContainsFunc(sc.Rules, func(r fakeapi.Rule) bool { return r.When.ToolResultFor == c.ID }) {
				t.Errorf("%s: nothing follows the pair", c.ID)
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no forms asked together in 400")
	}
}

func hookQuestion(q Question) answer.Question {
	h := answer.Question{Question: q.Question, Header: q.Header, MultiSelect: q.MultiSelect}
	for _, o := range q.Options {
		h.Options = append(h.Options, answer.Option{Label: o.Label, Description: o.Description, Preview: o.Preview})
	}
	return h
}

func TestJudge(t *testing.T) {
	single := Question{Question: "Which?", Options: []Option{{Label: "A"}, {Label: "B", Preview: "\tbee"}}}
	multi := Question{Question: "Which ones?", MultiSelect: true, Options: []Option{{Label: "Yes, and always"}, {Label: `Say "hi"`}, {Label: "C"}}}
	submit := Case{Questions: []Question{single, multi}, Answers: []Answer{{Select: []string{"B"}, Notes: "n1"}, {Select: []string{`Say "hi"`, "Yes, and always"}}}}
	ok := func(content string) *fakeapi.ToolResult { return &fakeapi.ToolResult{Content: content} }
	errRes := func(content string) *fakeapi.ToolResult { return &fakeapi.ToolResult{Content: content, IsError: true} }
	emoji := Case{Questions: []Question{
		{Question: "Which emoji?", Options: []Option{{Label: "⚠️ Risky"}, {Label: "Safe"}}},
		{Question: "Which ones?", MultiSelect: true, Options: []Option{{Label: "A, b"}, {Label: "❤️ Heart"}}},
	}, Answers: []Answer{{Select: []string{"⚠️ Risky"}}, {Select: []string{"❤️ Heart", "A, b"}}}}
	spaced := Case{Questions: []Question{
		{Question: "Which spacing?", Options: []Option{{Label: "  Leading"}, {Label: "Two  spaces"}}},
		{Question: "Which ones?", MultiSelect: true, Options: []Option{{Label: " A"}, {Label: "C  D"}}},
	}, Answers: []Answer{{Select: []string{"Two  spaces"}}, {Select: []string{"C  D", " A"}}}}
	twins := Question{Question: "Which twin?", Options: []Option{{Label: "⚠ Risky"}, {Label: "⚠️ Risky"}}}
	invisible := Case{Questions: []Question{
		{Question: "Which mark?", Options: []Option{{Label: "BOM\ufeff here"}, {Label: "no\u00a0break"}}},
		{Question: "Which ones?", MultiSelect: true, Options: []Option{{Label: "soft\u00adhyphen"}, {Label: "zero\u200bwidth"}, {Label: "한국어"}}},
	}, Answers: []Answer{{Select: []string{"BOM\ufeff here"}}, {Select: []string{"soft\u00adhyphen", "zero\u200bwidth"}}}}
	rtl := Question{Question: "Which?", Options: []Option{{Label: "\u200fRTL mark"}, {Label: "RTL mark"}}}
	joined := Question{Question: "Which ones?", MultiSelect: true, Options: []Option{{Label: "❤️ A"}, {Label: "B"}, {Label: "❤ A, B"}}}
	for _, tc := range []struct {
		name  string
		c     Case
		res   *fakeapi.ToolResult
		later []string
		want  Outcome
	}{
		{"quoted labels, preview with tabs expanded, notes", submit,
			ok(`The user answered: "Which?"="B" selected preview:` + "\n    bee notes: n1, " + `"Which ones?"=""Say \"hi\"", "Yes, and always"". Read the answers.`), nil, Right},
		{"plain labels (older versions)", submit,
			ok(`Your questions have been answered: "Which?"="B" notes: n1, "Which ones?"="Say "hi", Yes, and always". You can now continue.`), nil, Right},
		{"another option", submit, ok(`"Which?"="A" notes: n1, "Which ones?"="Say "hi", Yes, and always".`), nil, Wrong},
		{"ticks in another order", submit, ok(`"Which?"="B" notes: n1, "Which ones?"="Yes, and always, Say "hi"".`), nil, Wrong},
		{"notes lost", submit, ok(`"Which?"="B", "Which ones?"="Say "hi", Yes, and always".`), nil, Wrong},
		{"notes only", submit, ok(`"Which?"=(no option selected) notes: n1, "Which ones?"="Say "hi", Yes, and always".`), nil, Wrong},
		{"a question missing", submit, ok(`"Which?"="B" notes: n1.`), nil, Wrong},
		{"cancelled by claudewrap", submit, errRes("The user doesn't want to proceed with this tool use."), nil, Failed},
		{"nothing recorded", submit, nil, nil, Failed},
		{"cancel intended", Case{Cancel: true}, errRes("The user doesn't want to proceed with this tool use."), nil, Right},
		{"cancel intended, answered", Case{Cancel: true}, ok(`"Which?"="A"`), nil, Wrong},
		{"chat with its message", Case{Chat: "let us talk"}, errRes("The user wants to clarify these questions"), []string{"x", "let us talk"}, Right},
		{"chat without its message", Case{Chat: "let us talk"}, errRes("The user wants to clarify these questions"), []string{"x"}, Failed},
		{"chat intended, answered", Case{Chat: "let us talk"}, ok(`"Which?"="A"`), nil, Wrong},
		// Claude records a label without its variation selectors 16.
		{"a label's VS16 dropped", emoji, ok(`"Which emoji?"="⚠ Risky", "Which ones?"="❤ Heart, "A, b"".`), nil, Right},
		{"a label as offered", emoji, ok(`"Which emoji?"="⚠️ Risky", "Which ones?"="❤️ Heart, A, b".`), nil, Right},
		{"VS16 dropped where it names another label", Case{Questions: []Question{twins}, Answers: []Answer{{Select: []string{"⚠️ Risky"}}}},
			ok(`"Which twin?"="⚠ Risky".`), nil, Wrong},
		{"VS16 dropped where it names another pick", Case{Questions: []Question{joined}, Answers: []Answer{{Select: []string{"❤️ A", "B"}}}},
			ok(`"Which ones?"="❤ A, B".`), nil, Wrong},
		{"the same pick as offered", Case{Questions: []Question{joined}, Answers: []Answer{{Select: []string{"❤️ A", "B"}}}},
			ok(`"Which ones?"="❤️ A, B".`), nil, Right},
		{"labels joined that read as another label", Case{Questions: []Question{joined}, Answers: []Answer{{Select: []string{"❤ A, B"}}}},
			ok(`"Which ones?"="❤ A, B".`), nil, Wrong},
		// ... and with its white space trimmed and made one.
		{"a label's white space made one", spaced, ok(`"Which spacing?"="Two spaces", "Which ones?"="C D, A".`), nil, Right},
		{"a label's white space as offered", spaced, ok(`"Which spacing?"="Two  spaces", "Which ones?"="C  D,  A".`), nil, Right},
		{"white space made one where it names another label", Case{Questions: []Question{{Question: "Which?",
			Options: []Option{{Label: "C D"}, {Label: "C  D"}}}}, Answers: []Answer{{Select: []string{"C  D"}}}},
			ok(`"Which?"="C D".`), nil, Wrong},
		{"labels apart only in white space", Case{Questions: []Question{{Question: "Which?",
			Options: []Option{{Label: "AA"}, {Label: "AA\uFEFF"}}}}, Answers: []Answer{{Select: []string{"AA"}}}},
			ok(`"Which?"="AA".`), nil, Wrong},
		// ... and a soft hyphen, zero-width space or U+FEFF as U+FFFD, a
		// direction mark left out (2.1.266 on; scripts.yaml).
		{"invisible characters as U+FFFD", invisible, ok("\"Which mark?\"=\"BOM\ufffd here\", \"Which ones?\"=\"soft\ufffdhyphen, zero\ufffdwidth\"."), nil, Right},
		{"invisible characters as offered", invisible, ok("\"Which mark?\"=\"BOM\ufeff here\", \"Which ones?\"=\"soft\u00adhyphen, zero\u200bwidth\"."), nil, Right},
		{"a direction mark left out", Case{Questions: []Question{{Question: "Which?", Options: []Option{{Label: "\u200fRTL mark"}, {Label: "LTR"}}}}, Answers: []Answer{{Select: []string{"\u200fRTL mark"}}}},
			ok(`"Which?"="RTL mark".`), nil, Right},
		{"a direction mark left out where it names another label", Case{Questions: []Question{rtl}, Answers: []Answer{{Select: []string{"RTL mark"}}}},
			ok(`"Which?"="RTL mark".`), nil, Wrong},
		{"another label with U+FFFD", invisible, ok("\"Which mark?\"=\"BOM\ufffd here\", \"Which ones?\"=\"soft\ufffdhyphen, 한국어\"."), nil, Wrong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, why := judge(tc.c, tc.res, tc.later); got != tc.want {
				t.Errorf("judge = %s (%s), want %s", got, why, tc.want)
			}
		})
	}
}

// cancelledRecord and chattedRecord stand, in TestHandedOver, for a form
// not submitted with something recorded (Failed, with a tool_result): a
// cancel, and the chat the rules chose without its message.
const (
	cancelledRecord Outcome = "cancelled (test)"
	chattedRecord   Outcome = "chatted (test)"
)

// TestEndedForThem: once the run ended for the person, who typed, a form
// asked together with one left to them is theirs too when nothing of it
// was recorded and it was asked when they typed; a form asked after they
// typed with nothing recorded is not judged; a form with a record, or
// handed over for another reason, stays as judged; and nothing changes in
// a run that did not end for them.
func TestEndedForThem(t *testing.T) {
	cases := []Case{{ID: "a"}, {ID: "b", Together: true}, {ID: "c"}, {ID: "d", Together: true}, {ID: "e"}, {ID: "f", Together: true},
		{ID: "g"}, {ID: "h"}, {ID: "i"}}
	verdicts := func() []Verdict {
		return []Verdict{{Case: "a", Outcome: Failed}, {Case: "b", Outcome: Theirs}, {Case: "c", Outcome: Theirs},
			{Case: "d", Outcome: Failed, ToolResult: "cancelled"}, {Case: "e", Outcome: Failed}, {Case: "f", Outcome: Theirs},
			{Case: "g", Outcome: Failed}, {Case: "h", Outcome: Failed, ToolResult: "cancelled"}, {Case: "i", Outcome: Failed}}
	}
	end := terminalEnd{atKey: map[string]bool{"a": true, "b": true, "c": true, "d": true, "e": true, "f": true},
		handed:   map[string]string{"b": "the person typed", "c": "the person typed", "e": "navigation failed", "f": "the person typed", "i": "navigation failed"},
		afterKey: map[string]bool{"b": true, "c": true, "e": false, "f": true}}
	outcomes := func(vs []Verdict) string {
		var got []string
		for _, v := range vs {
			got = append(got, v.Case+":"+string(v.Outcome))
		}
		return strings.Join(got, " ")
	}
	vs := verdicts()
	endedForThem(cases, vs, end)
	if want := "a:theirs b:theirs c:theirs d:failed e:failed f:theirs g:not-asked h:failed i:failed"; outcomes(vs) != want {
		t.Errorf("%s, want %s", outcomes(vs), want)
	}
	vs = verdicts()
	end.afterKey = map[string]bool{"e": false}
	endedForThem(cases, vs, end)
	if want := outcomes(verdicts()); outcomes(vs) != want {
		t.Errorf("a run that did not end for the person: %s, want %s", outcomes(vs), want)
	}
}

// TestHandedOver: a form handed to the person is not answered by
// claudewrap, whatever Claude recorded after the harness ended the run; a
// wrong answer stays wrong, and a form never asked stays so. Once the
// person at the terminal has typed (Case.Person), a form handed over as
// they typed is theirs: right if Claude recorded claudewrap's answer, left
// to them if nothing; a wrong answer stays wrong, and another reason for
// the hand-over, or a record that is not the answer (a cancel), a failure.
func TestHandedOver(t *testing.T) {
	for _, tc := range []struct {
		was, want Outcome
		reason    string
		typed     bool
		detail    string
	}{
		{Right, Failed, "the person typed", false, "handed to the person (the person typed); claudewrap exit 143"},
		{Failed, Failed, "the person typed", false, "handed to the person (the person typed); no tool_result reached the API"},
		{Wrong, Wrong, "the person typed", false, "handed to the person (the person typed); answers were recorded, the rules said cancel"},
		{NotAsked, NotAsked, "the person typed", false, "an earlier form ended the session"},
		{Right, Right, "the person typed", true, "handed to the person, who typed, after claudewrap's answer went"},
		{Failed, Theirs, "the person typed", true, "handed to the person, who typed; no tool_result reached the API"},
		{Wrong, Wrong, "the person typed", true, "handed to the person, who typed; answers were recorded, the rules said cancel"},
		{NotAsked, NotAsked, "the person typed", true, "an earlier form ended the session"},
		{Right, Failed, "navigation failed", true, "handed to the person (navigation failed); claudewrap exit 143"},
		{cancelledRecord, Failed, "the person typed", true, "handed to the person, who typed; the form was not submitted: it was cancelled"},
		{chattedRecord, Theirs, "the person typed", true, "handed to the person, who typed; " + chatNotSent},
		{Failed, Theirs, movedAway + " (its sessions view): the form waits there for you", true, "handed to the person, who typed; no tool_result reached the API"},
		{Failed, Failed, movedAway + " (its sessions view): the form waits there for you", false,
			"handed to the person (" + movedAway + " (its sessions view): the form waits there for you); no tool_result reached the API"},
	} {
		v := Verdict{Outcome: tc.was}
		switch tc.was {
		case cancelledRecord: // a Failed verdict with something recorded
			v.Outcome, v.ToolResult, v.Detail = Failed, "cancelled", "the form was not submitted: it was cancelled"
		case chattedRecord:
			v.Outcome, v.ToolResult, v.Detail = Failed, "clarify", chatNotSent
		case Failed:
			v.Detail = "no tool_result reached the API"
		case Wrong:
			v.Detail = "answers were recorded, the rules said cancel"
		case NotAsked:
			v.Detail = "an earlier form ended the session"
		}
		v.handedOver(tc.reason, "claudewrap exit 143", tc.typed)
		if v.Outcome != tc.want || v.Detail != tc.detail {
			t.Errorf("%s, %s, typed %t: %s %q, want %s %q", tc.was, tc.reason, tc.typed, v.Outcome, v.Detail, tc.want, tc.detail)
		}
	}
}

// TestPersonEsc: after the person's Esc, a form claudewrap handed over as
// they typed whose record is Claude's cancel is theirs only if claudewrap
// reported it, and did not end the form itself (its own Esc, or a chat);
// a report with anything else recorded (answers, a chat, nothing) is a
// failure, and a wrong answer stays wrong; a form given up on, or a
// partner's other error, stays failed; a form claudewrap never saw asked
// met the Esc's stop of the turn; without the Esc, nothing changes.
func TestPersonEsc(t *testing.T) {
	const cancel = "The user doesn't want to proceed with this tool use."
	const chat = "The user wants to clarify these questions."
	const gaveUp = "claudewrap gave up at navigate: the screen never showed the focus on row 2"
	for _, tc := range []struct {
		name              string
		esc               bool
		handed            string // the hand-over's reason, "" for none
		reported, own     bool
		atKey, questioned bool
		was               Outcome
		isError           bool
		record            string
		want              Outcome
		undone            bool // reported as undone as Claude recorded it
	}{
		{"cancelled, reported", true, personTyped, true, false, true, true, Failed, true, cancel, Theirs, false},
		{"cancelled, not reported", true, personTyped, false, false, true, true, Failed, true, cancel, Failed, false},
		{"cancelled, reported, claudewrap's own Esc first", true, personTyped, true, true, true, true, Failed, true, cancel, Failed, false},
		{"cancelled, reported, claudewrap had given up", true, gaveUp, true, false, true, true, Failed, true, cancel, Failed, false},
		{"reported, a chat recorded", true, personTyped, true, true, true, true, Failed, true, chat, Failed, false},
		{"reported, answers recorded", true, personTyped, true, false, true, true, Right, false, `"Q"="A"`, Failed, false},
		{"reported, nothing recorded", true, personTyped, true, false, true, true, Theirs, false, "", Failed, false},
		{"reported, a wrong answer", true, personTyped, true, false, true, true, Wrong, false, `"Q"="B"`, Wrong, false},
		{"right before the Esc", true, personTyped, false, false, true, true, Right, false, `"Q"="A"`, Right, false},
		{"a partner's other error", true, personTyped, false, false, true, true, Failed, true, "interrupted", Failed, false},
		{"never seen asked, an error recorded", true, "", false, false, false, false, Failed, true, "interrupted", NotAsked, false},
		{"never seen asked, nothing recorded", true, "", false, false, false, false, Failed, false, "", NotAsked, false},
		{"asked, claudewrap failed it", true, "", false, false, false, true, Failed, true, cancel, Failed, false},
		{"asked just after the Esc, cancelled, reported", true, escAsked, true, false, false, true, Failed, true, cancel, Theirs, false},
		{"asked just after the Esc, cancelled, not reported", true, escAsked, false, false, false, true, Failed, true, cancel, Failed, false},
		{"asked just after the Esc, reported, nothing recorded", true, escAsked, true, false, false, true, Theirs, false, "", Failed, false},
		{"answered, undone as recorded, reported", true, "", true, false, true, true, Failed, true, cancel, Theirs, true},
		{"answered, reported cancelled for another reason", true, "", true, false, true, true, Failed, true, cancel, Failed, false},
		{"answered, undone as recorded, not reported", true, "", false, false, true, true, Failed, true, cancel, Failed, false},
		{"answered, claudewrap's own Esc, reported", true, "", true, true, true, true, Failed, true, cancel, Failed, true},
		{"no Esc: a cancel stays failed", false, personTyped, false, false, true, true, Failed, true, cancel, Failed, false},
		{"no Esc, never seen asked", false, "", false, false, false, false, Failed, false, "", Failed, false},
	} {
		v := Verdict{Case: "toolu_a", Outcome: tc.was, IsError: tc.isError, ToolResult: tc.record}
		end := terminalEnd{esc: tc.esc, handed: map[string]string{}, atKey: map[string]bool{"toolu_a": tc.atKey},
			afterKey: map[string]bool{"toolu_a": tc.handed != ""}, questioned: map[string]bool{"toolu_a": tc.questioned},
			personCancelled: map[string]bool{"toolu_a": tc.reported}, own: map[string]bool{"toolu_a": tc.own},
			undone: map[string]bool{"toolu_a": tc.undone}}
		if tc.handed != "" {
			end.handed["toolu_a"] = tc.handed
		}
		v.personEsc(end)
		if v.Outcome != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, v.Outcome, v.Detail, tc.want)
		}
	}
}

func TestSummary(t *testing.T) {
	vs := []Verdict{
		{Version: "1", Classes: []string{"multi"}, Outcome: Right, Resized: 2},
		{Version: "1", Classes: []string{"multi", "preview"}, Outcome: Failed},
		{Version: "2", Classes: []string{"preview"}, Outcome: Wrong, Resized: 1},
		{Version: "2", Outcome: NotAsked},
	}
	s := Summarize(vs)
	if s.Total != (Tally{Asked: 3, Right: 1, Wrong: 1, Failed: 1, Resized: 2, Resizes: 3}) || s.NotAsked != 1 {
		t.Errorf("total %+v, not asked %d", s.Total, s.NotAsked)
	}
	var b strings.Builder
	s.Markdown(&b)
	for _, want := range []string{"| 1 | 2 | 1 | 0 | 1 | 50.0 % |", "| preview | 0/1 | 0/1 (**1 wrong**) |",
		"open (between its first key and its end, as the events were read; one counted for each form open then): 3 on 2 forms (1 2 on 1, 2 1 on 1)."} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "left to the person") {
		t.Errorf("a column for forms left to the person, with none:\n%s", b.String())
	}
	// Forms left to the person, who typed, get a column and do not count
	// against the share answered.
	s = Summarize(append(vs, Verdict{Version: "1", Classes: []string{"person"}, Outcome: Theirs}))
	if s.Total.Theirs != 1 || s.ByVersion["1"].Answered() != 50 {
		t.Errorf("total %+v, version 1 answered %.1f %%", s.Total, s.ByVersion["1"].Answered())
	}
	b.Reset()
	s.Markdown(&b)
	for _, want := range []string{"| not answered | left to the person, who typed | answered |", "| 1 | 3 | 1 | 0 | 1 | 1 | 50.0 % |",
		"| all | 4 | 1 | 1 | 1 | 1 | 33.3 % |", "| person | 0/1 (1 theirs) | – |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}

// TestJSONString: labels quoted as JavaScript's JSON.stringify does, with
// U+2028 and U+2029 as they are (Go's encoder escapes them).
func TestJSONString(t *testing.T) {
	for s, want := range map[string]string{
		"l\u2028p\u2029": "\"l\u2028p\u2029\"", `a\u2028`: `"a\\u2028"`, "\\\u2028": "\"\\\\\u2028\"",
		`Say "hi"`: `"Say \"hi\""`, "<&>": `"<&>"`, "\u2028\u2029": "\"\u2028\u2029\"", "\\\u2028\\\u2028": "\"\\\\\u2028\\\\\u2028\"",
	} {
		if got := jsonString(s); got != want {
			t.Errorf("jsonString(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestReasons: the hand-over reasons the judge knows are claudewrap's own.
func TestReasons(t *testing.T) {
	if escAsked != session.EscAskedReason || escRecorded != session.EscRecordedReason || !strings.HasPrefix(session.AwayReason, movedAway) {
		t.Errorf("the judge's reasons %q, %q and %q are not claudewrap's %q, %q and %q", escAsked, escRecorded, movedAway,
			session.EscAskedReason, session.EscRecordedReason, session.AwayReason)
	}
}

// loadSession builds s's scenario and loads its rules file, failing the
// test when either cannot be made.
func loadSession(t *testing.T, s Session) (*fakeapi.Scenario, *rules.File) {
	t.Helper()
	sc, err := s.Scenario()
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	y, err := s.Rules()
	if err != nil {
		t.Fatal(err)
	}
	f, err := rules.Parse(s.Name+".yaml", y)
	if err != nil {
		t.Fatalf("%s: generated rules do not load: %v\n%s", s.Name, err, y)
	}
	return sc, f
}
