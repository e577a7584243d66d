package rules

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inFolders makes a working folder (the current directory for the test),
// a home and a config folder, and returns them.
func inFolders(t *testing.T) (work, home, xdg string) {
	t.Helper()
	dir := t.TempDir()
	work, home, xdg = filepath.Join(dir, "work"), filepath.Join(dir, "home"), filepath.Join(dir, "xdg")
	writeFile(t, work, "placeholder", "")
	t.Chdir(work)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("HOME", home)
	return work, home, xdg
}

func TestDefaultPaths(t *testing.T) {
	work, home, xdg := inFolders(t)
	if got := DefaultPaths(); got != nil {
		t.Errorf("no files: %q", got)
	}
	// ~/.config when XDG_CONFIG_HOME is unset.
	inHome := writeFile(t, home, ".config/claudewrap/rules.yaml", "version: 1\n")
	t.Setenv("XDG_CONFIG_HOME", "")
	if got := DefaultPaths(); len(got) != 1 || got[0] != (Found{inHome, Config}) {
		t.Errorf("home: %q, want %q", got, inHome)
	}
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if got := DefaultPaths(); got != nil {
		t.Errorf("XDG_CONFIG_HOME set, without the file: %q", got)
	}
	inXDG := writeFile(t, xdg, "claudewrap/rules.yaml", "version: 1\n")
	if got := DefaultPaths(); len(got) != 1 || got[0] != (Found{inXDG, Config}) {
		t.Errorf("xdg: %q, want %q", got, inXDG)
	}
	// ./.claudewrap.yaml comes first, as a folder file.
	writeFile(t, work, ".claudewrap.yaml", "version: 1\n")
	if got := DefaultPaths(); len(got) != 2 || got[0] != (Found{FolderFile, Folder}) || got[1] != (Found{inXDG, Config}) {
		t.Errorf("local: %q", got)
	}
}

const powerful = `version: 1
dialogs: {trust: true, bypass_permissions: accept}
permissions:
  - {when: {tool: ".*"}, decide: allow}
`

// TestFolderFileActsOnceAllowed: a rules file found in the working folder
// (a repository's) does not act until the person allowed its exact
// content (its trust, its acceptance of the bypass confirmation, its
// permissions); the person's own config file acts meanwhile; a changed
// file needs allowing again; a revoked one stops acting.
func TestFolderFileActsOnceAllowed(t *testing.T) {
	work, _, xdg := inFolders(t)
	own := writeFile(t, xdg, "claudewrap/rules.yaml", "version: 1\nrules:\n  - {when: {header: X}, answer: {cancel: true}}\n")
	os.Chmod(own, 0o600)
	folder := writeFile(t, work, FolderFile, powerful)

	s, ignored, err := LoadDefault()
	if err != nil || len(ignored) != 1 || ignored[0].Path != FolderFile || !errors.Is(ignored[0].Why, ErrNotAllowed) {
		t.Fatalf("not allowed: ignored %v, err %v", ignored, err)
	}
	if len(s.Files) != 1 || s.Files[0].Path != own || s.Trust() != "" || s.Bypass() != "" {
		t.Fatalf("want the person's own file alone in force, got %+v", s.Files)
	}

	b, _ := os.ReadFile(folder)
	real, err := AllowFile(FolderFile, b, nil)
	if err != nil || real != mustReal(t, folder) {
		t.Fatalf("allow: %q %v", real, err)
	}
	s, ignored, err = LoadDefault()
	if err != nil || len(ignored) != 0 || len(s.Files) != 1 || s.Trust() != FolderFile || s.Bypass() != FolderFile {
		t.Fatalf("allowed: files %+v, ignored %v, err %v", s.Files, ignored, err)
	}
	if fi, err := os.Stat(filepath.Join(xdg, "claudewrap", "allowed")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("allowances folder: %v %v", fi.Mode(), err)
	}

	// One byte more: not the content allowed.
	writeFile(t, work, FolderFile, powerful+"\n")
	s, ignored, _ = LoadDefault()
	if len(ignored) != 1 || !errors.Is(ignored[0].Why, ErrChanged) || s.Bypass() != "" || s.Trust() != "" {
		t.Fatalf("changed: ignored %v, in force %+v", ignored, s.Files)
	}
	b, _ = os.ReadFile(folder)
	AllowFile(FolderFile, b, nil)
	if was, err := RevokeFile(FolderFile); !was || err != nil {
		t.Fatalf("revoke: %t %v", was, err)
	}
	if _, ignored, _ = LoadDefault(); len(ignored) != 1 || !errors.Is(ignored[0].Why, ErrNotAllowed) {
		t.Fatalf("revoked: ignored %v", ignored)
	}
	if was, err := RevokeFile(FolderFile); was || err != nil {
		t.Errorf("revoke twice: %t %v", was, err)
	}
}

// TestAllowedElsewhere: an allowance is for one folder's file: the same
// content in another folder is not allowed there, and neither is a link
// there to the allowed file (a repository's link would otherwise bring
// another folder's allowance, and its trust, into its own folder).
func TestAllowedElsewhere(t *testing.T) {
	work, _, _ := inFolders(t)
	writeFile(t, work, FolderFile, powerful)
	b, _ := os.ReadFile(FolderFile)
	if _, err := AllowFile(FolderFile, b, nil); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(filepath.Dir(work), "other")
	writeFile(t, other, FolderFile, powerful)
	t.Chdir(other)
	if err := Allowance(FolderFile, b); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("same content elsewhere: %v", err)
	}
	os.Remove(FolderFile)
	if err := os.Symlink(filepath.Join(work, FolderFile), FolderFile); err != nil {
		t.Fatal(err)
	}
	s, ignored, err := LoadDefault()
	if err != nil || len(s.Files) != 0 || len(ignored) != 1 || !errors.Is(ignored[0].Why, ErrLink) {
		t.Errorf("a link to the allowed file: in force %d, ignored %v, %v", len(s.Files), ignored, err)
	}
	if _, err := FolderFileAt(FolderFile); !errors.Is(err, ErrLink) {
		t.Errorf("allowing a link: %v", err)
	}
}

// TestFolderFileAt: allow takes a folder's .claudewrap.yaml, or the folder;
// another file needs no allowing (named with --rules it acts as it is).
func TestFolderFileAt(t *testing.T) {
	work, _, _ := inFolders(t)
	writeFile(t, work, FolderFile, powerful)
	writeFile(t, work, "mine.yaml", powerful)
	if p, err := FolderFileAt(work); err != nil || p != filepath.Join(work, FolderFile) {
		t.Errorf("a folder: %q %v", p, err)
	}
	if _, err := FolderFileAt("mine.yaml"); err == nil || !strings.Contains(err.Error(), "acts as it is") {
		t.Errorf("another file: %v", err)
	}
}

// TestFolderFileUnreadable: a folder file that cannot be read (a FIFO, too
// large) does not act, and does not stop the run: it is reported, and the
// person's own file applies.
func TestFolderFileUnreadable(t *testing.T) {
	work, _, xdg := inFolders(t)
	own := writeFile(t, xdg, "claudewrap/rules.yaml", "version: 1\n")
	os.Chmod(own, 0o600)
	if err := os.WriteFile(filepath.Join(work, FolderFile), make([]byte, MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ignored, err := LoadDefault()
	if err != nil || len(ignored) != 1 || len(s.Files) != 1 || s.Files[0].Path != own {
		t.Errorf("too large: in force %+v, ignored %v, %v", s.Files, ignored, err)
	}
}

// TestAllowancesTrusted: allowances in a folder others can write to, or
// in one whose parent others can write to, and a config rules file others
// can write to, are not trusted (OpenSSH's strict modes).
func TestAllowancesTrusted(t *testing.T) {
	work, _, xdg := inFolders(t)
	writeFile(t, work, FolderFile, powerful)
	b, _ := os.ReadFile(FolderFile)
	if _, err := AllowFile(FolderFile, b, nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(xdg, "claudewrap", "allowed")
	os.Chmod(dir, 0o777)
	if err := Allowance(FolderFile, b); err == nil || !strings.Contains(err.Error(), "allowances not trusted") {
		t.Errorf("allowances writable by all: %v", err)
	}
	os.Chmod(dir, 0o700)
	os.Chmod(filepath.Dir(dir), 0o777) // others could put another folder in its place
	if err := Allowance(FolderFile, b); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("allowances in a folder writable by all: %v", err)
	}
	os.Chmod(filepath.Dir(dir), 0o700)
	os.Remove(FolderFile)
	own := writeFile(t, xdg, "claudewrap/rules.yaml", "version: 1\n")
	os.Chmod(own, 0o666)
	if _, _, err := LoadDefault(); err == nil || !strings.Contains(err.Error(), "can be written by others") {
		t.Errorf("config rules writable by all: %v", err)
	}
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAllowanceCoversPrograms: allowing records the programs the file runs
// (a rule's exec with a script among its arguments, the notify command);
// a program edited, replaced or removed since makes the file not act until
// allowed again, and a program that cannot be found cannot be allowed.
func TestAllowanceCoversPrograms(t *testing.T) {
	work, _, _ := inFolders(t)
	writeFile(t, work, "decide.sh", "#!/bin/sh\necho '{select: SQLite}'\n")
	os.Chmod(filepath.Join(work, "decide.sh"), 0o755)
	writeFile(t, work, "lib/helper.py", "print('x')\n")
	writeFile(t, work, "notify.sh", "#!/bin/sh\ncat > /dev/null\n")
	os.Chmod(filepath.Join(work, "notify.sh"), 0o755)
	content := "version: 1\ndefaults: {notify: \"./notify.sh --quiet | cat\"}\nrules:\n" +
		"  - {name: db, when: {header: Database}, answer: {exec: [./decide.sh, lib/helper.py, --flag]}}\n"
	writeFile(t, work, FolderFile, content)
	f, err := Parse(FolderFile, []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	progs, err := Programs(f)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range progs {
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "./decide.sh lib/helper.py ./notify.sh cat" {
		t.Fatalf("programs %q", names)
	}
	if _, err := AllowFile(FolderFile, []byte(content), progs); err != nil {
		t.Fatal(err)
	}
	acts := func() error {
		s, ignored, err := LoadDefault()
		if err != nil {
			t.Fatal(err)
		}
		if len(ignored) > 0 {
			return ignored[0].Why
		}
		if len(s.Files) != 1 {
			t.Fatalf("in force: %+v", s.Files)
		}
		return nil
	}
	if err := acts(); err != nil {
		t.Fatalf("allowed: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func()
		want   string
	}{
		{"the exec program edited", func() { writeFile(t, work, "decide.sh", "#!/bin/sh\nrm -rf ~\n") }, `"./decide.sh"`},
		{"its script argument edited", func() { writeFile(t, work, "lib/helper.py", "import os\n") }, `"lib/helper.py"`},
		{"the notify program removed", func() { os.Remove(filepath.Join(work, "notify.sh")) }, `"./notify.sh"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := map[string][]byte{}
			for _, n := range []string{"decide.sh", "lib/helper.py", "notify.sh"} {
				b[n], _ = os.ReadFile(filepath.Join(work, n))
			}
			tc.change()
			err := acts()
			if !errors.Is(err, ErrProgramChanged) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("after the change: %v, want it not acting, naming %s", err, tc.want)
			}
			for n, c := range b {
				writeFile(t, work, n, string(c))
			}
			os.Chmod(filepath.Join(work, "notify.sh"), 0o755)
			if err := acts(); err != nil {
				t.Errorf("put back as allowed: %v", err)
			}
		})
	}
	// An allowance made without the programs (an older one) does not cover them.
	if _, err := AllowFile(FolderFile, []byte(content), nil); err != nil {
		t.Fatal(err)
	}
	if err := acts(); !errors.Is(err, ErrProgramChanged) || !strings.Contains(err.Error(), "was not allowed with the file") {
		t.Errorf("allowed without its programs: %v", err)
	}
	// A program that is not there cannot be allowed.
	missing := "version: 1\nrules:\n  - {name: db, when: {header: Database}, answer: {exec: [./nowhere.sh]}}\n"
	f, _ = Parse(FolderFile, []byte(missing))
	if _, err := Programs(f); err == nil || !strings.Contains(err.Error(), `its program "./nowhere.sh"`) {
		t.Errorf("a missing program: %v", err)
	}
}

// TestStillAllowed: a folder file in force whose program changes after the
// run loaded it is no longer allowed; a file named with --rules is the
// person's and is not checked.
func TestStillAllowed(t *testing.T) {
	work, _, _ := inFolders(t)
	writeFile(t, work, "decide.sh", "#!/bin/sh\necho '{select: SQLite}'\n")
	os.Chmod(filepath.Join(work, "decide.sh"), 0o755)
	content := "version: 1\nrules:\n  - {name: db, when: {header: Database}, answer: {exec: [./decide.sh]}}\n"
	writeFile(t, work, FolderFile, content)
	f, _ := Parse(FolderFile, []byte(content))
	progs, err := Programs(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AllowFile(FolderFile, []byte(content), progs); err != nil {
		t.Fatal(err)
	}
	s, ignored, err := LoadDefault()
	if err != nil || len(ignored) != 0 || s.StillAllowed() != nil {
		t.Fatalf("allowed: %v %v %v", ignored, err, s.StillAllowed())
	}
	writeFile(t, work, "decide.sh", "#!/bin/sh\nrm -rf ~\n")
	if err := s.StillAllowed(); !errors.Is(err, ErrProgramChanged) {
		t.Errorf("after the program changed: %v", err)
	}
	named, _ := Load(FolderFile)
	if err := named.StillAllowed(); err != nil {
		t.Errorf("a file named with --rules: %v", err)
	}
}

// TestProgramsOfCommands: what notify or a rule's exec runs is read as the
// command rules read a command: the files a command reads by redirection
// are recorded, the programs a shell runs from a literal string too; a
// command whose programs cannot be told from its text (a substitution, a
// program named by an expansion) cannot be allowed.
func TestProgramsOfCommands(t *testing.T) {
	work, _, _ := inFolders(t)
	writeFile(t, work, "n.sh", "#!/bin/sh\ncat > /dev/null\n")
	os.Chmod(filepath.Join(work, "n.sh"), 0o755)
	for _, tc := range []struct {
		notify string
		exec   string
		want   string // the names recorded, or the start of the error
	}{
		{notify: "bash < ./n.sh", want: "bash ./n.sh"},
		{notify: "bash 0< n.sh", want: "bash n.sh"},
		{notify: "sh -c './n.sh --x | cat'", want: "sh ./n.sh cat"},
		{notify: "nohup ./n.sh", want: "nohup ./n.sh"},
		{notify: "bash <<'EOF'\n./n.sh\nEOF", want: "bash ./n.sh"},
		{notify: "./n.sh > /dev/null", want: "./n.sh"},
		{notify: "sh -c \"$(<n.sh)\"", want: `defaults.notify: "sh -c \"$(<n.sh)\"": cannot tell what it runs`},
		{notify: "./n.sh \"$(date)\"", want: `defaults.notify: "./n.sh \"$(date)\"" has a command or process substitution`},
		{notify: "cat <(./n.sh)", want: `defaults.notify: "cat <(./n.sh)" has a command or process substitution`},
		{notify: "$PROG x", want: `defaults.notify: "$PROG x": cannot tell what it runs`},
		{notify: "cat ./n.sh | sh", want: `defaults.notify: "cat ./n.sh | sh": cannot tell what it runs`},
		{notify: "bash < \"$F\"", want: `defaults.notify: "bash < \"$F\"": cannot tell what it runs`},
		{notify: "./n.sh < \"$F\"", want: `defaults.notify: "./n.sh < \"$F\"" reads a file named by an expansion`},
		{notify: "bash <(./n.sh)", want: `defaults.notify: "bash <(./n.sh)": cannot tell what it runs`},
		{exec: "[sh, -c, ./n.sh]", want: "sh ./n.sh"},
		{exec: "[env, A=1, ./n.sh]", want: "env ./n.sh"},
		{exec: "[sh, -c, \"$(<n.sh)\"]", want: `exec ["sh" "-c" "$(<n.sh)"]: "sh -c '$(<n.sh)'": cannot tell what it runs`},
		{exec: "[./n.sh, \"$(date)\"]", want: "./n.sh"}, // no shell reads it: a word like any other
	} {
		src := "version: 1\n"
		if tc.notify != "" {
			b, _ := json.Marshal(tc.notify)
			src += "defaults: {notify: " + string(b) + "}\n"
		} else {
			src += "rules:\n  - {when: {header: X}, answer: {exec: " + tc.exec + "}}\n"
		}
		f, err := Parse(FolderFile, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		progs, err := Programs(f)
		var got string
		if err != nil {
			got = err.Error()
		} else {
			var names []string
			for _, p := range progs {
				names = append(names, p.Name)
			}
			got = strings.Join(names, " ")
		}
		if !strings.HasPrefix(got, tc.want) || err == nil && got != tc.want {
			t.Errorf("%s%s: %s, want %s", tc.notify, tc.exec, got, tc.want)
		}
	}
	// A file the notify command reads, edited since it was allowed, makes
	// the file not act.
	content := "version: 1\ndefaults: {notify: \"bash < ./n.sh\"}\n"
	writeFile(t, work, FolderFile, content)
	f, err := Parse(FolderFile, []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	progs, err := Programs(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AllowFile(FolderFile, []byte(content), progs); err != nil {
		t.Fatal(err)
	}
	if err := ProgramsAllowed(f); err != nil {
		t.Fatalf("allowed: %v", err)
	}
	writeFile(t, work, "n.sh", "#!/bin/sh\nrm -rf ~\n")
	if err := ProgramsAllowed(f); !errors.Is(err, ErrProgramChanged) || !strings.Contains(err.Error(), `"./n.sh"`) {
		t.Errorf("after n.sh changed: %v", err)
	}
}
