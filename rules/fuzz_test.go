package rules

import (
	"errors"
	"os"
	"testing"
)

func addSeeds(f *testing.F) {
	for _, path := range examplePaths(f) {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, tc := range errorCases {
		f.Add([]byte(tc.in))
	}
	for _, in := range agreementCases {
		f.Add([]byte(in))
	}
}

// FuzzParse checks that the loader never panics, and that every error it
// returns is an [Errors] whose entries name the file and a real place in it.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse("fuzz.yaml", b)
		if err == nil {
			if file == nil || file.Version != 1 || file.Path != "fuzz.yaml" {
				t.Fatalf("no error, file %+v", file)
			}
			for _, r := range file.Rules {
				a := r.Answer
				n := 0
				for _, set := range []bool{a.Select != nil, a.Type != nil, a.Chat != nil, a.Cancel, a.Exec != nil} {
					if set {
						n++
					}
				}
				if n != 1 || r.Name == "" || r.Line < 1 {
					t.Fatalf("rule %+v", r)
				}
			}
			return
		}
		if file != nil {
			t.Fatalf("a file with the error %v", err)
		}
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("error %T %v, want Errors", err, err)
		}
		for _, e := range es {
			if e.File != "fuzz.yaml" || e.Line < 1 || e.Col < 1 || e.Msg == "" {
				t.Fatalf("error %+v", e)
			}
		}
	})
}

// FuzzSchemaAgrees checks that the JSON Schema and the loader judge every
// input alike, where the schema can judge it at all.
func FuzzSchemaAgrees(f *testing.F) {
	addSeeds(f)
	s := loadSchema(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAgrees(t, s, "fuzz.yaml", b)
	})
}
