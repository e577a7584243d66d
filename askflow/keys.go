package askflow

import "fmt"

// Keys as a terminal sends them.
const (
	keyUp    = "\x1b[A"
	keyDown  = "\x1b[B"
	keyEnter = "\r"
	keyEsc   = "\x1b"
	keyNotes = "n"  // preview layout: open the notes of the focused option
	keyTab   = "\t" // the next page, keeping a multi-select question's ticks
	// keyBackTab is shift+Tab (CSI Z), as xterm sends it.
	keyBackTab = "\x1b[Z"
	// Claude's prompt: delete from the cursor to the start of its line.
	keyKillLine = "\x15"
)

var keyNames = map[string]string{keyUp: "Up", keyDown: "Down", keyEnter: "Enter", keyEsc: "Esc", keyNotes: "n", keyTab: "Tab", keyKillLine: "Ctrl-U",
	keyRight: "Right", keyLeft: "Left", keySpace: "Space", keyBackTab: "shift+Tab"}

// keyName is keyName, with an option's number named as such (typed text
// may be a digit too).
func (r *runner) keyName(k string) string {
	if r.sendingNumber {
		return "number " + k
	}
	return keyName(k)
}

// keyName names k for a KeyEvent or an error.
func keyName(k string) string {
	if n, ok := keyNames[k]; ok {
		return n
	}
	return fmt.Sprintf("text %q", k)
}

// Undo is the key that takes back key, an arrow claudewrap sent, and both
// their names; ok is false for a key that cannot be taken back (Enter, Esc,
// text).
func Undo(key []byte) (undo []byte, name, undoName string, ok bool) {
	switch string(key) {
	case keyDown:
		return []byte(keyUp), "Down", "Up", true
	case keyUp:
		return []byte(keyDown), "Up", "Down", true
	}
	return nil, keyName(string(key)), "", false
}
