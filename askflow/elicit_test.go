package askflow

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/screen"
)

var mcpFields = fakeclaude.FullMCPFields()

var mcpTitles = []string{"Environment", "Really deploy?", "Note", "Replicas", "Regions"}

// keysThen sends keys to the form and calls after once the nth key went.
type keysThen struct {
	form  *fakeclaude.MCPForm
	n     int
	after func()
	sent  int
}

func (k *keysThen) SendKeys(p []byte) error {
	err := k.form.SendKeys(p)
	k.sent++
	if k.sent == k.n && k.after != nil {
		k.after()
	}
	return err
}

func newMCPForm(window int) (*fakeclaude.MCPForm, Screen) {
	em := screen.New(screen.Options{Cols: 60, Rows: 30})
	f := fakeclaude.NewMCPForm(em, "demo", mcpFields)
	f.Window = window
	f.Redraw()
	return f, em
}

func elicitCfg(sc Screen, keys Keys, action string, values ...ElicitValue) ElicitConfig {
	return ElicitConfig{Screen: sc, Keys: keys, Server: "demo", Titles: mcpTitles, Action: action, Values: values,
		FormTimeout: 2 * time.Second, StepTimeout: time.Second}
}

var allValues = []ElicitValue{
	{Title: "Regions", Kind: ElicitMulti, List: []string{"asia", "eu"}},
	{Title: "Environment", Kind: ElicitEnum, Text: "production"},
	{Title: "Really deploy?", Kind: ElicitBool, Bool: false},
	{Title: "Note", Kind: ElicitText, Text: "ship it"},
	{Title: "Replicas", Kind: ElicitText, Text: "3"},
}

// TestElicitAccept: every kind of field set on the screen, in the form's
// order whatever the answer's, with all fields in sight and with a window
// of two that scrolls; the form gets exactly the values, and Accept.
func TestElicitAccept(t *testing.T) {
	for _, window := range []int{0, 2} {
		f, sc := newMCPForm(window)
		keys, err := Elicit(context.Background(), elicitCfg(sc, f, "accept", allValues...))
		if err != nil {
			t.Fatalf("window %d: %v", window, err)
		}
		action, content := f.Result()
		want := map[string]any{"env": "production", "confirm": false, "note": "ship it", "count": 3.0, "regions": []string{"eu", "asia"}}
		if action != "accept" || !reflect.DeepEqual(content, want) {
			t.Fatalf("window %d: the form got %s %v, want accept %v; keys %v", window, action, content, want, f.Keys())
		}
		if keys != len(f.Keys()) {
			t.Errorf("window %d: %d keys counted, %d sent", window, keys, len(f.Keys()))
		}
	}
}

// TestElicitDeclineCancel: decline walks to Decline and presses Enter;
// cancel is Esc.
func TestElicitDeclineCancel(t *testing.T) {
	for _, action := range []string{"decline", "cancel"} {
		f, sc := newMCPForm(0)
		if _, err := Elicit(context.Background(), elicitCfg(sc, f, action)); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.Result(); got != action {
			t.Fatalf("the form got %q, want %q; keys %v", got, action, f.Keys())
		}
	}
}

// TestElicitAlreadySet: a value the form shows already is left as it is;
// an enum showing another option is chosen again.
func TestElicitAlreadySet(t *testing.T) {
	f, sc := newMCPForm(0)
	f.Set("env", "staging")
	f.Set("confirm", true)
	_, err := Elicit(context.Background(), elicitCfg(sc, f, "accept",
		ElicitValue{Title: "Environment", Kind: ElicitEnum, Text: "production"},
		ElicitValue{Title: "Really deploy?", Kind: ElicitBool, Bool: true}))
	if err != nil {
		t.Fatal(err)
	}
	if a, c := f.Result(); a != "accept" || c["env"] != "production" || c["confirm"] != true {
		t.Fatalf("the form got %s %v; keys %v", a, c, f.Keys())
	}
}

// TestElicitChangedUnder: a value set on the screen changes under the
// driver (the person, another program): it presses nothing more, never
// Accept, and says what the screen showed.
func TestElicitChangedUnder(t *testing.T) {
	f, sc := newMCPForm(0)
	k := &keysThen{form: f, n: 4, after: func() { f.Set("env", "staging") }}
	_, err := Elicit(context.Background(), elicitCfg(sc, k, "accept", allValues...))
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("want an *Error, got %v; keys %v", err, f.Keys())
	}
	if a, _ := f.Result(); a != "" {
		t.Fatalf("the form was answered %s; keys %v", a, f.Keys())
	}
	if n := len(f.Keys()); n != 4 {
		t.Errorf("%d keys sent, want none after the 4th: %v", n, f.Keys())
	}
}

// TestElicitOtherForm: a form with other fields than the answer's is never
// touched.
func TestElicitOtherForm(t *testing.T) {
	f, sc := newMCPForm(0)
	cfg := elicitCfg(sc, f, "accept", ElicitValue{Title: "Environment", Kind: ElicitEnum, Text: "staging"})
	cfg.Titles = []string{"Environment", "Really deploy?"}
	cfg.FormTimeout = 300 * time.Millisecond
	if _, err := Elicit(context.Background(), cfg); err == nil || len(f.Keys()) != 0 {
		t.Fatalf("want an error and no key, got %v and %v", err, f.Keys())
	}
}

// TestElicitInterrupted: the person's key ends the lease; the driver stops
// with ErrInterrupted.
func TestElicitInterrupted(t *testing.T) {
	f, sc := newMCPForm(0)
	ctx, cancel := context.WithCancel(context.Background())
	k := &keysThen{form: f, n: 2, after: cancel}
	_, err := Elicit(ctx, elicitCfg(sc, k, "accept", allValues...))
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
	if a, _ := f.Result(); a != "" || len(f.Keys()) != 2 {
		t.Fatalf("the form got %q after %v", a, f.Keys())
	}
}
