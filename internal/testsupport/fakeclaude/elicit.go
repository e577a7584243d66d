package fakeclaude

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/claudewrap/claudewrap/vt"
)

// MCPField is one field of a [MCPForm]: Kind is "enum", "bool", "text",
// "number" or "multi".
type MCPField struct {
	Name, Title, Kind string
	Options           []string
	Required          bool
}

// FullMCPSchema is an MCP form's schema with every kind of field: an enum,
// a boolean, a string, a number and a multi-select (the recordings'
// testdata/screens/*/elicit-*); FullMCPFields are its fields for an
// [MCPForm].
const FullMCPSchema = `{"type":"object","properties":{` +
	`"env":{"type":"string","title":"Environment","enum":["staging","production"]},` +
	`"confirm":{"type":"boolean","title":"Really deploy?"},` +
	`"note":{"type":"string","title":"Note"},` +
	`"count":{"type":"number","title":"Replicas"},` +
	`"regions":{"type":"array","title":"Regions","items":{"type":"string","enum":["eu","us","asia"]}}},"required":["env"]}`

// FullMCPFields returns FullMCPSchema's fields.
func FullMCPFields() []MCPField {
	return []MCPField{
		{Name: "env", Title: "Environment", Kind: "enum", Options: []string{"staging", "production"}, Required: true},
		{Name: "confirm", Title: "Really deploy?", Kind: "bool"},
		{Name: "note", Title: "Note", Kind: "text"},
		{Name: "count", Title: "Replicas", Kind: "number"},
		{Name: "regions", Title: "Regions", Kind: "multi", Options: []string{"eu", "us", "asia"}},
	}
}

// MCPForm is a model of Claude Code's MCP input form (an elicitation) as
// the recordings show it (testdata/screens/*/elicit-*): fields with a
// pointer and a mark, an enum's or multi-select's list opened with →,
// Accept and Decline, Up and Down walking one ring of them all. It draws
// into an emulator and takes keys at once; Done is closed when the form is
// answered, and Action and Content say how.
type MCPForm struct {
	em     vt.Emulator
	server string
	fields []MCPField
	// Window, if above 0, is how many fields show at once, with "↑ N more"
	// and "↓ N more" around them.
	Window int

	mu      sync.Mutex
	focus   int // a field, len(fields) Accept, len(fields)+1 Decline
	open    bool
	opt     int
	values  map[string]any // text, bool, or []string for a multi-select
	typed   map[string]string
	top     int
	keys    []string
	action  string
	content map[string]any
	done    chan struct{}
}

// NewMCPForm draws server's form with fields on em.
func NewMCPForm(em vt.Emulator, server string, fields []MCPField) *MCPForm {
	f := &MCPForm{em: em, server: server, fields: fields, values: map[string]any{}, typed: map[string]string{}, done: make(chan struct{})}
	f.mu.Lock()
	f.drawLocked()
	f.mu.Unlock()
	return f
}

// Done is closed once the form was answered.
func (f *MCPForm) Done() <-chan struct{} { return f.done }

// Result is the answer: "accept", "decline" or "cancel", and accept's
// content ("" until answered).
func (f *MCPForm) Result() (string, map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.action, f.content
}

// Keys are the keys taken so far, named.
func (f *MCPForm) Keys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.keys)
}

// Set gives a field a value as a person would have.
func (f *MCPForm) Set(name string, v any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.values[name] = v
	f.drawLocked()
}

// Redraw draws the form again.
func (f *MCPForm) Redraw() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.action == "" {
		f.drawLocked()
	}
}

// SendKeys takes one key (or typed text) and draws its effect.
func (f *MCPForm) SendKeys(p []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.action != "" {
		return nil
	}
	k := string(p)
	n := len(f.fields)
	name := map[string]string{"\x1b[A": "Up", "\x1b[B": "Down", "\x1b[C": "Right", "\x1b[D": "Left", " ": "Space", "\r": "Enter", "\x1b": "Esc"}[k]
	if name == "" {
		name = "text " + strconv.Quote(k)
	}
	f.keys = append(f.keys, name)
	var fld *MCPField
	if f.focus < n {
		fld = &f.fields[f.focus]
	}
	switch {
	case f.open && (k == "\x1b[A" || k == "\x1b[B"):
		if k == "\x1b[A" {
			f.opt = max(f.opt-1, 0)
		} else {
			f.opt = min(f.opt+1, len(fld.Options)-1)
		}
	case f.open && (k == " " || k == "\r"):
		o := fld.Options[f.opt]
		if fld.Kind == "enum" {
			f.values[fld.Name], f.open = o, false
			if k == "\r" {
				f.focus++
			}
			break
		}
		if k == "\r" {
			f.open = false
			f.focus++
			break
		}
		ticked, _ := f.values[fld.Name].([]string)
		if i := slices.Index(ticked, o); i >= 0 {
			ticked = slices.Delete(slices.Clone(ticked), i, i+1)
		} else {
			ticked = append(slices.Clone(ticked), o)
		}
		f.values[fld.Name] = ticked
	case f.open && (k == "\x1b[D" || k == "\x1b"):
		f.open = false
	case k == "\x1b[A":
		f.focus = (f.focus + n + 1) % (n + 2)
	case k == "\x1b[B":
		f.focus = (f.focus + 1) % (n + 2)
	case k == "\x1b[C" && f.focus >= n:
		f.focus = n + (f.focus-n+1)%2
	case k == "\x1b[D" && f.focus >= n:
		f.focus = n + (f.focus-n+1)%2
	case k == "\x1b[C" && (fld.Kind == "enum" || fld.Kind == "multi"):
		f.open, f.opt = true, 0
		if v, ok := f.values[fld.Name].(string); ok && fld.Kind == "enum" {
			f.opt = max(slices.Index(fld.Options, v), 0)
		}
	case k == " " && fld != nil && fld.Kind == "bool":
		v, _ := f.values[fld.Name].(bool)
		f.values[fld.Name] = !v
	case k == "\r" && f.focus == n:
		f.finish("accept")
		return nil
	case k == "\r" && f.focus == n+1:
		f.finish("decline")
		return nil
	case k == "\r" && fld != nil:
		f.focus++
	case k == "\x1b":
		f.finish("cancel")
		return nil
	case fld != nil && (fld.Kind == "text" || fld.Kind == "number") && !strings.HasPrefix(k, "\x1b") && k >= " ":
		f.typed[fld.Name] += k
		f.values[fld.Name] = f.typed[fld.Name]
	}
	f.drawLocked()
	return nil
}

func (f *MCPForm) finish(action string) {
	f.action = action
	if action == "accept" {
		f.content = map[string]any{}
		for _, fld := range f.fields {
			v, ok := f.values[fld.Name]
			if !ok {
				continue
			}
			if fld.Kind == "number" {
				n, err := strconv.ParseFloat(v.(string), 64)
				if err != nil {
					continue
				}
				v = n
			}
			f.content[fld.Name] = v
		}
	}
	_, _ = f.em.Write([]byte("\x1b[2J\x1b[H● I will deploy.\r\n  Called " + f.server + "\r\n"))
	close(f.done)
}

func (f *MCPForm) drawLocked() {
	n := len(f.fields)
	var b strings.Builder
	b.WriteString("\x1b[2J\x1b[H● I will deploy.\r\n\r\n● Calling " + f.server + "…\r\n\r\n")
	b.WriteString(strings.Repeat("─", 60) + "\r\n")
	fmt.Fprintf(&b, "  MCP server “%s” requests your input\r\n\r\n  Which environment should I deploy to?\r\n\r\n", f.server)
	from, to := 0, n
	if f.Window > 0 && f.Window < n {
		if f.focus < n {
			if f.focus < f.top {
				f.top = f.focus
			}
			if f.focus >= f.top+f.Window {
				f.top = f.focus - f.Window + 1
			}
		} else {
			f.top = n - f.Window // the buttons: the last fields show
		}
		from, to = f.top, f.top+f.Window
	}
	if from > 0 {
		fmt.Fprintf(&b, "    ↑ %d more\r\n", from)
	}
	for i := from; i < to; i++ {
		fld := f.fields[i]
		ptr, mark := "  ", "  "
		if i == f.focus {
			ptr = "❯ "
		}
		v, set := f.values[fld.Name]
		switch {
		case set:
			mark = "✔ "
		case fld.Required:
			mark = "* "
		}
		shown := "not set"
		switch {
		case f.open && i == f.focus:
			shown = "▾"
		case fld.Kind == "bool" && (set || i == f.focus):
			shown = "☐"
			if b, _ := v.(bool); b {
				shown = "☒"
			}
		case fld.Kind == "multi" && set:
			shown = strings.Join(v.([]string), ", ")
		case set:
			shown = fmt.Sprint(v)
		case (fld.Kind == "text" || fld.Kind == "number") && i == f.focus:
			shown = "Type something…"
		}
		if (fld.Kind == "enum" || fld.Kind == "multi") && i == f.focus && !f.open {
			shown = "▸ " + shown
		}
		fmt.Fprintf(&b, "  %s%s%s: %s\r\n", ptr, mark, fld.Title, shown)
		if f.open && i == f.focus {
			for j, o := range fld.Options {
				p := "  "
				if j == f.opt {
					p = "❯ "
				}
				box := "◯"
				if fld.Kind == "enum" && v == o {
					box = "◉"
				}
				if fld.Kind == "multi" {
					box = "☐"
					if t, _ := v.([]string); slices.Contains(t, o) {
						box = "☒"
					}
				}
				fmt.Fprintf(&b, "        %s%s %s\r\n", p, box, o)
			}
		}
	}
	if to < n {
		fmt.Fprintf(&b, "    ↓ %d more\r\n", n-to)
	}
	switch f.focus {
	case n:
		b.WriteString("  ❯ Accept    Decline\r\n")
	case n + 1:
		b.WriteString("    Accept  ❯ Decline\r\n")
	default:
		b.WriteString("    Accept    Decline\r\n")
	}
	b.WriteString("\r\n  Esc to cancel · ↑/↓ to navigate\r\n")
	_, _ = f.em.Write([]byte(b.String()))
}
