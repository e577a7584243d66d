package screen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Key is one key hint a waiting screen shows: the key and what pressing it
// does, as drawn. "Enter to stay in auto mode" is {Enter, stay in auto
// mode}; "Press Enter to continue…" is {Enter, continue}.
type Key struct {
	// Key is the key as named on the screen: "Enter", "Esc", "shift+Tab",
	// "ctrl+e", "↑/↓", "Tab/Arrow keys", "n".
	Key string
	// Does is what the key does, from the word after "to" to the end of
	// the hint, a trailing "…" left out.
	Does string
}

// The grammar of a footer of key hints: "Enter to confirm · Esc to cancel".
const (
	hintSep   = " · "
	hintTo    = " to "
	hintPress = "press "
	// footerLines bounds the lines a footer wraps over on a narrow screen.
	footerLines = 6
)

// keyNames are the keys a hint names by a word, in lower case; a single
// character ("n", "?", "↑") is a key too.
var keyNames = map[string]bool{
	"enter": true, "return": true, "esc": true, "escape": true, "tab": true, "space": true,
	"backspace": true, "delete": true, "del": true, "insert": true, "home": true, "end": true,
	"pgup": true, "pgdn": true, "pageup": true, "pagedown": true, "page up": true, "page down": true,
	"up": true, "down": true, "left": true, "right": true, "arrows": true, "arrow keys": true,
	"↑↓": true, "←→": true,
	"f1": true, "f2": true, "f3": true, "f4": true, "f5": true, "f6": true,
	"f7": true, "f8": true, "f9": true, "f10": true, "f11": true, "f12": true,
}

// keyModifiers may precede a key, joined by "+": "shift+Tab", "ctrl+e".
var keyModifiers = map[string]bool{
	"ctrl": true, "shift": true, "alt": true, "opt": true, "option": true, "cmd": true,
	"command": true, "meta": true, "super": true, "fn": true,
}

// parseFooter reads a footer of key hints: segments joined by " · ", the
// first of them a hint ("KEY to DOES" or "Press KEY to DOES"). A segment
// that is no hint (plan approval's "~/.claude/plans/….md") gives no key.
func parseFooter(text string) ([]Key, bool) {
	var keys []Key
	for i, seg := range strings.Split(text, hintSep) {
		k, ok := parseHint(strings.TrimSpace(seg))
		if !ok {
			if i == 0 {
				return nil, false
			}
			continue
		}
		keys = append(keys, k)
	}
	return keys, true
}

// parseHint reads one hint: "Esc to cancel", "Press Enter to continue…".
func parseHint(seg string) (Key, bool) {
	if len(seg) > len(hintPress) && strings.EqualFold(seg[:len(hintPress)], hintPress) {
		seg = seg[len(hintPress):]
	}
	k, does, ok := strings.Cut(seg, hintTo)
	does = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(does), "…"))
	if !ok || does == "" || !isKey(k) {
		return Key{}, false
	}
	return Key{Key: k, Does: does}, true
}

// isKey reports whether k names a key, or keys joined by "/" ("↑/↓",
// "y/n", "Tab/Arrow keys").
func isKey(k string) bool {
	if k == "" {
		return false
	}
	for _, part := range strings.Split(k, "/") {
		if !isOneKey(part) {
			return false
		}
	}
	return true
}

func isOneKey(k string) bool {
	for {
		m, rest, ok := strings.Cut(k, "+")
		if !ok || rest == "" || !keyModifiers[strings.ToLower(m)] {
			break
		}
		k = rest
	}
	if r, size := utf8.DecodeRuneInString(k); size == len(k) && size > 0 {
		return r != utf8.RuneError && !unicode.IsSpace(r) && !unicode.IsControl(r)
	}
	return keyNames[strings.ToLower(k)]
}

// findFooter finds a footer of key hints at the end of ls: the lowest lines
// of the last paragraph (at most footerLines of them) joined with spaces,
// from the highest line where they read as a footer. from is the index of
// its first line; ok is false when ls ends in no footer.
func findFooter(ls []line) (keys []Key, text string, from int, ok bool) {
	end := len(ls) - 1
	for end >= 0 && ls[end].blank() {
		end--
	}
	if end < 0 {
		return nil, "", 0, false
	}
	start := end
	for start > 0 && end-start+1 < footerLines && !ls[start-1].blank() && !isMarker(ls[start-1]) &&
		!isFrameLine(ls[start-1]) {
		start--
	}
	for k := start; k <= end; k++ {
		parts := make([]string, 0, end-k+1)
		for _, l := range ls[k : end+1] {
			parts = append(parts, strings.TrimSpace(l.text()))
		}
		joined := strings.Join(parts, " ")
		if keys, ok := parseFooter(joined); ok {
			return keys, joined, k, true
		}
	}
	return nil, "", 0, false
}
