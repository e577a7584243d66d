package screen

import (
	"fmt"
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

// Elicitation is an MCP server's input form (an elicitation) as Claude
// draws it: "MCP server “demo” requests your input", the server's message,
// the fields in sight, an enum's or multi-select's list when one is open,
// Accept and Decline, and a footer of keys:
//
//	MCP server “demo” requests your input
//
//	Which environment should I deploy to?
//
//	❯ * Environment: ▸ not set
//	    Really deploy?: ☐
//	  ✔ Note: ship it
//	  ↓ 2 more
//	  Accept    Decline
//
//	Esc to cancel · ↑/↓ to navigate · Backspace to unset · → to expand
//
// A field's row is a pointer column, a mark ("*" required and unset, "✔"
// set, "⚠" refused) and "Title: value". An open list's options sit below
// their field, "◯"/"◉" for an enum and "☐"/"☒" for a multi-select. A form
// taller than the screen shows a window of its fields, with "↑ N more" and
// "↓ N more" (2.1.197: "… more above", "… more below") around it.
type Elicitation struct {
	Server string
	// Text is the form's whole text, from its title line down.
	Text string
	// Fields are the field rows in sight, top to bottom.
	Fields []ElicitField
	// Options are the open list's options, under the field whose Open is
	// set; none when no list is open.
	Options []ElicitOption
	// Above and Below say fields are out of sight above and below the
	// ones shown.
	Above, Below bool
	// Buttons says the Accept and Decline row shows; Button is the one
	// the pointer is on ("Accept", "Decline"), "" for neither.
	Buttons bool
	Button  string
}

// ElicitField is one field's row.
type ElicitField struct {
	// Line is the row's text after its pointer and mark: "Title: value".
	Line     string
	Focused  bool
	Required bool // "*": required and not set yet
	Set      bool // "✔": a value was given
	Refused  bool // "⚠": Accept found it required and unset, or invalid
	// Open says the field's list of options shows below it ("Title: ▾");
	// Expandable that it has one, closed ("Title: ▸ value").
	Open, Expandable bool
}

// Value is the field's value as drawn, when the row is the field titled
// title: "not set", "☐"/"☒", "Type something…" while focused and empty,
// a multi-select's labels joined by ", ", or what was typed.
func (f ElicitField) Value(title string) (string, bool) {
	v, ok := strings.CutPrefix(f.Line, title+":")
	if !ok {
		return "", false
	}
	v = strings.TrimPrefix(strings.TrimSpace(v), "▸")
	if v == "▾" {
		return "", true
	}
	return strings.TrimSpace(v), true
}

// ElicitOption is one option of an open list.
type ElicitOption struct {
	Label   string
	Focused bool
	Checked bool // "◉" or "☒"
	Box     bool // a multi-select's "☐"/"☒" rather than an enum's "◯"/"◉"
}

// Focused is the index of the focused field in Fields, or -1.
func (e Elicitation) Focused() int {
	for i, f := range e.Fields {
		if f.Focused {
			return i
		}
	}
	return -1
}

// Field finds the field titled title among those in sight, or -1.
func (e Elicitation) Field(title string) int {
	for i, f := range e.Fields {
		if _, ok := f.Value(title); ok {
			return i
		}
	}
	return -1
}

// Option finds the open list's option labelled label, or -1.
func (e Elicitation) Option(label string) int {
	for i, o := range e.Options {
		if o.Label == label {
			return i
		}
	}
	return -1
}

// FocusedOption is the index of the open list's focused option, or -1.
func (e Elicitation) FocusedOption() int {
	for i, o := range e.Options {
		if o.Focused {
			return i
		}
	}
	return -1
}

// String is the form as the golden files show it.
func (e Elicitation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "elicitation from %q\n", e.Server)
	if e.Above {
		b.WriteString("  ↑ more fields\n")
	}
	for _, f := range e.Fields {
		mark := " "
		switch {
		case f.Refused:
			mark = "⚠"
		case f.Set:
			mark = "✔"
		case f.Required:
			mark = "*"
		}
		state := ""
		if f.Open {
			state = " (open)"
		} else if f.Expandable {
			state = " (list)"
		}
		fmt.Fprintf(&b, "  %s %s field %q%s\n", elicitPointer(f.Focused), mark, f.Line, state)
		if f.Open {
			for _, o := range e.Options {
				box := "◯◉"
				if o.Box {
					box = "☐☒"
				}
				c := []rune(box)[0]
				if o.Checked {
					c = []rune(box)[1]
				}
				fmt.Fprintf(&b, "      %s %c %q\n", elicitPointer(o.Focused), c, o.Label)
			}
		}
	}
	if e.Below {
		b.WriteString("  ↓ more fields\n")
	}
	if e.Buttons {
		fmt.Fprintf(&b, "  buttons: %s Accept %s Decline\n", elicitPointer(e.Button == "Accept"), elicitPointer(e.Button == "Decline"))
	} else {
		b.WriteString("  no buttons\n")
	}
	return b.String()
}

func elicitPointer(on bool) string {
	if on {
		return "❯"
	}
	return "·"
}

// elicitTitle is the form's title on every pinned version, around the
// server's name in curly quotes.
const (
	elicitTitleStart = "MCP server “"
	elicitTitleEnd   = "” requests your input"
)

// ParseElicitation finds an MCP server's input form at the bottom of the
// screen: its title below the last rule, and the "Esc to cancel" footer
// below the title. Text the same words in Claude's conversation above the
// rule is not a form.
func ParseElicitation(s vt.Snapshot) (Elicitation, bool) {
	ls := lines(s)
	top := 0
	for y := len(ls) - 1; y >= 0; y-- {
		if isRule(ls[y], s.Cols) {
			top = y + 1
			break
		}
	}
	for y := top; y < len(ls); y++ {
		t := strings.TrimSpace(ls[y].text())
		if !strings.HasPrefix(t, elicitTitleStart) || !strings.HasSuffix(t, elicitTitleEnd) {
			continue
		}
		server := strings.TrimSuffix(strings.TrimPrefix(t, elicitTitleStart), elicitTitleEnd)
		var text []string
		footer := false
		for _, l := range ls[y:] {
			text = append(text, strings.TrimRight(l.text(), " "))
			footer = footer || strings.Contains(l.text(), "Esc to cancel")
		}
		if !footer || server == "" {
			return Elicitation{}, false
		}
		e := Elicitation{Server: server, Text: strings.TrimRight(strings.Join(text, "\n"), "\n")}
		e.readBody(ls[y+1:])
		return e, true
	}
	return Elicitation{}, false
}

// readBody reads the fields, the open list and the buttons from the rows
// below the title. The fields are the last run of field rows above the
// buttons: rows that look like fields in the server's message above them
// are not taken.
func (e *Elicitation) readBody(ls []line) {
	end := len(ls)
	for i, l := range ls {
		if focus, ok := buttonsRow(l.text()); ok {
			e.Buttons, e.Button, end = true, focus, i
			break
		}
	}
	// From the buttons up: fields, options, scroll marks and blank rows,
	// until a row that is none of them (the message).
	start := end
	for i := end - 1; i >= 0; i-- {
		t := ls[i].text()
		_, field := fieldRow(t)
		_, option := optionRow(t)
		_, _, scroll := scrollRow(t)
		// A row indented deeper than the message's two columns belongs
		// to a field ("This field is required" under it).
		if !field && !option && !scroll && strings.TrimSpace(t) != "" && !strings.HasPrefix(t, "    ") {
			break
		}
		start = i
	}
	for _, l := range ls[start:end] {
		t := l.text()
		if f, ok := fieldRow(t); ok {
			e.Fields = append(e.Fields, f)
			continue
		}
		if o, ok := optionRow(t); ok && len(e.Fields) > 0 && e.Fields[len(e.Fields)-1].Open {
			e.Options = append(e.Options, o)
			continue
		}
		if up, down, ok := scrollRow(t); ok {
			e.Above = e.Above || up && len(e.Fields) == 0
			e.Below = e.Below || down
		}
	}
	// A field row that the message drew, above the first blank row before
	// the real fields, cannot be told apart here; askflow checks the
	// fields in sight against the server's schema.
}

// fieldRow reads "  ❯ ✔ Title: value": two spaces, the pointer column,
// the mark column, then the title and its value.
func fieldRow(t string) (ElicitField, bool) {
	r := []rune(t)
	if len(r) < 7 || r[0] != ' ' || r[1] != ' ' || r[3] != ' ' || r[5] != ' ' || r[6] == ' ' {
		return ElicitField{}, false
	}
	var f ElicitField
	switch r[2] {
	case pointer:
		f.Focused = true
	case ' ':
	default:
		return ElicitField{}, false
	}
	switch r[4] {
	case '*':
		f.Required = true
	case '✔':
		f.Set = true
	case '⚠':
		f.Refused = true
	case ' ':
	default:
		return ElicitField{}, false
	}
	f.Line = string(r[6:])
	i := strings.Index(f.Line, ": ")
	if i <= 0 && !strings.HasSuffix(f.Line, ":") {
		return ElicitField{}, false
	}
	v := ""
	if i > 0 {
		v = strings.TrimSpace(f.Line[i+2:])
	}
	f.Open = v == "▾"
	f.Expandable = strings.HasPrefix(v, "▸")
	return f, true
}

// optionRow reads an open list's option: "        ❯ ◯ staging".
func optionRow(t string) (ElicitOption, bool) {
	r := []rune(t)
	if len(r) < 13 || strings.TrimSpace(string(r[:8])) != "" || r[9] != ' ' || r[11] != ' ' {
		return ElicitOption{}, false
	}
	var o ElicitOption
	switch r[8] {
	case pointer:
		o.Focused = true
	case ' ':
	default:
		return ElicitOption{}, false
	}
	switch r[10] {
	case '◯':
	case '◉':
		o.Checked = true
	case '☐':
		o.Box = true
	case '☒':
		o.Box, o.Checked = true, true
	default:
		return ElicitOption{}, false
	}
	o.Label = string(r[12:])
	return o, true
}

// buttonsRow reads "    Accept    Decline" and says which button the
// pointer is on.
func buttonsRow(t string) (string, bool) {
	switch strings.Join(strings.Fields(t), " ") {
	case "Accept Decline":
		return "", true
	case "❯ Accept Decline":
		return "Accept", true
	case "Accept ❯ Decline":
		return "Decline", true
	}
	return "", false
}

// scrollRow reads "    ↑ 2 more" and "    ↓ 1 more below".
func scrollRow(t string) (up, down, ok bool) {
	w := strings.Fields(t)
	if len(w) < 3 || w[2] != "more" || len(w) > 4 {
		return false, false, false
	}
	if len(w) == 4 && w[3] != "above" && w[3] != "below" {
		return false, false, false
	}
	return w[0] == "↑", w[0] == "↓", w[0] == "↑" || w[0] == "↓"
}
