package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
)

// The docs a person reads, from this package's folder.
const repoRoot = "../../../.."

// docFiles returns README.md and docs/*.md, relative to the repository's
// root.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v %v", docs, err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	return files
}

// block is a fenced code block of a Markdown file.
type block struct {
	lang  string
	start int // the line of the first line inside the fence, from 1
	lines []string
}

func fencedBlocks(t *testing.T, path string) []block {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, path))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []block
	var cur *block
	for i, l := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &block{lang: strings.TrimPrefix(trimmed, "```"), start: i + 2}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: a code block is never closed", path, cur.start-1)
	}
	return blocks
}

// docCommand is a command line of a doc: a line of a sh block that starts
// with "claudewrap " (after an optional "$ "), continued lines joined.
type docCommand struct {
	file string
	line int
	text string
}

func (c docCommand) String() string { return fmt.Sprintf("%s:%d: %s", c.file, c.line, c.text) }

func docCommands(t *testing.T) []docCommand {
	t.Helper()
	var cmds []docCommand
	for _, f := range docFiles(t) {
		for _, b := range fencedBlocks(t, f) {
			for i := 0; i < len(b.lines); i++ {
				line := strings.TrimPrefix(strings.TrimSpace(b.lines[i]), "$ ")
				if !strings.HasPrefix(line, "claudewrap ") {
					continue
				}
				if b.lang != "sh" {
					t.Errorf("%s:%d: a command line in a %q block: put it in a sh block, where it is tested", f, b.start+i, b.lang)
					continue
				}
				at := b.start + i
				for strings.HasSuffix(line, `\`) && i+1 < len(b.lines) {
					i++
					line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(b.lines[i])
				}
				cmds = append(cmds, docCommand{file: f, line: at, text: line})
			}
		}
	}
	return cmds
}

// shellWords splits a command line as sh would, for the commands the docs
// show: quotes, backslashes and globs (expanded from the working folder,
// left as written when nothing matches). The command ends at a pipe, a
// redirection, && or ;, and a word starting with # begins the comment.
// A $ or a backquote is refused: a doc's line must not depend on the
// reader's shell.
func shellWords(s string) (words []string, comment string, err error) {
	var (
		w       strings.Builder
		inWord  bool
		globbed bool
	)
	end := func() {
		if !inWord {
			return
		}
		word := w.String()
		if m, _ := filepath.Glob(word); globbed && len(m) > 0 {
			words = append(words, m...)
		} else {
			words = append(words, word)
		}
		w.Reset()
		inWord, globbed = false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '#' && !inWord:
			return words, strings.TrimSpace(s[i+1:]), nil
		case strings.IndexByte("|&;<>", c) >= 0:
			end()
			if j := strings.IndexByte(s[i:], '#'); j >= 0 {
				comment = strings.TrimSpace(s[i+j+1:])
			}
			return words, comment, nil
		case c == '$' || c == '`':
			return nil, "", fmt.Errorf("%q at column %d: the shell would expand it", c, i+1)
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, "", errors.New("a ' is not closed")
			}
			w.WriteString(s[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			inWord = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, "", errors.New(`a " is not closed`)
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '$' || s[i] == '`' {
					return nil, "", fmt.Errorf("%q at column %d: the shell would expand it", s[i], i+1)
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			if strings.IndexByte("*?[", c) >= 0 {
				globbed = true
			}
			w.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, "", nil
}

// wantExit reads the exit status a doc's line says it ends with, as a
// comment starting "exit N"; ok is false when it says none.
var exitNote = regexp.MustCompile(`^exit (\d+)\b`)

func wantExit(comment string) (code ExitCode, ok bool) {
	m := exitNote.FindStringSubmatch(comment)
	if m == nil {
		return 0, false
	}
	n, _ := strconv.Atoi(m[1])
	return ExitCode(n), true
}

// docRoot is the command tree with run stopped where it would start Claude:
// everything before that (its flags, the rules files, the policy and its
// timeout, the files it writes) is checked as in a real run, and then the
// Claude it is given, in dir, does not exist. The files it writes go to dir.
func docRoot(t *testing.T, dir string, stdout, stderr *bytes.Buffer) *cobra.Command {
	t.Helper()
	root := NewCmdRoot(devNull(t), stdout, stderr)
	// Added by Execute otherwise, which Find comes before.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	run, _, err := root.Find([]string{"run"})
	if err != nil || run == root {
		t.Fatalf("no run command: %v", err)
	}
	root.RemoveCommand(run)
	root.AddCommand(NewCmdRun(devNull(t), stdout, stderr, func(o *RunOptions) error {
		o.Claude = filepath.Join(dir, "claude-not-started")
		if o.Events != "" && o.Events != "-" {
			o.Events = filepath.Join(dir, filepath.Base(o.Events))
		}
		if o.Record != "" {
			o.Record = filepath.Join(dir, filepath.Base(o.Record))
		}
		return runRun(o)
	}))
	return root
}

// How a doc's line is exercised, by its command.
const (
	parseOnly     = iota // flags and arguments parsed: it would start Claude, block, change your config or reach an inbox
	runs                 // run for real: exit 0, or the status the doc says
	runsToClaude         // run up to starting Claude (docRoot)
	runsToSession        // run up to finding the session, of which there is none
)

func howExercised(path string, args []string) int {
	switch {
	case slices.ContainsFunc(args, func(a string) bool { return a == "--help" || a == "-h" || a == "--version" }):
		return runs
	case slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--inbox") }):
		return parseOnly // the inbox's servers are not the reader's
	case path == "claudewrap run":
		return runsToClaude
	case path == "claudewrap answer":
		return runsToSession
	case path == "claudewrap rules check", path == "claudewrap rules test", path == "claudewrap version",
		path == "claudewrap replay", path == "claudewrap pending", strings.HasPrefix(path, "claudewrap completion"):
		return runs
	}
	return parseOnly
}

// TestDocCommands exercises every command line of README.md and docs/*.md,
// from the repository's root, so that none can go stale: each must name a
// command that exists, with flags it has and values they take. Those that
// start no Claude and need no running session run for real and must exit 0,
// or with the status the line's comment says ("# exit 1: …"); run lines run
// until they would start Claude, answer lines until they look for the
// session.
func TestDocCommands(t *testing.T) {
	cmds := docCommands(t)
	if len(cmds) < 40 {
		t.Fatalf("found %d command lines in the docs; the extraction is broken", len(cmds))
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"} {
		t.Setenv(v, t.TempDir())
	}
	t.Setenv("CLAUDEWRAP_CLAUDE", "")
	for _, c := range cmds {
		words, comment, err := shellWords(c.text)
		if err != nil {
			t.Errorf("%v: %v", c, err)
			continue
		}
		args := words[1:]
		code, annotated := wantExit(comment)

		var out, errb bytes.Buffer
		cmd, rest, err := docRoot(t, t.TempDir(), &out, &errb).Find(args)
		if err != nil {
			t.Errorf("%v: %v", c, err)
			continue
		}
		how := howExercised(cmd.CommandPath(), args)
		if !annotated || code == ExitOK || how == parseOnly {
			// Defined by Execute otherwise.
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%v: %v", c, err)
				continue
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Errorf("%v: %v", c, err)
				continue
			}
		}
		if how == parseOnly {
			continue
		}

		out.Reset()
		errb.Reset()
		dir := t.TempDir()
		tree := docRoot(t, dir, &out, &errb)
		tree.SetArgs(args)
		err = execute(tree)
		got := ExitOK
		if err != nil {
			got = codeOf(err)
		}
		said := fmt.Sprintf("exit %d, error %v", got, err)
		if errb.Len() > 0 {
			said += "\nstderr:\n" + errb.String()
		}
		switch {
		case annotated:
			if got != code {
				t.Errorf("%v: want exit %d, got %s", c, code, said)
			}
		case how == runsToClaude:
			if got != ExitStart || !strings.Contains(fmt.Sprint(err), "claude-not-started") {
				t.Errorf("%v: want everything accepted up to starting Claude (exit 3, no such Claude), got %s", c, said)
			}
		case how == runsToSession:
			if got != ExitError || !strings.Contains(fmt.Sprint(err), "no running session") {
				t.Errorf("%v: want the answer accepted and no session found, got %s", c, said)
			}
		case got != ExitOK:
			t.Errorf("%v: want exit 0, got %s", c, said)
		}
	}
}

// rulesBlocks returns the yaml blocks of the docs: each is a rules file, or
// a part of one without its version line.
func rulesBlocks(t *testing.T, file string) []block {
	t.Helper()
	var yb []block
	for _, b := range fencedBlocks(t, file) {
		if b.lang == "yaml" {
			yb = append(yb, b)
		}
	}
	return yb
}

// checkRules runs rules check on the block, with "version: 1" put first
// when it has none, and returns what it said on failure.
func checkRules(t *testing.T, b block, strict bool) error {
	t.Helper()
	text := strings.Join(b.lines, "\n") + "\n"
	if !strings.HasPrefix(text, "version:") {
		text = "version: 1\n" + text
	}
	path := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"rules", "check", "--skip-programs", path}
	if strict {
		args = append(args, "--strict")
	}
	var out, errb bytes.Buffer
	root := NewCmdRoot(devNull(t), &out, &errb)
	root.SetArgs(args)
	if err := execute(root); err != nil {
		return fmt.Errorf("%v\n%s", err, errb.String())
	}
	return nil
}

// TestDocRules checks every yaml block of README.md and docs/*.md with
// claudewrap rules check --strict: an example that shows a rule shows one
// a run takes.
func TestDocRules(t *testing.T) {
	n := 0
	for _, f := range docFiles(t) {
		for _, b := range rulesBlocks(t, f) {
			n++
			if err := checkRules(t, b, true); err != nil {
				t.Errorf("%s:%d: the rules example is refused: %v", f, b.start, err)
			}
		}
	}
	if n < 5 {
		t.Errorf("found %d yaml blocks in the docs; the extraction is broken", n)
	}
}

// TestReadmeIsAGuide keeps README.md short and its lines short, with a
// rules file a person reads early.
func TestReadmeIsAGuide(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) >= 200 {
		t.Errorf("README.md has %d lines; keep it under 200 and move the rest to docs/", len(lines))
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > 110 && !strings.HasPrefix(l, "|") && !strings.Contains(l, "://") {
			t.Errorf("README.md:%d: %d characters; keep lines to 110 (tables and addresses aside)", i+1, n)
		}
	}
	early := false
	for _, b := range rulesBlocks(t, "README.md") {
		if b.start <= 80 && checkRules(t, b, false) == nil {
			early = true
		}
	}
	if !early {
		t.Error("README.md: want a rules example (a yaml block rules check takes) within its first 80 lines")
	}
}

// TestDocLinks checks the relative links of README.md and docs/*.md: the
// file must exist and, for a Markdown file, the heading a #fragment names.
func TestDocLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			for _, m := range link.FindAllStringSubmatch(l, -1) {
				target, frag, _ := strings.Cut(m[1], "#")
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path := f
				if target != "" {
					path = filepath.Join(filepath.Dir(f), target)
				}
				if _, err := os.Stat(filepath.Join(repoRoot, path)); err != nil {
					t.Errorf("%s:%d: link to %s: %v", f, i+1, m[1], err)
					continue
				}
				if frag != "" && strings.HasSuffix(path, ".md") && !slices.Contains(anchors(t, path), frag) {
					t.Errorf("%s:%d: link to %s: no such heading in %s", f, i+1, m[1], path)
				}
			}
		}
	}
}

// anchors returns the fragments GitHub makes of a Markdown file's headings:
// lower case, spaces as hyphens, other punctuation left out.
func anchors(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	inCode := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		var a strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#"))) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				a.WriteRune(r)
			}
		}
		out = append(out, a.String())
	}
	return out
}

// TestReadmeClaudePath: the Claude Code README.md says make demo installed
// is the one it installs, the first of the Makefile's CLAUDE_VERSIONS.
func TestReadmeClaudePath(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^CLAUDE_VERSIONS\s*\?=\s*(\S+)`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile: no CLAUDE_VERSIONS")
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := ".cache/claude-code/" + string(m[1]) + "/node_modules/.bin/claude"
	if !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not say make demo installs %s", want)
	}
}
