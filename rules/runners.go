package rules

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// runners are the commands that run another command, by name: how each
// is read. Any other command is judged by its own text.
//
//   - Harmless wrappers (command, exec, builtin, nohup, nice, setsid,
//     timeout, stdbuf, ionice, time, env with nothing to set, busybox, zsh's
//     noglob): their text is a part a deny or ask sees, and the command
//     they run is the next part; an allow needs only that one.
//   - Wrappers that change who runs the command, with which environment or
//     with which words (sudo, doas, env VAR=…, env -i, time -o, xargs, find
//     -exec): their text and the command they run are both parts an allow
//     needs.
//   - What runs a string or its input as commands (eval, sh -c and the
//     other shells, source and ., trap, alias, watch, su, env -S): a part no
//     rule can allow. A literal string in it is read as a script too, so
//     that a deny sees the commands inside. A shell given a script file is
//     judged by its own text, as any program is.
var runners map[string]func(*reader, cmd, string)

func init() {
	harmless := func(o getopt) func(*reader, cmd, string) {
		return wrapper{getopt: o, harmless: true}.read
	}
	runners = map[string]func(*reader, cmd, string){
		"command":   wrapper{getopt: getopt{flags: "pvV"}, quiet: []string{"-v", "-V"}, harmless: true}.read,
		"exec":      harmless(getopt{flags: "cl", values: "a"}),
		"builtin":   harmless(getopt{}),
		"nohup":     harmless(getopt{}),
		"noglob":    harmless(getopt{}),
		"nocorrect": harmless(getopt{}),
		"busybox":   harmless(getopt{}),
		"toybox":    harmless(getopt{}),
		"setsid":    harmless(getopt{flags: "cfw", long: []string{"ctty", "fork", "wait"}}),
		"nice":      harmless(getopt{values: "n", longVals: []string{"adjustment"}, digits: true}),
		"stdbuf":    harmless(getopt{values: "ioe", longVals: []string{"input", "output", "error"}}),
		"timeout": wrapper{getopt: getopt{flags: "v", values: "sk", long: []string{"foreground", "preserve-status", "verbose"},
			longVals: []string{"signal", "kill-after"}}, operands: 1, harmless: true}.read,
		"ionice": wrapper{getopt: getopt{flags: "t", values: "cnpPu", long: []string{"ignore"},
			longVals: []string{"class", "classdata", "pid", "pgid", "uid"}},
			quiet: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}, harmless: true}.read,
		"time": wrapper{getopt: getopt{flags: "pvqa", values: "fo", long: []string{"portability", "verbose", "quiet", "append"},
			longVals: []string{"format", "output"}}, heavy: []string{"-o", "--output", "-a", "--append"}, harmless: true}.read,
		"sudo": wrapper{getopt: getopt{flags: "AbBEeHiKklNnPSsVv", values: "CDghpRrTtUu",
			long: []string{"askpass", "background", "bell", "preserve-env", "edit", "help", "set-home", "login",
				"remove-timestamp", "reset-timestamp", "list", "non-interactive", "preserve-groups", "stdin", "shell",
				"version", "validate"},
			longVals: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "type",
				"command-timeout", "other-user", "user"}},
			quiet: []string{"-e", "--edit", "-l", "--list", "-v", "--validate", "-V", "--version", "-K", "--remove-timestamp", "--help"},
			shell: []string{"-s", "--shell", "-i", "--login"}}.read,
		"doas":  wrapper{getopt: getopt{flags: "Lns", values: "Cu"}, quiet: []string{"-L", "-C"}, shell: []string{"-s"}}.read,
		"xargs": wrapper{getopt: xargsOptions, note: "with words from its input"}.read,
		"env":   readEnv,
		"find":  readFind,
		"eval":  readEval,
		"source": func(r *reader, c cmd, from string) {
			r.add(Part{Text: c.text(), Unjudged: "source runs a file's commands in this shell", From: from})
		},
		"trap":  readTrap,
		"alias": readAlias,
		"watch": readWatch,
		"su":    readSu,
	}
	runners["."] = runners["source"]
	for _, sh := range []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh"} {
		runners[sh] = readShell
	}
}

// getopt describes a command's options, as getopt reads them.
type getopt struct {
	flags    string   // short options with no value
	values   string   // short options with a value, attached or the next word
	optional string   // short options with a value only when attached (xargs -i)
	long     []string // long options with no value (or one after =)
	longVals []string // long options with a value after = or as the next word
	digits   bool     // -N is an option (nice -10)
	plus     bool     // +x sets an option as -x does (the shells)
}

// opt is an option met: "-x" or "--name", with its value.
type opt struct {
	name, value string
}

// scan reads the options at the start of words and returns the words after
// them (after --), the options met, and the first option it does not know
// ("" for none), which it takes for a flag. A word with an expansion ends
// the options: it may be the command.
func (o getopt) scan(words []word) (rest []word, met []opt, unknown string) {
	note := func(s string) {
		if unknown == "" {
			unknown = s
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.ok {
			return words[i:], met, unknown
		}
		s := w.lit
		next := func() string {
			if i+1 < len(words) {
				i++
				return words[i].lit
			}
			return ""
		}
		switch {
		case s == "--":
			return words[i+1:], met, unknown
		case strings.HasPrefix(s, "--"):
			name, value, hasValue := strings.Cut(s[2:], "=")
			switch {
			case slices.Contains(o.longVals, name):
				if !hasValue {
					value = next()
				}
				met = append(met, opt{"--" + name, value})
			case slices.Contains(o.long, name):
				met = append(met, opt{"--" + name, value})
			default:
				note(s)
			}
		case len(s) > 1 && (s[0] == '-' || o.plus && s[0] == '+'):
			if o.digits && strings.Trim(s[1:], "0123456789") == "" {
				met = append(met, opt{"-N", s[1:]})
				continue
			}
			for j := 1; j < len(s); j++ {
				c := s[j]
				name := "-" + string(c)
				switch {
				case strings.IndexByte(o.values, c) >= 0:
					value := s[j+1:]
					if value == "" {
						value = next()
					}
					met = append(met, opt{name, value})
					j = len(s)
				case strings.IndexByte(o.optional, c) >= 0:
					met = append(met, opt{name, s[j+1:]})
					j = len(s)
				case strings.IndexByte(o.flags, c) >= 0:
					met = append(met, opt{name, ""})
				default:
					note(name)
				}
			}
		default:
			return words[i:], met, unknown
		}
	}
	return nil, met, unknown
}

func metAny(met []opt, names []string) (opt, bool) {
	for _, o := range met {
		if slices.Contains(names, o.name) {
			return o, true
		}
	}
	return opt{}, false
}

// wrapper is a command that runs the command in its words.
type wrapper struct {
	getopt
	operands int      // its own operands before the command (timeout's duration)
	quiet    []string // options with which it runs no command (command -v)
	heavy    []string // options that make a harmless wrapper more (time -o writes a file)
	shell    []string // options with which, given no command, it starts a shell (sudo -s)
	harmless bool     // it leaves what the command does as it was: an allow needs only the command
	note     string   // said of the command it runs
}

func (w wrapper) read(r *reader, c cmd, from string) {
	name := c.words[0].lit
	rest, met, unknown := w.scan(c.words[1:])
	p := Part{Text: c.text(), From: from, Through: w.harmless}
	if unknown != "" {
		p.Unjudged = name + ": option " + unknown + " not known: what it runs cannot be told"
		p.Through = false
	}
	if _, ok := metAny(met, w.heavy); ok {
		p.Through = false
	}
	if _, ok := metAny(met, w.quiet); ok || len(rest) <= w.operands {
		// It runs no command: it is a command like any other.
		p.Through = false
		if o, ok := metAny(met, w.shell); ok && len(rest) == 0 && p.Unjudged == "" {
			p.Unjudged = name + " " + o.name + " starts a shell that reads commands from its input"
		}
		r.add(p)
		return
	}
	r.add(p)
	runs := "run by " + name
	if w.note != "" {
		runs += ", " + w.note
	}
	r.read(c.with(rest[w.operands:]), joinFrom(from, runs))
}

var xargsOptions = getopt{flags: "0oprtx", values: "adEILnPs", optional: "eil",
	long: []string{"null", "interactive", "no-run-if-empty", "open-tty", "verbose", "exit", "show-limits", "eof",
		"replace", "max-lines"},
	longVals: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}}

var envOptions = getopt{flags: "i0v", values: "uCSP", long: []string{"ignore-environment", "null", "debug",
	"default-signal", "ignore-signal", "block-signal", "list-signal-handling"},
	longVals: []string{"unset", "chdir", "split-string"}}

// readEnv reads env: a harmless wrapper when it only runs a command, one
// an allow needs too when it sets, unsets or clears the environment or
// changes the folder, and unjudged with -S (a string split into words).
func readEnv(r *reader, c cmd, from string) {
	rest, met, unknown := envOptions.scan(c.words[1:])
	p := Part{Text: c.text(), From: from, Through: true}
	if unknown != "" {
		p.Unjudged = "env: option " + unknown + " not known: what it runs cannot be told"
		p.Through = false
	}
	for _, o := range met {
		if o.name != "-v" && o.name != "--debug" {
			p.Through = false
		}
	}
	for len(rest) > 0 && rest[0].ok && (rest[0].lit == "-" || isAssignment(rest[0].lit)) {
		rest = rest[1:]
		p.Through = false
	}
	if s, ok := metAny(met, []string{"-S", "--split-string"}); ok {
		p.Unjudged = "env -S splits a string into a command"
		r.add(p)
		script := s.value
		for _, w := range rest {
			script += " " + w.text
		}
		r.script(script, joinFrom(from, "inside env -S"))
		return
	}
	if len(rest) == 0 {
		p.Through = false // it prints the environment
		r.add(p)
		return
	}
	r.add(p)
	r.read(c.with(rest), joinFrom(from, "run by env"))
}

// isAssignment reports whether s is NAME=value.
func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if c != '_' && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// readFind reads find: its own text, and each command its -exec, -execdir,
// -ok or -okdir runs on what it finds.
func readFind(r *reader, c cmd, from string) {
	r.add(Part{Text: c.text(), From: from})
	words := c.words[1:]
	for i := 0; i < len(words); i++ {
		switch words[i].lit {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		action := words[i].lit
		end := i + 1
		for end < len(words) && !(words[end].ok && (words[end].lit == ";" || words[end].lit == "+")) {
			end++
		}
		if end > i+1 {
			r.read(cmd{words: words[i+1 : end]}, joinFrom(from, "run by find "+action))
		}
		i = end
	}
}

// readEval reads eval: its words, joined, are a script.
func readEval(r *reader, c cmd, from string) {
	r.add(Part{Text: c.text(), Unjudged: "eval runs its words as commands", From: from})
	r.literalScript(c.words[1:], joinFrom(from, "inside eval"))
}

// literalScript reads words, joined by spaces, as a script, when none has
// an expansion.
func (r *reader) literalScript(words []word, from string) {
	lits := make([]string, 0, len(words))
	for _, w := range words {
		if !w.ok {
			return
		}
		lits = append(lits, w.lit)
	}
	if len(lits) > 0 {
		r.script(strings.Join(lits, " "), from)
	}
}

var shellOptions = getopt{flags: "abcefhiklmnprstuvxBCDEHPT", values: "oO", plus: true,
	long: []string{"debugger", "dump-po-strings", "dump-strings", "help", "login", "noediting", "noprofile", "norc",
		"posix", "pretty-print", "restricted", "verbose", "version", "no-config", "private", "interactive", "command"},
	longVals: []string{"rcfile", "init-file", "init-command"}}

// readShell reads a shell: given a string (-c) or its input to run, no
// rule can allow it, and a literal string is read as a script; given a
// script file, it is judged by its text.
func readShell(r *reader, c cmd, from string) {
	name := c.words[0].lit
	rest, met, _ := shellOptions.scan(c.words[1:])
	p := Part{Text: c.text(), From: from}
	_, command := metAny(met, []string{"-c", "--command"})
	_, input := metAny(met, []string{"-s", "-i", "--interactive"})
	switch {
	case command:
		p.Unjudged = name + " -c runs a string as commands"
		r.add(p)
		if len(rest) > 0 && rest[0].ok {
			r.script(rest[0].lit, joinFrom(from, "inside "+name+" -c"))
		}
	case len(rest) == 0 || input:
		p.Unjudged = name + " reads commands from its input"
		r.add(p)
		for _, rd := range c.stmt {
			if body, ok := redirected(rd); ok {
				r.script(body, joinFrom(from, "inside "+name+"'s input"))
			}
		}
	default:
		r.add(p) // a script file: judged by its name, like any program
	}
}

// redirected is the text a here-document or here-string gives as input,
// when it has no expansion.
func redirected(rd *syntax.Redirect) (string, bool) {
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if rd.Hdoc == nil {
			return "", false
		}
		var b strings.Builder
		for _, p := range rd.Hdoc.Parts {
			l, ok := p.(*syntax.Lit)
			if !ok {
				return "", false
			}
			b.WriteString(l.Value)
		}
		return b.String(), true
	case syntax.WordHdoc:
		v, _, ok := literal(rd.Word)
		return v, ok
	}
	return "", false
}

// readTrap reads trap: a string it runs later, on a signal.
func readTrap(r *reader, c cmd, from string) {
	rest, met, _ := getopt{flags: "lp"}.scan(c.words[1:])
	if len(met) > 0 || len(rest) < 2 {
		r.add(Part{Text: c.text(), From: from}) // it lists or prints
		return
	}
	r.add(Part{Text: c.text(), Unjudged: "trap runs a string as commands later", From: from})
	if rest[0].ok {
		r.script(rest[0].lit, joinFrom(from, "inside trap"))
	}
}

// readAlias reads alias: a name given a text runs that text.
func readAlias(r *reader, c cmd, from string) {
	p := Part{Text: c.text(), From: from}
	var texts []string
	for _, w := range c.words[1:] {
		if _, text, ok := strings.Cut(w.lit, "="); w.ok && ok {
			texts = append(texts, text)
		} else if !w.ok {
			p.Unjudged = "alias makes a name run a text"
		}
	}
	if len(texts) > 0 {
		p.Unjudged = "alias makes a name run a text"
	}
	r.add(p)
	for _, t := range texts {
		r.script(t, joinFrom(from, "inside alias"))
	}
}

// readWatch reads watch: it runs its words with sh -c, again and again.
func readWatch(r *reader, c cmd, from string) {
	rest, _, _ := getopt{flags: "bcdeghprtwx", values: "nq",
		long:     []string{"beep", "color", "no-color", "differences", "errexit", "chgexit", "no-title", "no-wrap", "exec", "precise", "no-rerun"},
		longVals: []string{"interval", "equexit", "shotsdir"}}.scan(c.words[1:])
	r.add(Part{Text: c.text(), Unjudged: "watch runs its words with sh -c", From: from})
	r.literalScript(rest, joinFrom(from, "inside watch"))
}

// readSu reads su: it starts a shell, given a string (-c) or reading its
// input. Its options may come after the user's name.
func readSu(r *reader, c cmd, from string) {
	p := Part{Text: c.text(), Unjudged: "su starts a shell that reads commands from its input", From: from}
	var script string
	given := false
	words := c.words[1:]
	for i, w := range words {
		name, value, hasValue := strings.Cut(w.lit, "=")
		switch {
		case !w.ok:
		case name == "-c" || name == "--command" || name == "--session-command" || name == "-C":
			given = true
			if !hasValue && i+1 < len(words) {
				value = words[i+1].lit
			}
			script = value
		case strings.HasPrefix(w.lit, "-c") && !strings.HasPrefix(w.lit, "--"):
			given, script = true, w.lit[2:]
		default:
			continue
		}
		break
	}
	if given {
		p.Unjudged = "su -c runs a string as commands"
	}
	r.add(p)
	if script != "" {
		r.script(script, joinFrom(from, "inside su -c"))
	}
}
