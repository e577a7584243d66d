package stress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
	"github.com/claudewrap/claudewrap/internal/transcript"
)

// Outcome is how one form ended, as Claude recorded it.
type Outcome string

// Outcomes. Wrong is the one that must never happen.
const (
	Right    Outcome = "right"     // Claude recorded exactly the intended answer (or chat, or cancel)
	Wrong    Outcome = "wrong"     // Claude recorded an answer other than the intended one
	Failed   Outcome = "failed"    // no answer: claudewrap cancelled or handed the form to the person, or nothing was recorded
	NotAsked Outcome = "not-asked" // an earlier form of the session ended it first
	// Theirs: the person at the terminal typed (Case.Person), claudewrap
	// handed the form to them, as it must, and Claude recorded nothing.
	Theirs Outcome = "theirs"
)

// Verdict is the judgement on one case.
type Verdict struct {
	Version    string   `json:"version"`
	Session    string   `json:"session"`
	Case       string   `json:"case"`
	Cols       int      `json:"cols"` // the session's size; on a terminal, the size it started at
	Rows       int      `json:"rows"`
	Classes    []string `json:"classes"`
	Outcome    Outcome  `json:"outcome"`
	Detail     string   `json:"detail,omitempty"`
	ToolResult string   `json:"tool_result,omitempty"`
	IsError    bool     `json:"is_error,omitempty"` // the tool_result is an error (a cancel, a chat, an interrupt)
	Dir        string   `json:"dir,omitempty"`      // the session's files, kept when not right
	// Resized counts the resizes that landed while the form was open,
	// between its first key and its end (a session on a terminal; see
	// Case.Resizes).
	Resized int `json:"resized,omitempty"`
	// Replied counts the replies to Claude's terminal queries the terminal
	// wrote while the form was open (see Session.Replies).
	Replied int `json:"replied,omitempty"`
	// Dialog: the case is a dialog (see GenerateDialogs), tallied apart
	// from the forms.
	Dialog bool `json:"dialog,omitempty"`
}

// chatNotSent is the judgement on a form chatted whose message never came.
const chatNotSent = "chatted, but the chat message never reached Claude"

// What Claude Code writes in an is_error tool_result.
const (
	cancelledText = transcript.CancelText
	clarifyText   = "clarify"
)

// judge compares what the fake API received for case c with the intent.
// res is nil when no tool_result came; later holds the texts of the user
// messages Claude sent after it (for the chat message).
func judge(c Case, res *fakeapi.ToolResult, later []string) (Outcome, string) {
	if res == nil {
		return Failed, "no tool_result reached the API"
	}
	switch {
	case c.Cancel:
		if res.IsError && strings.Contains(res.Content, cancelledText) {
			return Right, ""
		}
		if !res.IsError {
			return Wrong, "answers were recorded, the rules said cancel"
		}
		return Failed, "an error other than the cancel: " + res.Content
	case c.Chat != "":
		if !res.IsError {
			return Wrong, "answers were recorded, the rules said chat"
		}
		if !strings.Contains(res.Content, clarifyText) {
			return Failed, "the form was not chatted: " + res.Content
		}
		for _, t := range later {
			if strings.Contains(t, c.Chat) {
				return Right, ""
			}
		}
		return Failed, chatNotSent
	}
	if res.IsError {
		return Failed, "the form was not submitted: " + res.Content
	}
	return judgeAnswers(c, res.Content)
}

// judgeAnswers checks a submitted form's tool_result: for each question
// `"Q"="A"`, then optionally the chosen option's preview and the notes,
// in order. Multi-select answers are the labels in tick order joined with
// ", "; newer Claude Code quotes a label holding ", " or a double quote.
func judgeAnswers(c Case, content string) (Outcome, string) {
	at := 0
	for i, q := range c.Questions {
		a := c.Answers[i]
		key := `"` + q.Question + `"=`
		j := strings.Index(content[at:], key)
		if j < 0 {
			return Wrong, fmt.Sprintf("question %d is not in the tool_result", i+1)
		}
		rest := content[at+j+len(key):]
		want := wants(q, a)
		got := ""
		for _, w := range want {
			if strings.HasPrefix(rest, `"`+w+`"`) {
				got = w
				break
			}
		}
		if got == "" {
			return Wrong, fmt.Sprintf("question %d: recorded %s, want %q", i+1, shorten(rest, 80), firstOf(a.Type, strings.Join(a.Select, ", ")))
		}
		rest = rest[len(got)+2:]
		// The segment of this question ends where the next one starts.
		end := len(rest)
		if i+1 < len(c.Questions) {
			if k := strings.Index(rest, `, "`+c.Questions[i+1].Question+`"=`); k >= 0 {
				end = k
			}
		}
		seg := rest[:end]
		if a.Notes != "" && !strings.Contains(seg, "notes: "+a.Notes) {
			return Wrong, fmt.Sprintf("question %d: notes %q not recorded: %s", i+1, a.Notes, shorten(seg, 80))
		}
		if a.Notes == "" && strings.Contains(seg, " notes: ") {
			return Wrong, fmt.Sprintf("question %d: notes recorded that were not meant: %s", i+1, shorten(seg, 80))
		}
		if p, ok := strings.CutPrefix(seg, " selected preview:\n"); ok {
			chosen := ""
			for _, o := range q.Options {
				if len(a.Select) == 1 && o.Label == a.Select[0] {
					chosen = o.Preview
				}
			}
			// Claude expands tabs in what it records.
			if chosen == "" || !strings.HasPrefix(squash(p), squash(chosen)) {
				return Wrong, fmt.Sprintf("question %d: the preview recorded is not the chosen option's", i+1)
			}
		}
		at = len(content) - len(rest) + end
	}
	return Right, ""
}

// wants lists the strings Claude may record for an answer, the intended
// first, that it could not record for another pick of the question's
// labels. Claude Code 2.1.266 and later quote a multi-select label holding
// ", " or '"', and record a label picked on the screen as they show it:
// without its variation selectors 16 (U+FE0F: "⚠️ Risky path" as "⚠ Risky
// path"), its white space trimmed and made one ("C  D " as "C D").
func wants(q Question, a Answer) []string {
	if a.Type != "" {
		return []string{a.Type}
	}
	// forms is what Claude may record for a pick; every form, also one no
	// version records (the VS16 dropped, no quotes), for another pick.
	forms := func(pick []string, every bool) []string {
		plain, quoted := strings.Join(pick, ", "), quoteAll(pick)
		if !q.MultiSelect {
			return []string{plain, asShown(plain, true), asShown(plain, false)}
		}
		out := []string{quoted, plain}
		for _, marks := range []bool{true, false} {
			bare := make([]string, len(pick))
			for i, l := range pick {
				bare[i] = asShown(l, marks)
			}
			out = append(out, quoteAll(bare))
			if every {
				out = append(out, strings.Join(bare, ", "))
			}
		}
		return out
	}
	taken := map[string]bool{}
	var each func(pick []string)
	each = func(pick []string) {
		for _, o := range q.Options {
			if slices.Contains(pick, o.Label) {
				continue
			}
			p := append(slices.Clone(pick), o.Label)
			if !slices.Equal(p, a.Select) {
				for _, f := range forms(p, true) {
					taken[spaceless(f)] = true
				}
			}
			if q.MultiSelect {
				each(p)
			}
		}
	}
	each(nil)
	var out []string
	for _, f := range forms(a.Select, false) {
		if !taken[spaceless(f)] && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// spaceless is s without any white space (Go's or JavaScript's, U+FEFF
// too): a record of another pick that differs from one of this pick's only
// in white space may be this one's, whatever a version trims.
func spaceless(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '\uFEFF' {
			return -1
		}
		return r
	}, s)
}

// asShown is a label as 2.1.266 and later show it, and record it when it
// is picked on the screen: without VS16, a soft hyphen, zero-width space,
// word joiner or U+FEFF as U+FFFD, its white space (a no-break space too)
// trimmed and made one. They draw it without its direction marks, and may
// record a right-to-left mark kept: marks says which.
func asShown(s string, marks bool) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\uFE0F':
			return -1
		case '\u00AD', '\u200B', '\u2060', '\uFEFF':
			return '\uFFFD'
		case '\u200E', '\u200F':
			if !marks {
				return -1
			}
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// quoteAll joins labels with ", ", each holding ", " or '"' quoted.
func quoteAll(labels []string) string {
	quoted := make([]string, len(labels))
	for i, l := range labels {
		quoted[i] = l
		if strings.Contains(l, ", ") || strings.Contains(l, `"`) {
			quoted[i] = jsonString(l)
		}
	}
	return strings.Join(quoted, ", ")
}

// jsonString quotes s as JavaScript's JSON.stringify does: as Go's
// encoder without its HTML escapes, and with U+2028 and U+2029 as they are.
// Read left to right, an escaped backslash is passed over whole, so an
// escape of U+2028 is told from the text "\\u2028".
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return lineSeparators.ReplaceAllStringFunc(strings.TrimSuffix(b.String(), "\n"), func(m string) string {
		switch m {
		case `\u2028`:
			return "\u2028"
		case `\u2029`:
			return "\u2029"
		}
		return m
	})
}

var lineSeparators = regexp.MustCompile(`\\\\|\\u202[89]`)

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…", string(r[:n]))
}

// squash removes white space.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}
