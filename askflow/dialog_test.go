package askflow

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/vt"
)

// fakeDialog draws a permission prompt on an emulated screen and moves its
// pointer as Claude would; change, if set, redraws another dialog instead
// of moving when the nth key arrives.
type fakeDialog struct {
	em      vt.Emulator
	mu      sync.Mutex
	options []string
	focus   int
	keys    []string
	change  int // 1-based key that swaps the dialog for another; 0 never
	done    bool
	// typed is the text on the row that takes text (its label starts with
	// "Tell Claude"), shown in place of the label; echo, if set, changes
	// what is shown of it.
	typed string
	echo  func(string) string
}

func newFakeDialog(options ...string) *fakeDialog {
	d := &fakeDialog{em: screen.New(screen.Options{Cols: 80, Rows: 20}), options: options}
	d.draw("Bash command", "Do you want to proceed?")
	return d
}

func (d *fakeDialog) draw(title, prompt string) {
	var b strings.Builder
	b.WriteString("\x1b[2J\x1b[H")
	b.WriteString("● Bash(rm -rf build)\r\n\r\n")
	b.WriteString(strings.Repeat("─", 80) + "\r\n")
	b.WriteString(" " + title + "\r\n\r\n   rm -rf build\r\n\r\n " + prompt + "\r\n")
	for i, o := range d.options {
		mark := "  "
		if i == d.focus {
			mark = "❯ "
		}
		if d.typed != "" && strings.HasPrefix(o, "Tell Claude") {
			o = d.typed
		}
		b.WriteString(" " + mark + string(rune('1'+i)) + ". " + o + "\r\n")
	}
	b.WriteString("\r\n Esc to cancel · Tab to amend\r\n")
	d.em.Write([]byte(b.String()))
}

func (d *fakeDialog) SendKeys(p []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.keys = append(d.keys, keyNames[string(p)])
	if d.change == len(d.keys) {
		d.options = []string{"Yes", "Yes, and don't ask again for rm commands", "No"}
		d.draw("Bash command", "Do you want to run this other command?")
		return nil
	}
	switch string(p) {
	default:
		d.keys[len(d.keys)-1] = "text"
		if strings.HasPrefix(d.options[d.focus], "Tell Claude") {
			d.typed += string(p)
			if d.echo != nil {
				d.typed = d.echo(d.typed)
			}
		}
	case keyDown:
		d.focus = min(d.focus+1, len(d.options)-1)
	case keyUp:
		d.focus = max(d.focus-1, 0)
	case keyEnter:
		d.done = true
		d.em.Write([]byte("\x1b[2J\x1b[H● Bash(rm -rf build)\r\n  ⎿  Done\r\n"))
		return nil
	}
	d.draw("Bash command", "Do you want to proceed?")
	return nil
}

func (d *fakeDialog) sent() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.keys...)
}

func dialogConfig(d *fakeDialog) DialogConfig {
	return DialogConfig{Screen: d.em, Keys: d, StepTimeout: 200 * time.Millisecond}
}

// TestChooseDialog: the option is reached one confirmed key at a time, and
// Enter goes only with the pointer on it.
func TestChooseDialog(t *testing.T) {
	d := newFakeDialog("Yes", "Yes, and always allow access to build/ from this project", "No")
	shown, ok := screen.ParseDialog(d.em.Snapshot())
	if !ok || shown.Kind != screen.PermissionDialog || len(shown.Options) != 3 {
		t.Fatalf("dialog %+v %v", shown, ok)
	}
	cfg := dialogConfig(d)
	var seen []string
	cfg.OnKey = func(k KeyEvent) { seen = append(seen, k.Key+": "+k.Before+" → "+k.After) }
	keys, err := Choose(context.Background(), cfg, shown, "No")
	if err != nil || keys != 3 || strings.Join(d.sent(), " ") != "Down Down Enter" || !d.done {
		t.Fatalf("keys %d %v, sent %v, done %v", keys, err, d.sent(), d.done)
	}
	// Each key is told with the focus it was pressed on: Enter on "No".
	if want := "Down: Yes → Yes, and always allow access to build/ from this project|" +
		"Down: Yes, and always allow access to build/ from this project → No|Enter: No → "; strings.Join(seen, "|") != want {
		t.Errorf("key events:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.ReplaceAll(want, "|", "\n"))
	}
	// A label's first words name it too.
	d = newFakeDialog("Yes", "Yes, and always allow access to build/ from this project", "No")
	shown, _ = screen.ParseDialog(d.em.Snapshot())
	if _, err := Choose(context.Background(), dialogConfig(d), shown, "Yes, and always allow"); err != nil || d.focus != 1 {
		t.Fatalf("by first words: %v, focus %d", err, d.focus)
	}
}

// TestChooseDialogChanged: a dialog that changes under the wrapper gets no
// committing key: the first Down lands on another dialog, and nothing more
// is pressed, Enter least of all.
func TestChooseDialogChanged(t *testing.T) {
	d := newFakeDialog("Yes", "Yes, and always allow access to build/ from this project", "No")
	d.change = 1
	shown, _ := screen.ParseDialog(d.em.Snapshot())
	_, err := Choose(context.Background(), dialogConfig(d), shown, "No")
	var ae *Error
	if !errors.As(err, &ae) || strings.Join(d.sent(), " ") != "Down" || d.done {
		t.Fatalf("want an error after the one Down, got %v, sent %v, done %v", err, d.sent(), d.done)
	}
	// Asked for a label the dialog does not offer: nothing at all.
	d = newFakeDialog("Yes", "No")
	shown, _ = screen.ParseDialog(d.em.Snapshot())
	if _, err := Choose(context.Background(), dialogConfig(d), shown, "Maybe"); err == nil || len(d.sent()) != 0 {
		t.Fatalf("unknown label: %v, sent %v", err, d.sent())
	}
}

// TestChooseText: feedback goes on the row that takes text, as one line,
// and Enter only once the row shows it; a row showing other text gets no
// Enter.
func TestChooseText(t *testing.T) {
	opts := []string{"Yes, and use auto mode", "Yes, manually approve edits", "Tell Claude what to change"}
	d := newFakeDialog(opts...)
	shown, _ := screen.ParseDialog(d.em.Snapshot())
	keys, err := ChooseText(context.Background(), dialogConfig(d), shown, "Tell Claude what to change", "Split step 2\nin two")
	if err != nil || keys != 4 || strings.Join(d.sent(), " ") != "Down Down text Enter" || !d.done || d.typed != "Split step 2 in two" {
		t.Fatalf("keys %d %v, sent %v, done %v, typed %q", keys, err, d.sent(), d.done, d.typed)
	}
	d = newFakeDialog(opts...)
	d.echo = func(s string) string { return s + s } // the text shows twice
	shown, _ = screen.ParseDialog(d.em.Snapshot())
	_, err = ChooseText(context.Background(), dialogConfig(d), shown, "Tell Claude what to change", "Split step 2")
	if err == nil || d.done || strings.Contains(strings.Join(d.sent(), " "), "Enter") {
		t.Fatalf("text shown wrong: want no Enter, got %v, sent %v", err, d.sent())
	}
}

// hintScreen is a dialog with no menu, only key hints (auto mode's when
// its check cannot run): a key it names takes it away, any other leaves it.
type hintScreen struct {
	em   vt.Emulator
	mu   sync.Mutex
	keys []string
}

func newHintScreen() *hintScreen {
	h := &hintScreen{em: screen.New(screen.Options{Cols: 100, Rows: 20})}
	h.em.Write([]byte("\x1b[2J\x1b[H● Bash(curl -s http://127.0.0.1:9/x | sh)\r\n  ⎿  Waiting…\r\n\r\n" + strings.Repeat("─", 100) + "\r\n" +
		"  Auto mode can't check actions in this session\r\n\r\n  Auto mode's safety check runs on the server.\r\n\r\n" +
		"  Enter to stay in auto mode · shift+Tab to leave for accept edits mode and stop · Esc to cancel\r\n"))
	return h
}

func (h *hintScreen) SendKeys(p []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.keys = append(h.keys, string(p))
	if string(p) == "\x1b[Z" {
		h.em.Write([]byte("\x1b[2J\x1b[H● Bash(curl -s http://127.0.0.1:9/x | sh)\r\n  ⎿  Waiting…\r\n"))
	}
	return nil
}

// TestPressKey: a dialog with no menu is answered by a key its hints name
// (shift+Tab here), pressed once the dialog stands still, and done when it
// goes; a key it does not name is never pressed.
func TestPressKey(t *testing.T) {
	h := newHintScreen()
	d, ok := screen.ParseDialog(h.em.Snapshot())
	if !ok || len(d.Keys) != 3 {
		t.Fatalf("the dialog reads %+v %t", d, ok)
	}
	cfg := DialogConfig{Screen: h.em, Keys: h, StepTimeout: 2 * time.Second}
	if _, err := PressKey(context.Background(), cfg, d, "ctrl+e"); err == nil || len(h.keys) != 0 {
		t.Fatalf("a key the dialog does not name: %v, keys %q", err, h.keys)
	}
	n, err := PressKey(context.Background(), cfg, d, "shift+Tab")
	if err != nil || n != 1 || len(h.keys) != 1 || h.keys[0] != "\x1b[Z" {
		t.Fatalf("shift+Tab: %d keys %q, %v", n, h.keys, err)
	}
	var e *Error
	if _, err := PressKey(context.Background(), cfg, d, "Enter"); !errors.As(err, &e) || e.Step != "agree" {
		t.Errorf("the dialog gone, a second key: %v", err)
	}
}
