package screen

import (
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

// Elicitation is an MCP server's input form (an elicitation) as Claude
// draws it: "MCP server “demo” requests your input", the server's message,
// the fields, Accept and Decline, and a footer of keys.
type Elicitation struct {
	Server string
	// Text is the form's whole text, from its title line down.
	Text string
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
		return Elicitation{Server: server, Text: strings.TrimRight(strings.Join(text, "\n"), "\n")}, true
	}
	return Elicitation{}, false
}
