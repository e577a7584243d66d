// Command housecheck keeps the tree the way a newcomer can read it: no
// non-test Go file over [maxLines] lines, and no comment in non-test code
// that tells the story of a test run (a run number, a seed, a stress
// session's name, a session id) instead of explaining the code; a command
// shown in a doc comment (an indented line) may name one. It prints
// one line per finding, file:line first, and exits 1 if there is any.
//
//	go run ./tools/housecheck $(git ls-files '*.go')
package main

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"regexp"
	"strings"
)

// maxLines bounds a non-test Go file: past it, a file holds more than one job.
const maxLines = 800

// story matches what belongs in a commit message or a test's name, not in a
// comment: a run's number, a seed, a stress session's name (an s and three
// digits), a golden screen named after a seed, a UUID.
var story = regexp.MustCompile(`(?i)\bruns? \d+\b|\bseed \d{3,}|\bs\d{3}\b|stress-\d+-s\d+|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-`)

func main() {
	n, err := check(os.Stdout, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "housecheck:", err)
		os.Exit(2)
	}
	if n > 0 {
		fmt.Fprintf(os.Stderr, "housecheck: %d finding(s): split the file by job, or say why in the comment and leave the story to the commit message\n", n)
		os.Exit(1)
	}
}

// check looks at the named files (test files and non-Go files are passed
// over) and writes each finding to w; it returns how many there were.
func check(w io.Writer, paths []string) (int, error) {
	n := 0
	for _, path := range paths {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return n, err
		}
		if lines := countLines(src); lines > maxLines {
			fmt.Fprintf(w, "%s: %d lines, over %d\n", path, lines, maxLines)
			n++
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return n, err
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				sc := bufio.NewScanner(strings.NewReader(c.Text))
				for i := 0; sc.Scan(); i++ {
					line := strings.TrimPrefix(sc.Text(), "//")
					if strings.HasPrefix(line, "\t") {
						continue // a command shown in a doc comment may name a session
					}
					if m := story.FindString(line); m != "" {
						pos := fset.Position(c.Slash)
						fmt.Fprintf(w, "%s:%d: comment tells a run's story (%q): say why, not when it was found\n", path, pos.Line+i, m)
						n++
					}
				}
			}
		}
	}
	return n, nil
}

func countLines(b []byte) int {
	n := strings.Count(string(b), "\n")
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
