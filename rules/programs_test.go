package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckPrograms: each rule's program that cannot be run is said at
// its place; one beside the rules file, named from that folder, can.
func TestCheckPrograms(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "decide"), []byte("#!/bin/sh\necho '{\"cancel\": true}'\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "plain"), []byte("not a program\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	path := filepath.Join(dir, "rules.yaml")
	src := `version: 1
rules:
  - answer: {exec: [./decide, --strict]}
  - answer: {exec: [sh, -c, "echo {}"]}
  - answer: {select: A}
  - answer:
      exec:
        - ./plain
  - answer: {exec: [./gone]}
  - answer: {exec: [./sub]}
  - answer: {exec: [no-such-program-claudewrap]}
  - answer: {exec: [` + filepath.Join(dir, "decide") + `]}
`
	f, err := Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	es := f.programErrors()
	want := []string{
		path + `:8:11: exec: the program "./plain" is not executable (` + filepath.Join(dir, "plain") + `)`,
		path + `:9:21: exec: no program "./gone" (` + filepath.Join(dir, "gone") + ` does not exist; a path is relative to the rules file)`,
		path + `:10:21: exec: the program "./sub" cannot be run (` + filepath.Join(dir, "sub") + `): is a directory`,
		path + `:11:21: exec: no program "no-such-program-claudewrap" in PATH`,
	}
	if len(es) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(es), len(want), es)
	}
	for i, e := range es {
		if !strings.HasPrefix(e.Error(), want[i]) {
			t.Errorf("error %d: %q, want it to start %q", i, e.Error(), want[i])
		}
	}

	// A file whose programs all run has nothing to report.
	f, err = Parse(path, []byte("version: 1\nrules:\n  - answer: {exec: [./decide]}\n  - answer: {select: A}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if es := f.programErrors(); es != nil {
		t.Errorf("programErrors: %v", es)
	}

	// Named from its own folder (.claudewrap.yaml), "./decide" is still
	// the one beside it, not a "decide" looked for in PATH.
	t.Chdir(dir)
	f, err = Parse("rules.yaml", []byte("version: 1\nrules:\n  - answer: {exec: [./decide]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if es := f.programErrors(); es != nil {
		t.Errorf("programErrors from the rules' folder: %v", es)
	}
}

func TestProgramPath(t *testing.T) {
	for _, tc := range []struct{ dir, prog, want string }{
		{"examples", "./decide", "examples/decide"},
		{"examples", "bin/decide", "examples/bin/decide"},
		{"examples", "/usr/bin/env", "/usr/bin/env"},
		{"examples", "jq", "jq"}, // looked up in PATH
		// A rules file in the working folder (.claudewrap.yaml): still
		// beside it, never a name for PATH.
		{".", "./decide", "./decide"},
		{".", "bin/decide", "bin/decide"},
		{"", "./decide", "./decide"},
		{"sub", "../decide", "./decide"},
	} {
		if got := ProgramPath(tc.dir, tc.prog); got != tc.want {
			t.Errorf("ProgramPath(%q, %q) = %q, want %q", tc.dir, tc.prog, got, tc.want)
		}
	}
}
