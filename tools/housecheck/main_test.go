package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	long := "package x\n" + strings.Repeat("\n", maxLines)
	for _, tc := range []struct {
		name, file, src string
		want            []string // substrings of the findings, in order; none: clean
	}{
		{"clean", "a.go", "package a\n\n// Claude Code 2.1.197 draws no pointer here.\nvar x = 1 // run it twice\n", nil},
		{"run number", "a.go", "package a\n\n// Found by random forms run 87.\nvar x = 1\n", []string{`a.go:3: comment tells a run's story ("run 87")`}},
		{"seed and session", "a.go", "package a\n\n/*\nA wrapped label\n(stress seed 1764270000, s029).\n*/\nvar x = 1\n", []string{`a.go:5:`, `"seed 1764270000"`}},
		{"golden named by seed", "a.go", "package a\n\n// see stress-7480-s024-50x16\nvar x = 1\n", []string{`"stress-7480-s024"`}},
		{"uuid", "a.go", "package a\n\n// session 0f1e2d3c-4b5a-6978-8899-aabbccddeeff\nvar x = 1\n", []string{"0f1e2d3c-4b5a-6978-"}},
		{"a command in a doc comment", "a.go", "package a\n\n// Repeat one session:\n//\n//\tgo run ./tools/stress -seed 42 -only s003\nvar x = 1\n", nil},
		{"strings are not comments", "a.go", "package a\n\nvar x = \"run 87, seed 123456\"\n", nil},
		{"test files are passed over", "a_test.go", "package a\n\n// run 87\nvar x = 1\n", nil},
		{"too long", "a.go", long, []string{"a.go: 801 lines, over 800"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(tc.src), 0o600); err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			n, err := check(&out, []string{path})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(out.String(), filepath.Dir(path)+string(filepath.Separator), "")
			if (n == 0) != (len(tc.want) == 0) {
				t.Fatalf("%d findings, want %d:\n%s", n, len(tc.want), got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("findings lack %q:\n%s", w, got)
				}
			}
		})
	}
}
