package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/claudewrap/claudewrap/internal/safe"
)

// printLine prints one line for a person, made safe for a terminal: what
// it says may quote Claude, a session, a file or a program.
func printLine(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, safe.Line(fmt.Sprintf(format, args...)))
}

// printLines prints text of several lines, each made safe and after
// prefix.
func printLines(w io.Writer, prefix, text string) {
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintln(w, prefix+safe.Line(line))
	}
}
