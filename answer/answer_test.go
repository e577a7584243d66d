package answer

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var (
	single  = Question{Question: "Which database?", Options: []Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}}
	multi   = Question{Question: "Which features?", MultiSelect: true, Options: []Option{{Label: "Auth"}, {Label: "Yes, and always"}, {Label: `Say "hi"`}}}
	preview = Question{Question: "Which layout?", Options: []Option{{Label: "A", Preview: "┌─┐"}, {Label: "B"}}}
	// A multi-select question with previews has no preview layout.
	multiPreview = Question{Question: "Which?", MultiSelect: true, Options: []Option{{Label: "A", Preview: "x"}}}
)

func TestCheck(t *testing.T) {
	tests := []struct {
		q    Question
		d    Decision
		want string // "" when valid; else a part of the error
	}{
		{single, Decision{Action: Select, Labels: []string{"SQLite"}}, ""},
		{single, Decision{Action: Select}, "no label"},
		{single, Decision{Action: Select, Labels: []string{"MySQL"}}, `label "MySQL" is not offered (offered: ["PostgreSQL" "SQLite"])`},
		{single, Decision{Action: Select, Labels: []string{"sqlite"}},
			`label "sqlite" is not offered; did you mean "SQLite"? labels are matched exactly (offered: ["PostgreSQL" "SQLite"])`},
		{single, Decision{Action: Select, Labels: []string{"SQLite", "PostgreSQL"}}, "a list of labels on a single-select question"},
		{multi, Decision{Action: Select, Labels: []string{"Auth", "Yes, and always"}}, ""},
		{multi, Decision{Action: Select, Labels: []string{"Auth", "Auth"}}, "named twice"},
		{single, Decision{Action: Type, Text: "kebab-case"}, ""},
		{single, Decision{Action: Type, Text: "  "}, "want one line"},
		{single, Decision{Action: Type, Text: "a\nb"}, "want one line"},
		{single, Decision{Action: Type, Text: "a\x03"}, "control characters"},
		{multi, Decision{Action: Type, Text: "x"}, "multi-select"},
		{preview, Decision{Action: Type, Text: "x"}, "no Type something row"},
		{multiPreview, Decision{Action: Select, Labels: []string{"A"}, Notes: "n"}, "notes can be given only"},
		{single, Decision{Action: Chat, Text: "first\nsecond"}, ""},
		{single, Decision{Action: Chat, Text: "a\tb"}, "control characters"},
		{single, Decision{Action: Cancel}, ""},
		{single, Decision{}, "unknown action"},
		{preview, Decision{Action: Select, Labels: []string{"B"}, Notes: "dark mode"}, ""},
		{preview, Decision{Action: Select, Labels: []string{"B"}, Notes: " padded"}, "surrounding spaces"},
		{single, Decision{Action: Select, Labels: []string{"SQLite"}, Notes: "n"}, "notes can be given only"},
		{preview, Decision{Action: Cancel, Notes: "n"}, "notes can be given only"},
	}
	for _, tt := range tests {
		err := tt.d.Check(tt.q)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v on %q: %v, want valid", tt.d, tt.q.Question, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v on %q: %v, want an error holding %q", tt.d, tt.q.Question, err, tt.want)
		}
	}
}

func TestRecordings(t *testing.T) {
	single := func(labels ...string) Question {
		q := Question{Question: "Which?"}
		for _, l := range labels {
			q.Options = append(q.Options, Option{Label: l})
		}
		return q
	}
	multi := func(labels ...string) Question {
		q := single(labels...)
		q.MultiSelect = true
		return q
	}
	tests := []struct {
		d    Decision
		q    Question
		want []string
	}{
		{Decision{Action: Select, Labels: []string{"SQLite"}}, single("SQLite", "MongoDB"), []string{"SQLite"}},
		{Decision{Action: Select, Labels: []string{"Yes, and always"}}, single("Yes, and always", "No"), []string{"Yes, and always"}},
		{Decision{Action: Type, Text: "kebab, case"}, single("A", "B"), []string{"kebab, case"}},
		{Decision{Action: Type, Text: "⚠️ typed"}, single("A", "B"), []string{"⚠️ typed"}},
		{Decision{Action: Select, Labels: []string{"Auth", "API"}}, multi("Auth", "API"), []string{"Auth, API"}},
		// Claude 2.1.266 and later quote labels holding ", " or '"'.
		{Decision{Action: Select, Labels: []string{"Yes, and always", `Say "hi"`, "Auth"}}, multi("Auth", "Yes, and always", `Say "hi"`),
			[]string{`"Yes, and always", "Say \"hi\"", Auth`, `Yes, and always, Say "hi", Auth`}},
		// Claude records a label without its variation selectors 16
		// (stress seed 1764068400: 2.1.266 and later).
		{Decision{Action: Select, Labels: []string{"⚠️ Risky path"}}, single("Safe", "⚠️ Risky path"),
			[]string{"⚠️ Risky path", "⚠ Risky path"}},
		{Decision{Action: Select, Labels: []string{"1️⃣ First"}}, single("1️⃣ First", "No"), []string{"1️⃣ First", "1⃣ First"}},
		// (quoted: no version drops the VS16 and leaves the quotes out).
		{Decision{Action: Select, Labels: []string{"❤️ Favourite", "Search", "A, b"}}, multi("Search", "❤️ Favourite", "A, b"),
			[]string{`❤️ Favourite, Search, "A, b"`, "❤️ Favourite, Search, A, b", `❤ Favourite, Search, "A, b"`}},
		// ... and with white space at its ends trimmed, runs of it made
		// one (2.1.266 and later; testdata/scenarios/spaces.yaml).
		{Decision{Action: Select, Labels: []string{"Two  spaces"}}, single("  Leading", "Two  spaces"),
			[]string{"Two  spaces", "Two spaces"}},
		{Decision{Action: Select, Labels: []string{"C  D", " A"}}, multi(" A", "B ", "C  D"),
			[]string{"C  D,  A", "C D, A"}},
		// Nothing another pick could be recorded as: another label...
		// Labels apart only in white space verify nothing (whatever
		// white space a version trims, or not).
		{Decision{Action: Select, Labels: []string{"C  D"}}, single("C D", "C  D"), nil},
		{Decision{Action: Select, Labels: []string{"A"}}, single(" A", "A"), nil},
		{Decision{Action: Select, Labels: []string{" A"}}, single(" A", "A"), nil},
		// (whichever white space Claude trims or makes one: a tab, U+FEFF).
		{Decision{Action: Select, Labels: []string{"AA"}}, single("AA", "AA\uFEFF"), nil},
		{Decision{Action: Select, Labels: []string{"A\tA"}}, single("A\tA", "A\tA "), nil},
		{Decision{Action: Select, Labels: []string{"A", "A\tA"}}, multi("A", "A ", "A\tA"), nil},
		{Decision{Action: Select, Labels: []string{"A\tA"}}, single("A\tA", "AB"), []string{"A\tA", "A A"}},
		{Decision{Action: Select, Labels: []string{"❤️ Heart"}}, single("❤ Heart", "❤️ Heart"), []string{"❤️ Heart"}},
		{Decision{Action: Select, Labels: []string{"❤️ Heart", "B"}}, multi("B", "❤ Heart", "❤️ Heart"), []string{"❤️ Heart, B"}},
		// ... other labels joined ...
		{Decision{Action: Select, Labels: []string{"❤️ A", "B"}}, multi("❤️ A", "B", "❤ A, B"), []string{"❤️ A, B"}},
		{Decision{Action: Select, Labels: []string{"A, B"}}, multi("A, B", "A", "B"), []string{`"A, B"`}},
		// ... or a label holding them: "A, B" may be either on 2.1.227,
		// and nothing Claude records verifies the answer.
		{Decision{Action: Select, Labels: []string{"A", "B"}}, multi("A, B", "A", "B"), nil},
		{Decision{Action: Select, Labels: []string{"B", "A"}}, multi("A, B", "A", "B"), []string{"B, A"}},
		// Labels apart only in what Loose leaves out (an invisible
		// character) verify nothing as given, but the U+FFFD that
		// 2.1.266 and later record for one tells them apart.
		{Decision{Action: Select, Labels: []string{"soft\u00adhyphen"}}, single("soft\u00adhyphen", "softhyphen"), []string{"soft\ufffdhyphen"}},
		{Decision{Action: Select, Labels: []string{"A", "B\u2060"}}, multi("A", "B", "B\u2060"), []string{"A, B\ufffd"}},
		{Decision{Action: Select, Labels: []string{"soft\u00adhyphen"}}, single("soft\u00adhyphen", "soft-hyphen"),
			[]string{"soft\u00adhyphen", "soft\ufffdhyphen"}},
		// ... or as U+FFFD where another label holds it,
		{Decision{Action: Select, Labels: []string{"A\u200bB"}}, single("A\u200bB", "A\ufffdB"), []string{"A\u200bB"}},
		// ... or where a direction mark left out, or a control as U+FFFD,
		// quoted, reads as the intended label (review of 9a0149b).
		{Decision{Action: Select, Labels: []string{"A, B"}}, multi("A, B", "A,\u200e B", "C"), nil},
		{Decision{Action: Select, Labels: []string{"A\ufffd, B"}}, multi("A\ufffd, B", "A\x01, B"), nil},
		{Decision{Action: Select, Labels: []string{"A, B"}}, multi("A, B", "A\x01, B"), nil},
		// ... or quoted as JavaScript quotes (U+2028 as it is), or shown
		// with its direction mark kept (review of 8cd0615).
		{Decision{Action: Select, Labels: []string{", "}}, multi(", ", ", \u2028", "x"), nil},
		{Decision{Action: Select, Labels: []string{", "}}, multi(", ", ",\t\u200e", "x"), nil},
		// A label no invisible character is apart from does not verify a
		// record with U+FFFD more (a version drawing an emoji it does
		// not know so).
		{Decision{Action: Select, Labels: []string{"Deploy"}}, single("Deploy", "Deploy 🫨"), []string{"Deploy"}},
	}
	for _, tt := range tests {
		if got := tt.d.Recordings(tt.q); !slices.Equal(got, tt.want) {
			t.Errorf("%v on %q (multi %t): %q, want %q", tt.d, tt.q.Labels(), tt.q.MultiSelect, got, tt.want)
		}
	}
	// The review page shows what Claude records, another pick's look-alike
	// or not.
	if got := (Decision{Action: Select, Labels: []string{"A", "B"}}).Renderings(true); !slices.Equal(got, []string{"A, B"}) {
		t.Errorf("Renderings: %q", got)
	}
	if got := (Decision{Action: Select, Labels: []string{"❤️ A", "B, c"}}).Renderings(true); !slices.Equal(got,
		[]string{`❤️ A, "B, c"`, "❤️ A, B, c", `❤ A, "B, c"`}) {
		t.Errorf("Renderings: %q", got)
	}
	if got := QuoteLabel("<a & b>, c"); got != `"<a & b>, c"` {
		t.Errorf("QuoteLabel escapes HTML: %s", got)
	}
	// As JavaScript's JSON.stringify: U+2028 and U+2029 as they are.
	for s, want := range map[string]string{
		`Say "hi"`: `"Say \"hi\""`, "a\\b": `"a\\b"`, "t\tn\n\x01": `"t\tn\n\u0001"`, "l\u2028p\u2029": "\"l\u2028p\u2029\"",
	} {
		if got := QuoteJSON(s); got != want {
			t.Errorf("QuoteJSON(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestLoose: a record apart from a label only in white space or an
// invisible character equals it as Loose leaves them; a visible character
// or U+FFFD apart does not (2.1.266 and later record U+FFFD for some:
// Recordings lists that form).
func TestLoose(t *testing.T) {
	for _, tt := range []struct {
		label, recorded string
		same            bool
	}{
		{"soft\u00adhyphen", "softhyphen", true},
		{"soft\u00adhyphen", "soft\ufffdhyphen", false}, // Recordings lists it
		{"Deploy", "Deploy \ufffd", false},
		{"\u200fRTL mark", "RTL mark", true},
		{"no\u00a0break", "no break", true},
		{"نیم\u200cفاصله", "نیمفاصله", true},
		{"⚠️ Risky path", "⚠ Risky path", false}, // Recordings lists it
		{"Two  spaces", "Two spaces", true},
		{"soft\u00adhyphen", "soft-hyphen", false},
		{"हिन्दी", "हिनदी", false}, // a virama is a mark, not invisible
		{"été", "ete", false},
		{"A", "\ufffd", false},
	} {
		if got := Loose(tt.label) == Loose(tt.recorded); got != tt.same {
			t.Errorf("Loose(%q) == Loose(%q): %t, want %t", tt.label, tt.recorded, got, tt.same)
		}
	}
}

func TestString(t *testing.T) {
	for d, want := range map[*Decision]string{
		{Action: Select, Labels: []string{"A", "B"}}:           `select "A", "B"`,
		{Action: Select, Labels: []string{"A"}, Notes: "dark"}: `select "A", notes "dark"`,
		{Action: Type, Text: "x"}:                              `type "x"`,
		{Action: Chat, Text: "wait"}:                           `chat "wait"`,
		{Action: Cancel}:                                       "cancel",
		{}:                                                     "none",
	} {
		if got := d.String(); got != want {
			t.Errorf("%#v: %s, want %s", *d, got, want)
		}
	}
}

func TestQuestionJSON(t *testing.T) {
	var q Question
	in := `{"question":"Which?","header":"H","multiSelect":false,"options":[{"label":"A","description":"d","preview":"p"},{"label":"B","description":""}]}`
	if err := json.Unmarshal([]byte(in), &q); err != nil {
		t.Fatal(err)
	}
	if !q.HasPreview() || !q.PreviewLayout() || q.Index("B") != 1 || q.Index("C") != -1 || !reflect.DeepEqual(q.Labels(), []string{"A", "B"}) {
		t.Errorf("decoded %+v", q)
	}
}
