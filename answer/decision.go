package answer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Action is what to do with a question.
type Action int

// Actions. Chat and Cancel end the whole form.
const (
	Select Action = iota + 1 // pick Labels (several, in tick order, on a multi-select question)
	Type                     // type Text into the "Type something" row
	Chat                     // "Chat about this"; Text is the message sent after it
	Cancel                   // Esc: Claude is told the user declined
)

var actionNames = map[Action]string{Select: "select", Type: "type", Chat: "chat", Cancel: "cancel"}

func (a Action) String() string {
	if s, ok := actionNames[a]; ok {
		return s
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Decision is the answer intended for one question.
type Decision struct {
	Action Action
	Labels []string
	Text   string
	// Notes are typed with n on the chosen option of a preview question.
	Notes string
}

// String describes the decision for people: select "A", "B"; select "A",
// notes "…"; type "text"; chat "text"; cancel; none when nothing was
// decided.
func (d Decision) String() string {
	switch d.Action {
	case Select:
		q := make([]string, len(d.Labels))
		for i, l := range d.Labels {
			q[i] = strconv.Quote(l)
		}
		if d.Notes != "" {
			return fmt.Sprintf("select %s, notes %q", strings.Join(q, ", "), d.Notes)
		}
		return "select " + strings.Join(q, ", ")
	case Type, Chat:
		return fmt.Sprintf("%s %q", d.Action, d.Text)
	case Cancel:
		return "cancel"
	}
	return "none"
}

// Recorded is the string Claude records for the decision: the label, the
// labels joined with ", " in tick order, or the typed text. See
// [Decision.Renderings] for every form a multi-select answer takes, and
// [Decision.Recordings] for those that verify it.
func (d Decision) Recorded() string {
	if d.Action == Type {
		return d.Text
	}
	return strings.Join(d.Labels, ", ")
}

// Recordings lists the strings Claude may record for the decision on q,
// the intended first, that no other pick of q's labels could have it
// record: what verifies the answer in Claude's PostToolUse.
//
// Since 2.1.266 Claude quotes, as JSON, a label of a multi-select answer
// that holds ", " or a double quote, so that the labels can be told apart;
// earlier versions join them as they are. Since 2.1.266 too (not 2.1.227),
// a label picked on the screen is recorded as the screen shows it: without
// its variation selectors 16 (U+FE0F: "⚠️ Risky path" as "⚠ Risky path"),
// white space at its ends trimmed and runs of it made one space ("C  D "
// as "C D"), and most invisible characters as U+FFFD (see [Loose]: a
// record of a label picked on the screen verifies it when it equals one of
// these strings as Loose leaves them). The question keeps its own, and a
// label given through the hook is recorded as given. A string
// that another pick would be recorded as, in any of these forms ("A, B"
// for the label "A, B" and for the labels A and B, "❤ Heart" for "❤️ Heart"
// and for "❤ Heart"), could not tell the two apart and is left out; the
// list may then be empty, and nothing Claude records verifies the answer.
func (d Decision) Recordings(q Question) []string {
	if d.Action != Select {
		return []string{d.Recorded()}
	}
	offered := slices.Compact(slices.Sorted(slices.Values(q.Labels())))
	if q.MultiSelect && len(offered) > maxPicked {
		return nil // more than Claude offers: too many picks to try
	}
	others := map[string]bool{}
	picks(offered, q.MultiSelect, nil, func(p []string) {
		if !slices.Equal(p, d.Labels) {
			for _, r := range everyForm(p, q.MultiSelect) {
				others[Loose(r)] = true
			}
		}
	})
	return slices.DeleteFunc(d.Renderings(q.MultiSelect), func(r string) bool { return others[Loose(r)] })
}

// Loose is s as verification compares a label's record: without white
// space (as JavaScript or Go knows it, U+FEFF too) and without controls,
// format characters and what Unicode says to ignore where it cannot be
// shown (a soft hyphen, a zero-width space, a direction mark, variation
// selectors but VS16). Claude 2.1.266 and later record a label picked on
// the screen much as they draw it (see sanitize; Recordings lists that
// form); which characters a version trims, leaves out or keeps is not
// known for every one, so a record that differs from one of this pick's
// only there verifies it, and Recordings leaves out such strings another
// pick could leave. U+FFFD is kept: a version that draws a character it
// does not know as U+FFFD must not verify a label without it.
func Loose(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r != vs16r && Invisible(r) {
			return -1
		}
		return r
	}, s)
}

// Invisible reports whether r is a control, a format character or one
// Unicode says to ignore where it cannot be shown (a soft hyphen, a
// zero-width space, the Hangul fillers). A few format characters are drawn
// (U+0600): labels apart only there verify nothing, as Recordings leaves
// out what another pick could be recorded as; the screen compares without
// them too (screen.Squash).
func Invisible(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// sanitize is s as 2.1.266 and later draw it: the direction marks, the
// Mongolian vowel separator and VS15 left out, the joiners, VS16 and white
// space kept, and every other invisible character as U+FFFD (a soft
// hyphen, a zero-width space, a word joiner, U+FEFF, controls, the Hangul
// fillers, the bidirectional embeddings and isolates among them). With
// marks set, the direction marks are kept: 2.1.330 may record a
// right-to-left mark it does not draw.
func sanitize(s string, marks bool) string {
	return strings.Map(func(r rune) rune {
		switch {
		case (r == '\u200E' || r == '\u200F') && marks:
			return r
		case r == '\u200E' || r == '\u200F' || r == '\u180E' || r == '\uFE0E':
			return -1
		case r == vs16r || r == '\u200C' || r == '\u200D' || unicode.IsSpace(r):
			return r
		case Invisible(r):
			return utf8.RuneError
		}
		return r
	}, s)
}

// stripped is s without any invisible character: what a version that
// leaves them all out would record (none is known to), for another pick.
func stripped(s string) string {
	return strings.Map(func(r rune) rune {
		if Invisible(r) {
			return -1
		}
		return r
	}, s)
}

// Renderings lists every string some version records (and shows on the
// review page) for the decision, the intended first, whether or not
// another pick could be recorded the same (see [Decision.Recordings]).
func (d Decision) Renderings(multi bool) []string {
	if d.Action != Select {
		return []string{d.Recorded()}
	}
	var out []string
	for _, r := range recordings(d.Labels, multi) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// maxPicked bounds the multi-select options whose every pick is tried
// (4 options: 64 picks; 6: 1,956; Claude offers at most 4). With more,
// nothing is taken as verified.
const maxPicked = 6

// recordings is what some version records for labels picked in this
// order: quoted or not, and as given or as shown (shownAll) where it
// quotes.
func recordings(labels []string, multi bool) []string {
	bare := shownAll(labels)
	if !multi {
		return []string{labels[0], bare[0]}
	}
	return []string{JoinLabels(labels), strings.Join(labels, ", "), JoinLabels(bare)}
}

// shownAll is each label as 2.1.266 and later show it, and record it when
// it is picked on the screen: without VS16, as sanitize makes it, white
// space trimmed and made one.
func shownAll(labels []string) []string { return shownMarks(labels, false) }

// shownMarks is shownAll, with the direction marks kept when marks is set.
func shownMarks(labels []string, marks bool) []string {
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = strings.Join(strings.Fields(sanitize(strings.ReplaceAll(l, vs16, ""), marks)), " ")
	}
	return out
}

// everyForm is every form recordings could take for labels, whichever
// version records them, the plain join of the labels as shown, which none
// records, the labels without invisible characters, and as shown with
// their direction marks: so that nothing another pick may be recorded as
// counts for this one.
func everyForm(labels []string, multi bool) []string {
	out := recordings(labels, multi)
	if multi {
		out = append(out, strings.Join(shownAll(labels), ", "))
	}
	bare := make([]string, len(labels))
	for i, l := range labels {
		bare[i] = stripped(l)
	}
	out = append(out, recordings(bare, multi)...)
	if marks := shownMarks(labels, true); multi {
		out = append(out, JoinLabels(marks), strings.Join(marks, ", "))
	} else {
		out = append(out, marks[0])
	}
	return out
}

// picks calls f with every pick of the offered labels: each label alone,
// or, multi-select, every ordering of every set of them.
func picks(offered []string, multi bool, prefix []string, f func([]string)) {
	for _, l := range offered {
		if slices.Contains(prefix, l) {
			continue
		}
		p := append(slices.Clone(prefix), l)
		f(p)
		if multi {
			picks(offered, multi, p, f)
		}
	}
}

// JoinLabels joins labels as Claude 2.1.266 and later record a
// multi-select pick: with ", ", each label holding ", " or '"' quoted.
func JoinLabels(labels []string) string {
	quoted := make([]string, len(labels))
	for i, l := range labels {
		quoted[i] = QuoteLabel(l)
	}
	return strings.Join(quoted, ", ")
}

// vs16 is the variation selector 16, which asks for an emoji's picture.
const (
	vs16  = "\uFE0F"
	vs16r = '\uFE0F'
)

// QuoteLabel quotes a multi-select label the way Claude Code records it:
// as a JSON string when it holds ", " or a double quote.
func QuoteLabel(l string) string {
	if !strings.Contains(l, ", ") && !strings.Contains(l, `"`) {
		return l
	}
	return QuoteJSON(l)
}

// QuoteJSON is s as a JSON string, as JavaScript's JSON.stringify writes
// it: only '"', '\\' and controls escaped (Go's encoder also escapes
// U+2028 and U+2029, and HTML).
func QuoteJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// WholeForm is d for every one of n questions: chat and cancel end the
// whole form, whatever it asks.
func WholeForm(d Decision, n int) []Decision {
	out := make([]Decision, n)
	for i := range out {
		out[i] = d
	}
	return out
}
