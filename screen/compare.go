package screen

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/vt"
)

// Disagreements compares the question page f with the question the hook
// says is asked, returning one line per difference, or nil when the screen
// agrees: header, question text, multi-select, layout, and every visible
// option's label at its place. What is off the screen (a Cut form's top, a
// scrolled list's hidden rows) is not compared; of a cut question, the
// visible end must end the asked one. Text is compared as Squash leaves it
// (white space ignored, as the screen wraps it, sometimes inside a word; and
// what has no cell of its own or is drawn as U+FFFD), and a title the tab
// row truncated with "…"
// matches its prefix.
func (f *Form) Disagreements(q answer.Question) []string {
	if f.Review != nil {
		return []string{"the review page is showing, not a question"}
	}
	return append(f.textDisagreements(q), f.layoutDisagreements(q, false)...)
}

// Resembles reports whether f may be question q's page with its question's
// text garbled: the header and every visible option agree, whatever the
// question shows, and a label may be the start of the asked one. A frame cut
// to a new width before Claude redraws can cut a wrapped question's first
// line or a label's end and keep the rest, so f does not Ask q and yet is
// q's page. (A next form with the same header and options resembles q too;
// Claude's record of q tells them apart.)
func (f *Form) Resembles(q answer.Question) bool {
	return f.Review == nil && ((f.Header == "" && f.Cut) || sameHeader(f.Header, q.Header)) && len(f.layoutDisagreements(q, true)) == 0
}

// layoutDisagreements is Disagreements without the header and question;
// with cut, a label on the screen may be the start of the asked one.
func (f *Form) layoutDisagreements(q answer.Question, cut bool) []string {
	var d []string
	if f.MultiSelect != q.MultiSelect {
		d = append(d, fmt.Sprintf("multi-select %t on screen, %t asked", f.MultiSelect, q.MultiSelect))
	}
	if (f.Preview != nil) != q.PreviewLayout() {
		d = append(d, fmt.Sprintf("preview layout %t on screen, %t asked", f.Preview != nil, q.PreviewLayout()))
	}
	n := len(q.Options)
	for _, o := range f.Options {
		if o.Number > n {
			d = append(d, fmt.Sprintf("option %d on screen, %d asked", o.Number, n))
			continue
		}
		if !sameText(o.Label, q.Options[o.Number-1].Label) && !(cut && startsText(o.Label, q.Options[o.Number-1].Label)) {
			d = append(d, fmt.Sprintf("option %d is %q on screen, %q asked", o.Number, o.Label, q.Options[o.Number-1].Label))
		}
	}
	switch {
	case f.Preview != nil:
		if last := len(f.Options); last == 0 || f.Options[last-1].Number != n || !f.Cut && len(f.Options) != n {
			d = append(d, fmt.Sprintf("%d options on screen, %d asked", len(f.Options), n))
		}
	case f.Chat != nil && f.Chat.Number != n+2:
		d = append(d, fmt.Sprintf("%q is row %d on screen, %d asked", chatLabel, f.Chat.Number, n+2))
	}
	return d
}

// Asks reports whether f shows the header and text of question q (as far
// as they are on the screen), whatever its options show.
func (f *Form) Asks(q answer.Question) bool {
	return f.Review == nil && len(f.textDisagreements(q)) == 0
}

func (f *Form) textDisagreements(q answer.Question) []string {
	var d []string
	if (f.Header != "" || !f.Cut) && !sameHeader(f.Header, q.Header) {
		d = append(d, fmt.Sprintf("header %q on screen, %q asked", f.Header, q.Header))
	}
	if f.Cut {
		if !strings.HasSuffix(Squash(q.Question), Squash(f.Question)) {
			d = append(d, fmt.Sprintf("question ending %q on screen, %q asked", f.Question, q.Question))
		}
	} else if !sameText(f.Question, q.Question) {
		d = append(d, fmt.Sprintf("question %q on screen, %q asked", f.Question, q.Question))
	}
	return d
}

// TabDisagreements compares the tab row with the headers of every question
// asked, in order. A form whose tab row is off the screen has nothing to
// compare.
func (f *Form) TabDisagreements(headers []string) []string {
	// One single-select question has no tab row; one multi-select question
	// has its own tab and Submit.
	if len(f.Tabs) == 0 && (len(headers) == 1 || f.Cut) {
		return nil
	}
	var d []string
	var titles []string
	for _, t := range f.Tabs {
		if !t.Submit {
			titles = append(titles, t.Title)
		}
	}
	if len(titles) != len(headers) {
		return []string{fmt.Sprintf("%d question tabs on screen, %d questions asked", len(titles), len(headers))}
	}
	for i := range headers {
		if !sameHeader(titles[i], headers[i]) {
			d = append(d, fmt.Sprintf("tab %d is %q on screen, %q asked", i+1, titles[i], headers[i]))
		}
	}
	return d
}

// Shows reports whether f is the page of question i of the form qs, and
// of no other: the page agrees with it, the tab row (when shown) has it
// active, and a page whose tab row and question are off the screen does not
// agree with another question of the form just as well.
func (f *Form) Shows(qs []answer.Question, i int) bool {
	if f == nil || f.Review != nil || len(f.Disagreements(qs[i])) > 0 {
		return false
	}
	headers := make([]string, len(qs))
	for j, q := range qs {
		headers[j] = q.Header
	}
	if len(f.TabDisagreements(headers)) > 0 {
		return false
	}
	if len(f.Tabs) > 0 {
		return f.ActiveTab() == i
	}
	for j, q := range qs {
		if j != i && len(f.Disagreements(q)) == 0 {
			return false
		}
	}
	return true
}

// Squash removes what the screen does not show of s, so that text on the
// screen and text asked compare equal: white space (text the screen wraps
// may be broken inside a word), and what gets no cell of its own as Claude
// Code lays it out ([vt.Clusters]): zero-width characters
// (joiners, variation selectors, combining marks), skin tones, and an emoji
// joined by a zero-width joiner to a wide character before it; and what
// Claude draws as U+FFFD or not at all (invisible: a soft hyphen, a zero-
// width space, a word joiner, a direction mark, controls: answer.Invisible).
// U+FFFD goes too: Claude Code draws it for those, and in a header chip in
// place of a variation selector ("❤️" shows as "❤�"). Spacing marks go too
// (a Devanagari vowel sign): Claude Code 2.1.321 and older give them no
// column. Options are still told apart by their numbers and places, and
// questions by Shows.
func Squash(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var seqs vt.Clusters
	for _, r := range s {
		if unicode.IsSpace(r) {
			seqs = vt.Clusters{}
			continue
		}
		if w := vt.RuneWidth(r); shown(r, w, seqs.Joins(r, w)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shown reports whether Squash keeps r, w columns wide, joined to the
// sequence before it or not.
func shown(r rune, w int, joined bool) bool {
	return !joined && w != 0 && !vt.IsEmojiModifier(r) && r != utf8.RuneError && !answer.Invisible(r) && !vt.IsSpacingMark(r)
}

// Typable reports whether typed text s can show on the screen as typed,
// as SquashTyped compares it: it holds nothing else Squash leaves out, and
// something SquashTyped keeps (text of spacing marks alone, or white space,
// would confirm a doubled copy of itself, or none). It is the one
// definition of text claudewrap can type into Claude (an answer in "Type
// something", notes, a message); [CheckText] says why text is not.
func Typable(s string) bool {
	t := SquashTyped(s)
	return t != "" && Squash(s) == t
}

// CheckText reports why typed text s is not [Typable], or nil: what it holds
// that the screen cannot show as typed, so that typing it could never be
// confirmed and nothing would commit it.
func CheckText(s string) error {
	if Typable(s) {
		return nil
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%q is not valid UTF-8: the screen cannot show it as typed", s)
	}
	var seqs vt.Clusters
	for _, r := range s {
		if unicode.IsSpace(r) {
			seqs = vt.Clusters{}
			continue
		}
		if w := vt.RuneWidth(r); !shown(r, w, seqs.Joins(r, w)) && !vt.IsSpacingMark(r) {
			return fmt.Errorf("%q holds %s (%U), which the screen cannot show as typed: typing it could not be confirmed", s, unshownKind(r), r)
		}
	}
	return fmt.Errorf("%q holds nothing the screen shows as typed but white space and spacing marks: typing it could not be confirmed", s)
}

// unshownKind names a character Squash leaves out, for people. (An emoji
// joined by a zero-width joiner comes after the joiner, which is named.)
func unshownKind(r rune) string {
	switch {
	case vt.IsEmojiModifier(r):
		return "a skin tone"
	case r == vt.ZeroWidthJoiner:
		return "a zero-width joiner"
	case r == utf8.RuneError:
		return "the replacement character"
	case unicode.IsControl(r):
		return "a control character"
	case unicode.Is(unicode.Variation_Selector, r):
		return "a variation selector"
	case unicode.In(r, unicode.Mn, unicode.Me):
		return "a combining mark"
	}
	return "an invisible character"
}

// CheckAnswer reports why d cannot be given to question q on Claude's
// screen, or nil: it fails [answer.Decision.Check], or text it would type
// (an answer, notes, a message) fails [CheckText]. Every answer is held to
// it before a form is taken for it.
func CheckAnswer(q answer.Question, d answer.Decision) error {
	if err := d.Check(q); err != nil {
		return err
	}
	for _, t := range []string{d.Text, d.Notes} {
		if t == "" {
			continue // none to type (a message is optional)
		}
		if err := CheckText(t); err != nil {
			return err
		}
	}
	return nil
}

// SquashTyped is the loosest comparison of typed text, the one every
// version's screen can be held to: without white space, and without
// spacing marks, which 2.1.321 and older give no cell (see [New]).
// Everything else must show as typed. [Typable] uses it.
func SquashTyped(s string) string { return SquashTypedOn(s, true) }

// SquashTypedOn is typed text as a screen shows it whose spacing marks join
// their letter or not ([vt.Measure.MarksJoin]): without white space and, where
// they join, without spacing marks. Where they get a cell (2.1.330 and
// later) they must show as typed, so "कि" typed does not confirm against a
// screen showing "की".
func SquashTypedOn(s string, marksJoin bool) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || marksJoin && vt.IsSpacingMark(r) {
			return -1
		}
		return r
	}, s)
}

// sameHeader is sameText for a header or tab title, which 2.1.266 and later
// draw as a JSON string when it holds a double quote, white space at an end
// or two spaces inside (`" Space "`, `"Say \"hi\""`, `"Two  words"`).
func sameHeader(screen, asked string) bool {
	return sameText(screen, asked) || sameText(screen, answer.QuoteJSON(asked))
}

// SameWrapped reports whether text read off a review page (its question or
// answer, each row that reached the right edge ended by "\n") is the text
// asked, as Squash leaves both, where the rest of a word asked may be
// missing at the end of such a row. Claude Code measures some text
// otherwise when it lays a row out than the terminal draws it (an emoji
// sequence: joined by ZWJ, a keycap, VS16, a skin tone; a word with
// Devanagari or Thai marks; a tab: "odd" text), and what then did not fit
// at the row's end is lost, on a row holding odd text (a word lost whole
// must hold it):
//   - "…" in its place (2.1.266 and later): the rest of the word it began
//     in ("more, …" then "Dev laptop" on the next row for "more, 👨‍💻 Dev
//     laptop"; "Python, नम…" ending the answer for "Python, नमस्ते");
//   - nothing in its place (silent: 2.1.227 and older; Review.Silent): the
//     rest of a word, up to silentLoss characters as Squash leaves them
//     ("more," then "Dev laptop"; "Python, नम"; "tab\the" for
//     "tab\there"): no more than a wrap leaves at a row's end, and not a
//     whole label of a multi-select left out, unless a short one.
//
// Nothing else may be missing, and nowhere else. What "…" hid is not seen:
// a review page cut so cannot tell "नमस्ते" from another odd word that
// begins alike; the question pages, and Claude's record, do.
func SameWrapped(shown, asked string, silent bool) bool {
	a, odd, ends := squashMeasured(asked)
	rows := strings.Split(shown, "\n")
	// at holds the places in a that the rows read so far may end at.
	at := map[int]bool{0: true}
	for k, row := range rows {
		r := []rune(Squash(row))
		cut := len(r) > 0 && r[len(r)-1] == '…'
		next := map[int]bool{}
		for i := range at {
			if hasRunes(a, i, r) {
				next[i+len(r)] = true
			}
			if k == len(rows)-1 || cut == silent {
				continue // a row short of the edge; or "…" where none is drawn, or none where it is
			}
			w := r
			if cut {
				w = r[:len(r)-1]
			}
			j := i + len(w)
			if j >= len(a) || !hasRunes(a, i, w) {
				continue
			}
			end := j // the rest of the word from j ends at end
			for !ends[end] {
				end++
			}
			if !cut && end-j >= silentLoss {
				continue
			}
			// Odd text on the row for a word begun on it; in the word lost,
			// for a word lost whole (a label of a multi-select left out).
			from := i
			if j == 0 || ends[j-1] {
				from = j
			}
			if slices.Contains(odd[from:end+1], true) {
				next[end+1] = true
			}
		}
		if at = next; len(at) == 0 {
			return false
		}
	}
	return at[len(a)]
}

// silentLoss bounds what may be lost where nothing is drawn in its place:
// "👨‍💻" is 1 as Squash leaves it, the "स्ते" of "नमस्ते" 2.
const silentLoss = 3

// hasRunes reports whether a holds r from i.
func hasRunes(a []rune, i int, r []rune) bool {
	return len(a)-i >= len(r) && slices.Equal(a[i:i+len(r)], r)
}

// squashMeasured is Squash(s) with, for each character kept, whether what
// Squash left out around it makes Claude Code measure it otherwise than a
// terminal draws it (odd: an emoji sequence's rest or a Devanagari or Thai
// mark after it in its word, a tab before it; a flag's two letters both
// stay, and are not), and whether it ends its word.
func squashMeasured(s string) (out []rune, odd, ends []bool) {
	var seqs vt.Clusters
	word := false // a character of this word was kept
	tab := false  // a tab before this word (drawn up to 8 columns wide)
	for _, r := range s {
		if unicode.IsSpace(r) {
			if word {
				ends[len(ends)-1] = true
			}
			seqs, word, tab = vt.Clusters{}, false, tab || r == '\t'
			continue
		}
		w := vt.RuneWidth(r)
		joined := seqs.Joins(r, w)
		if shown(r, w, joined) {
			out, odd, ends, word = append(out, r), append(odd, tab), append(ends, false), true
			tab = false
			continue
		}
		n := len(out)
		if word && (joined || vt.IsEmojiModifier(r) || r == vt.ZeroWidthJoiner && vt.RuneWidth(out[n-1]) == 2 || r == 0xFE0F || r == 0x20E3 || indicMark(r)) {
			odd[n-1] = true
		}
	}
	if word {
		ends[len(ends)-1] = true
	}
	return out, odd, ends
}

// indicMark reports whether r is a mark of the Brahmic scripts, Devanagari
// to Sinhala, or of Thai and Lao.
func indicMark(r rune) bool {
	return r >= 0x0900 && r < 0x0F00 && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r))
}

// startsText reports whether the text on the screen is the start of the
// asked text, something of it on the screen.
func startsText(screen, asked string) bool {
	s := Squash(screen)
	return s != "" && strings.HasPrefix(Squash(asked), s)
}

func sameText(screen, asked string) bool {
	s, a := Squash(screen), Squash(asked)
	if s == a {
		return true
	}
	// A title cut short, down to its "…" alone on a crowded tab row.
	if p, ok := strings.CutSuffix(s, "…"); ok {
		return strings.HasPrefix(a, p)
	}
	return false
}
