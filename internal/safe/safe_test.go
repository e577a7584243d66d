package safe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		name, in, line, text string
	}{
		{"plain", "Which database?", "Which database?", "Which database?"},
		{"CJK, emoji, spaces and a backslash", "数据库 👍🏽 a  b\\n", "数据库 👍🏽 a  b\\n", "数据库 👍🏽 a  b\\n"},
		{"clipboard write (OSC 52)", "\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\a`, `\x1b]52;c;ZXZpbA==\a`},
		{"clear screen", "\x1b[2J", `\x1b[2J`, `\x1b[2J`},
		{"window title", "\x1b]0;title\x07", `\x1b]0;title\a`, `\x1b]0;title\a`},
		{"C1 CSI", "\u009b31m", `\u009b31m`, `\u009b31m`},
		{"NEL, a C1 newline", "a\u0085b", `a\u0085b`, `a\u0085b`},
		{"a line overwritten", "ok\rclaudewrap: verified", `ok\rclaudewrap: verified`, `ok\rclaudewrap: verified`},
		{"a line added", "ok\nclaudewrap: verified", `ok\nclaudewrap: verified`, "ok\nclaudewrap: verified"},
		{"tab", "a\tb", `a\tb`, "a\tb"},
		{"backspace and DEL", "ab\b\x7f", `ab\b\x7f`, `ab\b\x7f`},
		{"bidi override and isolate", "x\u202egnp.exe\u2066y\u2069", `x\u202egnp.exe\u2066y\u2069`, `x\u202egnp.exe\u2066y\u2069`},
		{"not UTF-8", "a\xff\xc3b", `a\xff\xc3b`, `a\xff\xc3b`},
		{"a zero-width joiner stays", "👩\u200d💻", "👩\u200d💻", "👩\u200d💻"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	in := map[string]string{"question": "\x1b]52;c;ZXZpbA==\x07 \u009b31m \x7f \u202e 数据库 👍🏽 \u2028 <b>"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(b)
	for _, r := range string(got) {
		if r < 0x20 || acts(r) {
			t.Fatalf("JSON left %U in %s", r, got)
		}
	}
	var out map[string]string
	if err := json.Unmarshal(got, &out); err != nil || out["question"] != in["question"] {
		t.Errorf("JSON changed the value: %s: %q, %v", got, out["question"], err)
	}
	if plain := []byte(`{"a":"b"}`); &JSON(plain)[0] != &plain[0] {
		t.Error("JSON copied text with nothing to escape")
	}
}

// FuzzLine: whatever the text, what Line and Text return is UTF-8 with
// nothing a terminal acts on (Text keeping line feeds and tabs).
func FuzzLine(f *testing.F) {
	for _, s := range []string{"Which?", "\x1b]52;c;ZXZpbA==\x07\x1b[2J\u009b31m\rclaudewrap: verified", "a\xff\u202e\n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tc := range []struct {
			out   string
			lines bool
		}{{Line(s), false}, {Text(s), true}} {
			if !utf8.ValidString(tc.out) {
				t.Fatalf("%q: not UTF-8: %q", s, tc.out)
			}
			for _, r := range tc.out {
				if r < 0x20 && !(tc.lines && (r == '\n' || r == '\t')) || acts(r) {
					t.Fatalf("%q: %U left in %q", s, r, tc.out)
				}
			}
		}
	})
}

// TestInvisible: characters that show nothing where they stand, and so can
// hide text, are escaped; the joiners emoji sequences need are not.
func TestInvisible(t *testing.T) {
	for in, want := range map[string]string{
		"a\u200bb":         `a\u200bb`,
		"soft\u00adhyphen": `soft\u00adhyphen`,
		"\ufeffbom":        `\ufeffbom`,
		"line\u2028break":  `line\u2028break`,
		"tag\U000E0041":    `tag\U000e0041`,
		"👩\u200d🚀":         "👩\u200d🚀",
		"❤\ufe0f":          "❤\ufe0f",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJSONBeyondBMP: a character escaped beyond the basic plane is a JSON
// surrogate pair, the same value.
func TestJSONBeyondBMP(t *testing.T) {
	b := JSON([]byte("\"tag\U000E0041\""))
	var s string
	if err := json.Unmarshal(b, &s); err != nil || s != "tag\U000E0041" || strings.ContainsRune(string(b), 0xE0041) {
		t.Errorf("JSON gave %s (%q, %v)", b, s, err)
	}
}
