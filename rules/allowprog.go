package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A folder's rules file may run programs: a rule's exec, and the notify
// command. Its allowance covers them too: allowing records the content of
// every program the file names and of every file among their arguments,
// and a changed or missing one makes the file not act until allowed
// again, as a changed file does. A `git pull` that edits ./decide.sh is
// such a change.

// Program is a program, or a file among a program's arguments, that a
// rules file names, as it resolves from the folder the file is in.
type Program struct {
	Name string // as the file writes it
	Path string // the file it is now, links resolved
	Sum  string // SHA-256 of its content, hex
}

// ProgramError is why a program a rules file names cannot be allowed, or
// makes an allowed file not act.
type ProgramError struct {
	Name, Path string
	Why        string
}

func (e *ProgramError) Error() string {
	if e.Path == "" || e.Path == e.Name {
		return fmt.Sprintf("its program %q %s", e.Name, e.Why)
	}
	return fmt.Sprintf("its program %q (%s) %s", e.Name, e.Path, e.Why)
}

// maxProgram bounds the size of a program hashed for an allowance.
const maxProgram = 1 << 30

// Programs lists what f runs, as named from its folder: each rule's exec
// program (a name with a slash is relative to the file's folder, a bare
// name is looked up in PATH) with every argument that names an existing
// file there, and, for defaults.notify, each command's program with the
// arguments that name files and the files it reads by redirection (sh <
// ./n.sh). A program that cannot be found or hashed is an error, and so is
// a command whose programs cannot be told from its text ([commandCalls]).
func Programs(f *File) ([]Program, error) {
	dir := filepath.Dir(f.Path)
	var out []Program
	seen := map[string]bool{}
	add := func(name, path string, must bool) error {
		p, err := hashProgram(name, path, must)
		if err != nil || p == nil || seen[p.Path+"\x00"+p.Name] {
			return err
		}
		seen[p.Path+"\x00"+p.Name] = true
		out = append(out, *p)
		return nil
	}
	addCalls := func(calls []call) error {
		for _, c := range calls {
			if err := add(c.words[0], ProgramPath(dir, c.words[0]), true); err != nil {
				return err
			}
			for _, a := range append(c.words[1:], c.reads...) {
				if err := add(a, argPath(dir, a), false); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, r := range f.Rules {
		if len(r.Answer.Exec) == 0 {
			continue
		}
		if err := add(r.Answer.Exec[0], ProgramPath(dir, r.Answer.Exec[0]), true); err != nil {
			return nil, err
		}
		for _, a := range r.Answer.Exec[1:] {
			if err := add(a, argPath(dir, a), false); err != nil {
				return nil, err
			}
		}
		// What it runs in turn: sh -c '…', env ./x.sh.
		calls, err := commandCalls(quoteArgs(r.Answer.Exec))
		if err != nil {
			return nil, fmt.Errorf("exec %q: %w", r.Answer.Exec, err)
		}
		if err := addCalls(calls); err != nil {
			return nil, err
		}
	}
	if f.Defaults.Notify != "" {
		calls, err := commandCalls(f.Defaults.Notify)
		if err != nil {
			return nil, fmt.Errorf("defaults.notify: %w", err)
		}
		if err := addCalls(calls); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// quoteArgs writes an argument list as a shell command that runs it.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

// argPath is where an argument would name a file: relative to dir.
func argPath(dir, a string) string {
	if filepath.IsAbs(a) {
		return a
	}
	return filepath.Join(dir, a)
}

// hashProgram resolves and hashes the program name at path (a bare name
// is looked up in PATH). For an argument (must false), a path that names
// no regular file is no program: nil, no error.
func hashProgram(name, path string, must bool) (*Program, error) {
	resolved := path
	if must {
		p, err := exec.LookPath(path)
		if err != nil {
			return nil, &ProgramError{Name: name, Path: path, Why: "cannot be run: " + lookupProblem(err)}
		}
		resolved = p
	}
	real, err := filepath.EvalSymlinks(resolved)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		if !must {
			return nil, nil
		}
		return nil, &ProgramError{Name: name, Path: resolved, Why: "cannot be found: " + err.Error()}
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		if !must {
			return nil, nil
		}
		return nil, &ProgramError{Name: name, Path: real, Why: "is not a regular file"}
	}
	sum, err := hashFile(real)
	if err != nil {
		return nil, &ProgramError{Name: name, Path: real, Why: "cannot be read: " + err.Error()}
	}
	return &Program{Name: name, Path: real, Sum: sum}, nil
}

func lookupProblem(err error) string {
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err
	}
	return err.Error()
}

// hashFile is the SHA-256 of the regular file at path.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxProgram+1))
	if err != nil {
		return "", err
	}
	if n > maxProgram {
		return "", fmt.Errorf("over %d bytes", maxProgram)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// call is a command a shell command runs, as written: its literal words,
// its program first, and the files it reads by redirection.
type call struct {
	words []string
	reads []string
}

// commandCalls reads a shell command (notify's, or an exec argument list
// that runs a shell) as [ReadCommand] does and returns each command it
// runs, as written, those run by a wrapper or inside sh -c '…' too. A word
// that is not literal (an expansion) is left out. What cannot be known
// when the command is allowed is an error: a command or process
// substitution, a part whose commands cannot be seen ([Part.Opaque]: a
// program named by an expansion, a string from one run as commands), a
// file read by a redirection from an expansion.
func commandCalls(command string) ([]call, error) {
	var calls []call
	var werr error
	r := &reader{runs: map[string]string{}, scripts: map[string]bool{}}
	r.onCall = func(c cmd) {
		cl := call{}
		for _, w := range c.words {
			if w.ok {
				cl.words = append(cl.words, w.lit)
			}
		}
		for _, rd := range c.stmt {
			if rd.Op != syntax.RdrIn && rd.Op != syntax.RdrInOut {
				continue
			}
			v, _, ok := literal(rd.Word)
			if !ok && werr == nil {
				werr = fmt.Errorf("%q reads a file named by an expansion, which cannot be known when it is allowed", command)
			}
			cl.reads = append(cl.reads, v)
		}
		if len(cl.words) > 0 {
			calls = append(calls, cl)
		}
	}
	r.script(command, "")
	r.finish()
	for _, p := range r.parts {
		if p.Opaque {
			return nil, fmt.Errorf("%q: cannot tell what it runs: %s (%s)", command, p.Unjudged, p.Text)
		}
	}
	if r.substs {
		return nil, fmt.Errorf("%q has a command or process substitution, whose output cannot be known when it is allowed: cannot tell what it runs", command)
	}
	return calls, werr
}

// programLine is a program's line in an allowance.
func programLine(p Program) string {
	return "program sha256:" + p.Sum + " " + strconv.Quote(p.Path) + " " + strconv.Quote(p.Name)
}

// parseProgramLine reads a program's line of an allowance.
func parseProgramLine(line string) (Program, bool) {
	rest, ok := strings.CutPrefix(line, "program sha256:")
	if !ok {
		return Program{}, false
	}
	sum, rest, ok := strings.Cut(rest, " ")
	if !ok {
		return Program{}, false
	}
	path, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return Program{}, false
	}
	name := strings.TrimPrefix(rest[len(path):], " ")
	p, err1 := strconv.Unquote(path)
	n, err2 := strconv.Unquote(name)
	if err1 != nil || err2 != nil {
		return Program{}, false
	}
	return Program{Name: n, Path: p, Sum: sum}, true
}

// checkPrograms says which program recorded in an allowance is changed or
// missing now: nil when each is as it was.
func checkPrograms(recorded []Program) error {
	for _, p := range recorded {
		now, err := hashFile(p.Path)
		switch {
		case err != nil:
			return fmt.Errorf("%w: %w", ErrProgramChanged, &ProgramError{Name: p.Name, Path: p.Path, Why: "is gone or unreadable since it was allowed (" + err.Error() + ")"})
		case now != p.Sum:
			return fmt.Errorf("%w: %w", ErrProgramChanged, &ProgramError{Name: p.Name, Path: p.Path, Why: "changed since it was allowed"})
		}
	}
	return nil
}

// ErrProgramChanged is why an allowed file whose program changed does not
// act.
var ErrProgramChanged = errors.New("a program it runs changed since it was allowed")
