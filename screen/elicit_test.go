package screen_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/screen"
)

// elicitRecordings are the recordings of an MCP server's form.
func elicitRecordings(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/screens/*/elicit-*.cast")
	if err != nil || len(files) == 0 {
		t.Fatalf("no elicit-* recordings: %v", err)
	}
	return files
}

// TestElicitationValues: on the recording with every field set, each
// field's value reads as drawn, under its title only.
func TestElicitationValues(t *testing.T) {
	for _, v := range []string{"2.1.332", "2.1.197"} {
		e, ok := screen.ParseElicitation(replay(t, "../testdata/screens/"+v+"/elicit-filled-accept-100x40.cast", 0))
		if !ok {
			t.Fatalf("%s: no form", v)
		}
		want := map[string]string{"Environment": "staging", "Really deploy?": "☒", "Note": "ship it", "Replicas": "3", "Regions": "eu"}
		for title, val := range want {
			i := e.Field(title)
			if i < 0 {
				t.Fatalf("%s: no field %q:\n%s", v, title, e)
			}
			if got, _ := e.Fields[i].Value(title); got != val || !e.Fields[i].Set {
				t.Errorf("%s: %q reads %q (set %v), want %q", v, title, got, e.Fields[i].Set, val)
			}
		}
		if _, ok := e.Fields[0].Value("Env"); ok {
			t.Errorf("%s: a title's prefix reads as the title", v)
		}
		if e.Button != "Accept" || e.Focused() != -1 {
			t.Errorf("%s: focus %q / %d, want Accept", v, e.Button, e.Focused())
		}
	}
}

// FuzzParseElicitation checks that reading an MCP form never panics and
// never reports two focused fields, two focused options, or a field and a
// button focused at once. It is seeded with the recordings' last screens.
func FuzzParseElicitation(f *testing.F) {
	for _, rec := range elicitRecordings(f) {
		f.Add(replay(f, rec, 0).Text())
	}
	f.Fuzz(func(t *testing.T, text string) {
		em := screen.New(screen.Options{Cols: 100, Rows: 40})
		em.Write([]byte(strings.ReplaceAll(text, "\n", "\r\n")))
		e, ok := screen.ParseElicitation(em.Snapshot())
		if !ok {
			return
		}
		fields, options := 0, 0
		for _, fl := range e.Fields {
			if fl.Focused {
				fields++
			}
		}
		for _, o := range e.Options {
			if o.Focused {
				options++
			}
		}
		if options > 1 || fields > 1 || fields == 1 && e.Button != "" {
			t.Fatalf("%d focused fields, %d focused options, button %q:\n%s", fields, options, e.Button, e)
		}
		_ = e.String()
	})
}
