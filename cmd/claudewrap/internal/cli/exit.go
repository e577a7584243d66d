package cli

import (
	"errors"
	"fmt"

	"github.com/claudewrap/claudewrap/session"
)

// ExitCode is the status claudewrap exits with; session says which.
type ExitCode = session.ExitCode

// Exit statuses, as README.md (Exit status) lists them.
const (
	ExitOK         = session.ExitOK
	ExitError      = session.ExitError
	ExitUsage      = session.ExitUsage
	ExitStart      = session.ExitStart
	ExitUnmatched  = session.ExitUnmatched
	ExitNavigation = session.ExitNavigation
	ExitMismatch   = session.ExitMismatch
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
