package rules

import (
	"errors"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ProgramPath is the program a rule's exec runs: a name with a slash is
// relative to the rules file's folder dir, a bare name is looked up in
// PATH when it runs.
func ProgramPath(dir, prog string) string {
	if !strings.Contains(prog, "/") || filepath.IsAbs(prog) {
		return prog
	}
	p := filepath.Join(dir, prog)
	if !strings.Contains(p, "/") {
		// Join cleans "./decide" beside "." to "decide", which exec
		// would look up in PATH: a program of that name there would run
		// instead of the one beside the rules.
		p = "./" + p
	}
	return p
}

// programErrors reports, at the place each is named, every rule's program
// that cannot be run from here: not found, or not executable. Loading does
// not check this, because a program may be put in place after the rules
// are written; `rules check` does (CheckFile).
func (f *File) programErrors() Errors {
	var errs Errors
	for _, r := range f.Rules {
		a := r.Answer
		if len(a.Exec) == 0 {
			continue
		}
		path := ProgramPath(filepath.Dir(f.Path), a.Exec[0])
		if _, err := exec.LookPath(path); err != nil {
			errs = append(errs, &Error{File: f.Path, Line: a.ExecLine, Col: a.ExecCol,
				Msg: "exec: " + programProblem(a.Exec[0], path, err)})
		}
	}
	return errs
}

func programProblem(prog, path string, err error) string {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return "no program " + strconv.Quote(prog) + " in PATH"
	case errors.Is(err, fs.ErrNotExist):
		return "no program " + strconv.Quote(prog) + " (" + path + " does not exist; a path is relative to the rules file)"
	case errors.Is(err, fs.ErrPermission):
		return "the program " + strconv.Quote(prog) + " is not executable (" + path + ")"
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err // without exec's own "exec: path:" prefix
	}
	return "the program " + strconv.Quote(prog) + " cannot be run (" + path + "): " + err.Error()
}
