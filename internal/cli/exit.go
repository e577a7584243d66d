package cli

import (
	"errors"
	"fmt"
)

// ExitCode is the status claudewrap exits with.
type ExitCode int

// Exit statuses, as README.md (Usage) lists them. Claude's own status passes
// through as is.
const (
	ExitOK         ExitCode = 0
	ExitError      ExitCode = 1 // an error of claudewrap's own not listed below
	ExitUsage      ExitCode = 2 // bad flags or rules
	ExitStart      ExitCode = 3 // claude could not start
	ExitUnmatched  ExitCode = 4 // an unmatched question under --on-unmatched fail
	ExitNavigation ExitCode = 5 // the screen never confirmed a step
	ExitMismatch   ExitCode = 6 // Claude recorded something other than intended
)

// exitError carries an exit status with an error. A nil err means nothing
// is printed (the status is the child's own).
type exitError struct {
	code ExitCode
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func withCode(code ExitCode, err error) error { return &exitError{code: code, err: err} }

func usageErrorf(format string, args ...any) error {
	return withCode(ExitUsage, fmt.Errorf(format, args...))
}

// codeOf maps an error returned by a command to an exit status.
func codeOf(err error) ExitCode {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}
