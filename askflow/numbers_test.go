package askflow_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
	"github.com/claudewrap/claudewrap/vt"
)

// numbers has askflow answer by options' numbers where it may (the
// default; drive walks unless told).
func numbers(c *askflow.Config) { c.Walk = false }

// keyNames names what the fake received, as the events do.
func keyNames(fc *fakeClaude) []string {
	names := map[string]string{"\x1b[A": "Up", "\x1b[B": "Down", "\r": "Enter", "\t": "Tab", "\x1b": "Esc"}
	var got []string
	for _, k := range fc.Received() {
		if n, ok := names[k.Keys]; ok {
			got = append(got, n)
		} else {
			got = append(got, k.Keys)
		}
	}
	return got
}

// TestNumberKeys: an option's number commits a single-select question and
// ticks a multi-select one (as every pinned version does:
// testdata/screens/*/digit-*), one key for a walk of several; the walk
// stays where a number would not mean that option (the focus on "Type
// something", a preview page, a multi-select page not shown whole), and
// where a number left no trace. Nothing is ever recorded but the intended
// answers.
func TestNumberKeys(t *testing.T) {
	tests := []struct {
		name string
		qs   []fq
		ds   []answer.Decision
		f    faults
		edit func(*fakeForm) // the form before the first key
		rows int
		keys []string // nil: not checked
		// numbers, if set, is how many number keys may go (with the focus
		// on Type something, none).
		numbers int
		want    map[string]string // nil: nothing recorded
		step    string            // the failing step; "" for none
	}{
		{name: "single by its number", qs: []fq{database}, ds: []answer.Decision{sel("MongoDB")},
			keys: []string{"3"}, want: wantAnswers([]fq{database}, "MongoDB")},
		{name: "the focus on the option already: Enter", qs: []fq{database}, ds: []answer.Decision{sel("PostgreSQL")},
			keys: []string{"Enter"}, want: wantAnswers([]fq{database}, "PostgreSQL")},
		{name: "three questions", qs: []fq{database, features, naming},
			ds:   []answer.Decision{sel("MongoDB"), sel("Auth", "API"), sel("snake_case")},
			keys: []string{"3", "Enter", "4", "Tab", "2", "Enter"},
			want: wantAnswers([]fq{database, features, naming}, "MongoDB", "Auth, API", "snake_case")},
		{name: "ticks in the asked order", qs: []fq{features, naming}, ds: []answer.Decision{sel("API", "Search", "Auth"), sel("camelCase")},
			keys: []string{"4", "3", "Enter", "Tab", "Enter", "Enter"},
			want: wantAnswers([]fq{features, naming}, "API, Search, Auth", "camelCase")},
		// Claude refuses a key typed ahead without a trace: the form is
		// then walked, after the guard's wait.
		{name: "a swallowed number: walked", qs: []fq{database}, ds: []answer.Decision{sel("MongoDB")},
			f: faults{Swallow: map[int]bool{1: true}}, keys: []string{"3", "Down", "Down", "Enter"},
			want: wantAnswers([]fq{database}, "MongoDB")},
		{name: "a refused number: walked", qs: []fq{database, naming}, ds: []answer.Decision{sel("SQLite"), sel("kebab-case")},
			f: faults{Refuse: map[int]bool{1: true}}, keys: []string{"2", "Down", "Enter", "3", "Enter"},
			want: wantAnswers([]fq{database, naming}, "SQLite", "kebab-case")},
		{name: "numbers never take", qs: []fq{database}, ds: []answer.Decision{sel("SQLite")},
			f: faults{Ignore: true}, step: "move"},
		{name: "a slow number is not followed by a walk", qs: []fq{database, naming}, ds: []answer.Decision{sel("SQLite"), sel("kebab-case")},
			f: faults{Delay: map[int]time.Duration{1: 700 * time.Millisecond}}, keys: []string{"2", "3", "Enter"},
			want: wantAnswers([]fq{database, naming}, "SQLite", "kebab-case")},
		// Taken after its wait ended (Claude reads keys in order): the
		// moves of the walk land on the next page, go unconfirmed, and
		// nothing but moves is pressed after the number.
		{name: "a number taken after its wait", qs: []fq{database, naming}, ds: []answer.Decision{sel("SQLite"), sel("kebab-case")},
			f: faults{Delay: map[int]time.Duration{1: 2500 * time.Millisecond}}, numbers: 1, step: "move"},
		// A tick's number is sent again; its first copy, taken late,
		// unticks the option, and the page is not left.
		{name: "a tick's number taken after it was sent again", qs: []fq{features, naming}, ds: []answer.Decision{sel("Auth", "API"), sel("camelCase")},
			f: faults{Delay: map[int]time.Duration{2: 2500 * time.Millisecond}}, step: "tick"},
		{name: "a swallowed tick by number is sent again", qs: []fq{features, naming}, ds: []answer.Decision{sel("Auth", "API"), sel("camelCase")},
			f: faults{Swallow: map[int]bool{2: true}}, keys: []string{"Enter", "4", "4", "Tab", "Enter", "Enter"},
			want: wantAnswers([]fq{features, naming}, "Auth, API", "camelCase")},
		{name: "an option gone before its number", qs: []fq{features}, ds: []answer.Decision{sel("Auth", "API")},
			f: faults{ChangeAfter: 1, Change: func(qs []fq) { qs[0].Options = qs[0].Options[:3] }}, keys: []string{"Enter"}, step: "tick"},
		{name: "a label changed before the number", qs: []fq{database, naming}, ds: []answer.Decision{sel("PostgreSQL"), sel("kebab-case")},
			f: faults{ChangeAfter: 1, Change: func(qs []fq) { qs[1].Options[2].Label = "SCREAMING_CASE" }}, keys: []string{"Enter"}, step: "agree"},
		// With the focus on "Type something" a number would be typed there.
		{name: "the focus on Type something: walked", qs: []fq{database}, ds: []answer.Decision{sel("SQLite")},
			edit: func(f *fakeForm) { f.Focus[0] = otherPos(database) }, keys: []string{"Up", "Up", "Enter"},
			want: wantAnswers([]fq{database}, "SQLite")},
		{name: "the focus on Type something, multi-select: walked", qs: []fq{features}, ds: []answer.Decision{sel("Export")},
			edit: func(f *fakeForm) { f.Focus[0] = otherPos(features) },
			want: wantAnswers([]fq{features}, "Export")},
		{name: "a preview page: walked", qs: []fq{layout, theme}, ds: []answer.Decision{sel("Minimal"), sel("Light")},
			keys: []string{"Down", "Down", "Enter", "2", "Enter"},
			want: wantAnswers([]fq{layout, theme}, "Minimal", "Light")},
		// A page taller than the screen, option 1 above its top: the list
		// does not show from option 1, and numbers are not used there.
		{name: "a single-select page taller than the screen: walked", qs: []fq{naming, hosting}, rows: 18,
			ds:      []answer.Decision{sel("snake_case"), sel("Our own racks")},
			numbers: 1, // snake_case's
			want:    wantAnswers([]fq{naming, hosting}, "snake_case", "Our own racks")},
		// A multi-select page not shown whole: the walk sees every tick.
		{name: "a multi-select page taller than the screen: walked", qs: []fq{naming, hostingMulti()}, rows: 18,
			ds:      []answer.Decision{sel("snake_case"), sel("Our own racks", "Serverless functions")},
			numbers: 1, // snake_case's
			want:    wantAnswers([]fq{naming, hostingMulti()}, "snake_case", "Our own racks, Serverless functions")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows := tt.rows
			if rows == 0 {
				rows = 40
			}
			cols := 100
			if tt.rows != 0 {
				cols = 60
			}
			fc := newFake(t, tt.qs, cols, rows, tt.f)
			if tt.edit != nil {
				fc.Edit(tt.edit)
			}
			step := patient
			if tt.step != "" {
				step = func(c *askflow.Config) { c.FormTimeout = 600 * time.Millisecond }
			}
			_, err := drive(t, context.Background(), fc, hookOf(tt.qs), tt.ds, step, numbers)
			got := keyNames(fc)
			if tt.step != "" {
				if ae := asError(t, err); ae.Step != tt.step {
					t.Errorf("failed at step %q, want %q", ae.Step, tt.step)
				}
			} else if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if tt.keys != nil && !reflect.DeepEqual(got, tt.keys) {
				t.Errorf("keys %q, want %q", got, tt.keys)
			}
			if n := countNumbers(got); (tt.edit != nil || tt.numbers > 0) && n > tt.numbers {
				t.Errorf("keys %q: %d numbers, want at most %d", got, n, tt.numbers)
			}
			if tt.step == "move" && slices.Contains(got, "Enter") {
				t.Errorf("keys %q: Enter after a walk that failed", got)
			}
			if tt.want == nil {
				checkNothingSubmitted(t, fc)
			} else {
				checkSubmitted(t, fc, tt.want)
			}
			checkEnters(t, fc, tt.qs, tt.ds)
		})
	}
}

// TestGuardedFormWaitsForNumber: a number commits like an Enter, so on a
// form Claude may guard against keys typed ahead it comes no sooner than
// 150 ms after the form was drawn.
func TestGuardedFormWaitsForNumber(t *testing.T) {
	t.Parallel()
	drawn := time.Now()
	fc, st := timedFake(t, faults{})
	res, err := drive(t, context.Background(), fc, hookOf([]fq{database}), []answer.Decision{sel("MongoDB")}, patient, numbers,
		func(c *askflow.Config) { c.LastKey = time.Now })
	if err != nil || res.Outcome != askflow.Submitted {
		t.Fatalf("Run: %v, %v", res.Outcome, err)
	}
	if got := keyNames(fc); !reflect.DeepEqual(got, []string{"3"}) {
		t.Fatalf("keys %q, want the number alone", got)
	}
	sent, _ := st.keys()
	if d := sent[1].Sub(drawn); d < 150*time.Millisecond {
		t.Errorf("the number was sent %v after the form was drawn, want at least 150ms", d)
	}
}

// TestStrayMoveBeforeNumber: a move another form's driver sent just before
// it gave the screen up lands on this form late, during the guard's wait
// before a number, and wraps its focus to "Type something" (2.1.197,
// stress seed 1764045000 s045; testdata/screens/2.1.197/stress-5000-s045-80x16).
// A number would now be typed there: the form is walked instead, and
// answered as intended, with no number key. Without the walk askflow
// waited for a focus on an option that never came, and fell back.
func TestStrayMoveBeforeNumber(t *testing.T) {
	for _, tt := range []struct {
		name string
		q    fq
		d    answer.Decision
		keys []string
		want string
	}{
		{"a single-select number", database, sel("MongoDB"), []string{"Up", "Enter"}, "MongoDB"},
		{"a tick's number", features, sel("Search"), []string{"Up", "Up", "Enter", "Tab", "Enter"}, "Search"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fc := newFake(t, []fq{tt.q}, 100, 40, faults{})
			calls := 0
			res, err := drive(t, context.Background(), fc, hookOf([]fq{tt.q}), []answer.Decision{tt.d}, patient, numbers,
				func(c *askflow.Config) {
					c.LastKey = time.Now // guarded
					c.LastAsked = func() time.Time {
						if calls++; calls == 1 {
							fc.Edit(func(f *fakeForm) { f.Focus[0] = otherPos(tt.q) })
						}
						return time.Now()
					}
				})
			if err != nil || res.Outcome != askflow.Submitted {
				t.Fatalf("Run: %v, %v", res.Outcome, err)
			}
			if calls == 0 {
				t.Fatal("the guard's wait never looked at LastAsked: the stray move was not made")
			}
			got := keyNames(fc)
			if !reflect.DeepEqual(got, tt.keys) {
				t.Errorf("keys %q, want %q: the walk from Type something", got, tt.keys)
			}
			if n := countNumbers(got); n != 0 {
				t.Errorf("keys %q: %d numbers sent with the focus on Type something", got, n)
			}
			checkSubmitted(t, fc, wantAnswers([]fq{tt.q}, tt.want))
		})
	}
}

// countNumbers counts the number keys among keys.
func countNumbers(keys []string) int {
	n := 0
	for _, k := range keys {
		if len(k) == 1 && k >= "1" && k <= "9" {
			n++
		}
	}
	return n
}

// TestSwapDuringGuardNumbers: TestSwapDuringGuard for a number. Another
// form swapped in during the guard's wait before it gets no key but moves.
func TestSwapDuringGuardNumbers(t *testing.T) {
	for _, tt := range []struct {
		name      string
		qs        []fq
		ds        []answer.Decision
		elsewhere bool
	}{
		{"single-select", []fq{database}, []answer.Decision{sel("MongoDB")}, true},
		{"single-select, no Elsewhere", []fq{database}, []answer.Decision{sel("MongoDB")}, false},
		{"multi-select", []fq{features}, []answer.Decision{sel("API")}, true},
		{"multi-select, no Elsewhere", []fq{features}, []answer.Decision{sel("API")}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFake(t, tt.qs, 100, 40, faults{})
			other := []fq{naming}
			calls := 0
			_, err := drive(t, context.Background(), fc, hookOf(tt.qs), tt.ds, numbers, func(c *askflow.Config) {
				c.LastKey = time.Now // guarded
				c.LastAsked = func() time.Time {
					if calls++; calls == 1 {
						fc.Ask(other)
					}
					return time.Now()
				}
				if tt.elsewhere {
					c.Elsewhere = func(s vt.Snapshot) bool { return askflow.Showing(s, hookOf(other)) }
				}
			})
			checkNothingSubmitted(t, fc)
			if calls == 0 {
				t.Fatal("LastAsked never called: the swap never came")
			}
			if err == nil {
				t.Fatal("no error: the form was taken for answered")
			} else if got := errors.Is(err, askflow.ErrElsewhere); got != tt.elsewhere {
				t.Errorf("errors.Is(%v, ErrElsewhere) = %t, want %t", err, got, tt.elsewhere)
			}
			for _, k := range fc.Received() {
				if k.Keys != "\x1b[B" && k.Keys != "\x1b[A" {
					t.Errorf("sent %q to the form swapped in", k.Keys)
				}
			}
		})
	}
}

// TestStrayMoveDuringGuardNumbers: a stray move landing during the guard's
// wait before a number leaves the focus on another option row: the number
// still names its option, and goes as planned.
func TestStrayMoveDuringGuardNumbers(t *testing.T) {
	for _, tt := range []struct {
		name string
		qs   []fq
		ds   []answer.Decision
		keys []string
		want map[string]string
	}{
		{"single-select", []fq{database}, []answer.Decision{sel("MongoDB")}, []string{"3"}, wantAnswers([]fq{database}, "MongoDB")},
		{"multi-select", []fq{features, naming}, []answer.Decision{sel("API"), sel("camelCase")},
			[]string{"4", "Tab", "Enter", "Enter"}, wantAnswers([]fq{features, naming}, "API", "camelCase")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFake(t, tt.qs, 100, 40, faults{})
			calls := 0
			res, err := drive(t, context.Background(), fc, hookOf(tt.qs), tt.ds, patient, numbers, func(c *askflow.Config) {
				c.LastKey = time.Now // guarded
				c.LastAsked = func() time.Time {
					if calls++; calls == 1 {
						fc.Edit(func(f *fakeclaude.Form) { f.Focus[0]++ })
					}
					return time.Now()
				}
			})
			if err != nil || res.Outcome != askflow.Submitted {
				t.Fatalf("Run: %v, %v", res.Outcome, err)
			}
			checkSubmitted(t, fc, tt.want)
			if got := keyNames(fc); !reflect.DeepEqual(got, tt.keys) {
				t.Errorf("keys %q, want %q", got, tt.keys)
			}
		})
	}
}

// TestRefusedNumberOnUnguardedForm: a form taken as unguarded gets its
// number at once; refused after all (no trace), the form is taken as
// guarded, and the walk's Enter waits as on a guarded form.
func TestRefusedNumberOnUnguardedForm(t *testing.T) {
	t.Parallel()
	drawn := time.Now()
	fc, st := timedFake(t, faults{Refuse: map[int]bool{1: true}})
	quiet := func() time.Time { return time.Now().Add(-time.Minute) }
	res, err := drive(t, context.Background(), fc, hookOf([]fq{database}), []answer.Decision{sel("MongoDB")}, numbers,
		func(c *askflow.Config) { c.LastKey, c.StepTimeout = quiet, 100*time.Millisecond })
	if err != nil || res.Outcome != askflow.Submitted {
		t.Fatalf("Run: %v, %v", res.Outcome, err)
	}
	checkSubmitted(t, fc, wantAnswers([]fq{database}, "MongoDB"))
	if got, want := keyNames(fc), []string{"3", "Down", "Down", "Enter"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("keys %q, want %q", got, want)
	}
	sent, _ := st.keys()
	if d := sent[4].Sub(drawn); d < 150*time.Millisecond {
		t.Errorf("Enter sent %v after the form was drawn, want at least 150ms (the form is guarded once its number was refused)", d)
	}
}

// TestNumberKeyNames: events name an option's number "number N", and typed
// text that is a digit as text.
func TestNumberKeyNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		ds   []answer.Decision
		want []string
	}{
		{"a number", []answer.Decision{sel("kebab-case")}, []string{"number 3"}},
		{"typed digits", []answer.Decision{typed("2")}, []string{"Up", `text "2"`, "Enter"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fc := newFake(t, []fq{naming}, 100, 40, faults{})
			var got []string
			_, err := drive(t, context.Background(), fc, hookOf([]fq{naming}), tt.ds, patient, numbers,
				func(c *askflow.Config) { c.OnKey = func(e askflow.KeyEvent) { got = append(got, e.Key) } })
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("key events %q, want %q", got, tt.want)
			}
		})
	}
}
