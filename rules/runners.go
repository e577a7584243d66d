package rules

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// runners are the commands that run another command, or evaluate text, by
// name: how each is read. Any other command is judged by its own text.
//
//   - Harmless wrappers (command, exec, builtin, nohup, nice, setsid,
//     timeout, stdbuf, ionice, chrt, taskset, prlimit, flock, time, env with
//     nothing to set, busybox, zsh's noglob…): their text is a part a deny
//     or ask sees, and the command they run is the next part; an allow
//     needs only that one.
//   - Wrappers that change who runs the command, where, with which
//     environment or with which words (sudo, doas, run0, pkexec, runuser,
//     setpriv, unshare, nsenter, chroot, firejail, systemd-run, strace,
//     env VAR=…, env -i, time -o, xargs, find -exec…): their text and the
//     command they run are both parts an allow needs. An option a wrapper
//     does not know makes its part opaque: it may take a value and the
//     command start later, so a deny also reads the words after the next.
//   - What runs a string or its input as commands (eval, sh -c and the
//     other shells, source and ., trap, alias, watch, su, env -S, script
//     -c, sg, parallel, flock -c): a part no rule can allow. A literal
//     string in it is read as a script too, so that a deny sees the
//     commands inside; a string from an expansion, or input from a pipe or
//     a substitution (sh <(curl …), source /dev/stdin), makes it opaque. A
//     shell given a script file is judged by its own text, as any program
//     is.
//   - Builtins that evaluate a name's subscript or a string (printf -v,
//     read, mapfile, unset, test -v, getopts, wait -p, let, declare -i and
//     -n), or make a name run another command (hash -p, enable, alias):
//     opaque when they do.
var runners map[string]func(*reader, cmd, string)

func init() {
	harmless := func(o getopt) func(*reader, cmd, string) {
		return wrapper{getopt: o, harmless: true}.read
	}
	timeout := wrapper{getopt: getopt{flags: "v", values: "sk", long: []string{"foreground", "preserve-status", "verbose"},
		longVals: []string{"signal", "kill-after"}}, operands: 1, harmless: true}.read
	strace := wrapper{getopt: getopt{flags: "cCdDfFhiknqrtTvVwxyzZ", values: "abeEIoOpPsSuUX",
		long: []string{"summary-only", "summary", "follow-forks", "output-separately", "daemonize", "instruction-pointer",
			"stack-traces", "quiet", "relative-timestamps", "absolute-timestamps", "syscall-times", "no-abbrev", "version",
			"help", "debug", "summary-wall-clock", "decode-fds", "decode-pids", "successful-only", "failed-only", "seccomp-bpf"},
		longVals: []string{"columns", "detach-on", "expr", "env", "output", "summary-sort-by", "string-limit", "attach",
			"trace-path", "user", "trace", "signal", "status", "quiet", "decode-fds", "interruptible", "timestamps"}},
		quiet: []string{"-p", "--attach"}}.read
	runners = map[string]func(*reader, cmd, string){
		"command":    wrapper{getopt: getopt{flags: "pvV"}, quiet: []string{"-v", "-V"}, harmless: true}.read,
		"exec":       harmless(getopt{flags: "cl", values: "a"}),
		"builtin":    harmless(getopt{}),
		"nohup":      harmless(getopt{}),
		"noglob":     harmless(getopt{}),
		"nocorrect":  harmless(getopt{}),
		"busybox":    harmless(getopt{}),
		"toybox":     harmless(getopt{}),
		"--":         harmless(getopt{}), // time -p -- cmd
		"eatmydata":  harmless(getopt{}),
		"unbuffer":   harmless(getopt{flags: "p"}),
		"caffeinate": harmless(getopt{flags: "dimsu", values: "tw"}),
		"setsid":     harmless(getopt{flags: "cfw", long: []string{"ctty", "fork", "wait"}}),
		"nice":       harmless(getopt{values: "n", longVals: []string{"adjustment"}, digits: true}),
		"stdbuf":     harmless(getopt{values: "ioe", longVals: []string{"input", "output", "error"}}),
		"timeout":    timeout,
		"gtimeout":   timeout,
		"ionice": wrapper{getopt: getopt{flags: "t", values: "cnpPu", long: []string{"ignore"},
			longVals: []string{"class", "classdata", "pid", "pgid", "uid"}},
			quiet: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}, harmless: true}.read,
		"chrt": wrapper{getopt: getopt{flags: "abdfimoprRv", values: "TPD",
			long:     []string{"all-tasks", "batch", "deadline", "fifo", "idle", "max", "other", "pid", "rr", "reset-on-fork", "verbose"},
			longVals: []string{"sched-runtime", "sched-period", "sched-deadline"}},
			operands: 1, quiet: []string{"-p", "--pid", "-m", "--max"}, harmless: true}.read,
		"taskset": wrapper{getopt: getopt{flags: "acp", long: []string{"all-tasks", "cpu-list", "pid"}},
			operands: 1, quiet: []string{"-p", "--pid"}, harmless: true}.read,
		"prlimit": wrapper{getopt: getopt{optional: "cdefilmnqrstuvxy", values: "po",
			long: []string{"noheadings", "raw", "verbose", "core", "data", "nice", "fsize", "sigpending", "memlock", "rss",
				"nofile", "msgqueue", "rtprio", "stack", "cpu", "nproc", "as", "locks", "rttime"},
			longVals: []string{"pid", "output"}}, quiet: []string{"-p", "--pid"}, harmless: true}.read,
		"flock": readFlock,
		"time": wrapper{getopt: getopt{flags: "pvqa", values: "fo", long: []string{"portability", "verbose", "quiet", "append"},
			longVals: []string{"format", "output"}}, heavy: []string{"-o", "--output", "-a", "--append"}, harmless: true}.read,
		"sudo": wrapper{getopt: getopt{flags: "AbBEeHiKklNnPSsVv", values: "CDghpRrTtUu",
			long: []string{"askpass", "background", "bell", "preserve-env", "edit", "help", "set-home", "login",
				"remove-timestamp", "reset-timestamp", "list", "non-interactive", "preserve-groups", "stdin", "shell",
				"version", "validate"},
			longVals: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "type",
				"command-timeout", "other-user", "user"}},
			quiet: []string{"-e", "--edit", "-l", "--list", "-v", "--validate", "-V", "--version", "-K", "--remove-timestamp", "--help"},
			shell: []string{"-s", "--shell", "-i", "--login"}, assigns: true}.read,
		"doas": wrapper{getopt: getopt{flags: "Lns", values: "Cu"}, quiet: []string{"-L", "-C"}, shell: []string{"-s"}}.read,
		"run0": wrapper{getopt: getopt{flags: "hV", values: "ugD",
			long: []string{"no-ask-password", "slice-inherit", "help", "version"},
			longVals: []string{"unit", "property", "description", "slice", "user", "group", "nice", "chdir", "setenv",
				"background", "machine", "pty", "shell-prompt-prefix"}}, bare: true}.read,
		"pkexec": wrapper{getopt: getopt{long: []string{"keep-cwd", "disable-internal-agent", "version", "help"},
			longVals: []string{"user"}}, bare: true}.read,
		"systemd-run": wrapper{getopt: getopt{flags: "dGhPqrStu", values: "pEHM",
			long: []string{"user", "system", "scope", "pty", "pipe", "quiet", "collect", "wait", "same-dir", "shell",
				"no-block", "no-ask-password", "remain-after-exit", "send-sighup", "help", "version", "expand-environment", "ignore-failure"},
			longVals: []string{"property", "unit", "description", "slice", "uid", "gid", "nice", "working-directory",
				"setenv", "host", "machine", "on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive",
				"on-calendar", "on-clock-change", "on-timezone-change", "path-property", "socket-property",
				"timer-property", "service-type", "json"}},
			shell: []string{"-S", "--shell"}}.read,
		"setpriv": wrapper{getopt: getopt{flags: "dhV", long: []string{"clear-groups", "dump", "keep-groups", "init-groups",
			"reset-env", "nnp", "no-new-privs", "help", "version"},
			longVals: []string{"groups", "inh-caps", "ambient-caps", "bounding-set", "egid", "gid", "regid", "rgid", "euid",
				"uid", "reuid", "ruid", "securebits", "pdeathsig", "selinux-label", "apparmor-profile", "landlock-access",
				"landlock-rule", "ptracer"}},
			quiet: []string{"-d", "--dump"}}.read,
		"unshare": wrapper{getopt: getopt{flags: "fcrhV", optional: "imnpuUCT", values: "RwSGl",
			long: []string{"ipc", "mount", "net", "pid", "uts", "user", "cgroup", "time", "fork", "keep-caps", "kill-child",
				"mount-proc", "map-root-user", "map-current-user", "map-auto", "mount-binfmt", "help", "version"},
			longVals: []string{"map-user", "map-group", "map-users", "map-groups", "propagation", "setgroups", "root", "wd",
				"setuid", "setgid", "monotonic", "boottime", "load-interp"}}, bare: true}.read,
		"nsenter": wrapper{getopt: getopt{flags: "aeFZhV", optional: "muinpCUTrw", values: "tGSW",
			long: []string{"all", "mount", "uts", "ipc", "net", "pid", "cgroup", "user", "time", "root", "wd", "env",
				"no-fork", "follow-context", "preserve-credentials", "keep-caps", "help", "version"},
			longVals: []string{"target", "setgid", "setuid", "wdns", "user-parent", "join-cgroup"}}, bare: true}.read,
		"chroot": wrapper{getopt: getopt{long: []string{"skip-chdir", "help", "version"}, longVals: []string{"groups", "userspec"}},
			operands: 1, bare: true}.read,
		"firejail": wrapper{getopt: getopt{anyLong: true}, bare: true}.read,
		"fakeroot": wrapper{getopt: getopt{flags: "uhv", values: "lsib", long: []string{"unknown-is-real", "help", "version"},
			longVals: []string{"lib", "faked"}}, bare: true}.read,
		"setarch": wrapper{getopt: getopt{flags: "vRFZLXBIST3h", long: []string{"verbose", "addr-no-randomize",
			"fdpic-funcptrs", "mmap-page-zero", "addr-compat-layout", "read-implies-exec", "32bit", "short-inode",
			"whole-seconds", "sticky-timeouts", "3gb", "4gb", "uname-2.6", "list", "help", "version"}},
			lead: 1, bare: true}.read,
		"strace":   strace,
		"ltrace":   strace,
		"runuser":  readRunuser,
		"script":   readScript,
		"sg":       readSg,
		"parallel": readParallel,
		"sem":      readParallel,
		"xargs":    wrapper{getopt: xargsOptions, note: "with words from its input"}.read,
		"env":      readEnv,
		"find":     readFind,
		"eval":     readEval,
		"source":   readSource,
		"trap":     readTrap,
		"alias":    readAlias,
		"watch":    readWatch,
		"su":       readSu,
		"hash":     readHash,
		"enable": func(r *reader, c cmd, from string) {
			rest, met, _ := getopt{flags: "adnps", values: "f"}.scan(c.words[1:])
			p := Part{Text: c.text(), From: from}
			if _, ok := metAny(met, []string{"-f"}); ok || len(rest) > 0 {
				p.Unjudged, p.Opaque = "enable changes which command a name runs", true
			}
			r.add(p)
		},
		"printf": namesRunner(getopt{values: "v"}, func(rest []word, met []opt) []word { return optWords(met, "-v") }),
		"read": namesRunner(getopt{flags: "ers", values: "adinNptu"}, func(rest []word, met []opt) []word {
			return append(optWords(met, "-a"), rest...)
		}),
		"mapfile": readMapfile,
		"unset": namesRunner(getopt{flags: "fvn"}, func(rest []word, met []opt) []word {
			if _, ok := metAny(met, []string{"-f"}); ok {
				return nil
			}
			return rest
		}),
		"getopts": namesRunner(getopt{}, func(rest []word, met []opt) []word {
			if len(rest) < 2 {
				return nil
			}
			return rest[1:2]
		}),
		"wait": namesRunner(getopt{flags: "fn", values: "p"}, func(rest []word, met []opt) []word { return optWords(met, "-p") }),
		"test": readTest,
		"[":    readTest,
		"let": func(r *reader, c cmd, from string) {
			r.add(Part{Text: c.text(), Unjudged: whyArithm, Opaque: true, From: from})
		},
	}
	runners["."] = runners["source"]
	runners["readarray"] = runners["mapfile"]
	for _, d := range []string{"declare", "typeset", "local", "export", "readonly"} {
		runners[d] = readDeclare
	}
	for _, sh := range []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh"} {
		runners[sh] = readShell
	}
}

// wrapper is a command that runs the command in its words.
type wrapper struct {
	getopt
	lead     int      // its own operands before its options (setarch's architecture)
	operands int      // its own operands before the command (timeout's duration)
	quiet    []string // options with which it runs no command (command -v)
	heavy    []string // options that make a harmless wrapper more (time -o writes a file)
	shell    []string // options with which, given no command, it starts a shell (sudo -s)
	bare     bool     // given no command, it starts a shell (unshare, chroot)
	assigns  bool     // NAME=value words before the command set its environment (sudo)
	harmless bool     // it leaves what the command does as it was: an allow needs only the command
	note     string   // said of the command it runs
}

func (w wrapper) read(r *reader, c cmd, from string) {
	name := c.words[0].lit
	rest, met, unknown := w.scan(c.words[1+min(w.lead, len(c.words)-1):])
	if len(c.words) <= w.lead {
		rest = nil
	}
	p := Part{Text: c.text(), From: from, Through: w.harmless}
	if unknown != "" {
		p.Unjudged = name + ": option " + unknown + " not known: what it runs cannot be told"
		p.Opaque, p.Through = true, false
	}
	if _, ok := metAny(met, w.heavy); ok {
		p.Through = false
	}
	if _, ok := metAny(met, w.quiet); ok || len(rest) <= w.operands {
		// It runs no command: it is a command like any other, or a shell.
		p.Through = false
		o, shell := metAny(met, w.shell)
		if (shell || w.bare) && p.Unjudged == "" && len(rest) <= w.operands {
			starts := name
			if shell {
				starts += " " + o.name
			}
			p.Unjudged, p.Opaque = starts+" starts a shell that reads commands from its input", true
		}
		r.add(p)
		return
	}
	run := rest[w.operands:]
	if w.assigns {
		for len(run) > 1 && run[0].ok && envAssignment(run[0].lit) {
			p.Through = false
			r.noteCode(&p, run[0].lit)
			run = run[1:]
		}
	}
	r.add(p)
	runs := "run by " + name
	if w.note != "" {
		runs += ", " + w.note
	}
	r.read(c.with(run), joinFrom(from, runs))
	if unknown != "" && len(run) > 1 {
		// The option not known may take the next word as its value.
		r.read(c.with(run[1:]), joinFrom(from, runs+", if "+unknown+" takes a value"))
	}
}

// noteCode makes p opaque when assign (NAME=value) sets a variable whose
// value bash runs or expands as commands, and notes the value as text a
// deny reads as commands.
func (r *reader) noteCode(p *Part, assign string) {
	name, value, _ := strings.Cut(assign, "=")
	if why := codeVariable(name); why != "" {
		if p.Unjudged == "" {
			p.Unjudged = why
		}
		p.Opaque, p.Through = true, false
		r.code(value)
	}
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
		p.Opaque, p.Through = true, false
	}
	for _, o := range met {
		if o.name != "-v" && o.name != "--debug" {
			p.Through = false
		}
	}
	for len(rest) > 0 && rest[0].ok && (rest[0].lit == "-" || envAssignment(rest[0].lit)) {
		r.noteCode(&p, rest[0].lit)
		rest = rest[1:]
		p.Through = false
	}
	if s, ok := metAny(met, []string{"-S", "--split-string"}); ok {
		p.Unjudged, p.Through = "env -S splits a string into a command", false
		script, literal := s.value, s.word.ok
		for _, w := range rest {
			script += " " + w.text
			literal = literal && w.ok
		}
		p.Opaque = p.Opaque || !literal
		r.add(p)
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
	if unknown != "" && len(rest) > 1 {
		r.read(c.with(rest[1:]), joinFrom(from, "run by env, if "+unknown+" takes a value"))
	}
}

// envAssignment reports whether env or sudo take the word s for NAME=value
// to set: any word with = after its first character, which a bash it
// starts may read (BASH_FUNC_f%%=() { …; }).
func envAssignment(s string) bool { return strings.IndexByte(s, '=') > 0 }

// isAssignment reports whether s is NAME=value.
func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && validName(name)
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
	r.runString(Part{Text: c.text(), Unjudged: "eval runs its words as commands", From: from}, c.words[1:], joinFrom(from, "inside eval"))
}

// runString adds p, a command that runs words joined by spaces as a
// script, and reads that script when every word is literal; else p is
// opaque.
func (r *reader) runString(p Part, words []word, from string) {
	lits := make([]string, 0, len(words))
	for _, w := range words {
		if !w.ok {
			p.Opaque = true
			r.add(p)
			return
		}
		lits = append(lits, w.lit)
	}
	r.add(p)
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
// script file, it is judged by its text. A string from an expansion, or
// input the line does not show (a pipe, a substitution), makes it opaque;
// input from a file is a script file.
func readShell(r *reader, c cmd, from string) {
	name := c.words[0].lit
	rest, met, _ := shellOptions.scan(c.words[1:])
	p := Part{Text: c.text(), From: from}
	_, command := metAny(met, []string{"-c", "--command"})
	_, input := metAny(met, []string{"-s", "-i", "--interactive"})
	switch {
	case command:
		p.Unjudged = name + " -c runs a string as commands"
		if len(rest) == 0 {
			r.add(p)
			return
		}
		r.runString(p, rest[:1], joinFrom(from, "inside "+name+" -c"))
	case len(rest) == 0 || input || isInput(rest[0]):
		r.readInput(p, c, name+" reads commands from its input", joinFrom(from, "inside "+name+"'s input"))
	default:
		r.add(p) // a script file: judged by its name, like any program
	}
}

// readSource reads source and .: the commands of a file run in this
// shell, unjudged as a script file is; its input (/dev/stdin, <(…)) as a
// shell's is.
func readSource(r *reader, c cmd, from string) {
	p := Part{Text: c.text(), From: from}
	if len(c.words) > 1 && isInput(c.words[1]) {
		r.readInput(p, c, c.words[0].lit+" runs the commands of its input", joinFrom(from, "inside "+c.words[0].lit+"'s input"))
		return
	}
	p.Unjudged = "source runs a file's commands in this shell"
	r.add(p)
}

// isInput reports whether w, a shell's script file, is its input or what
// a substitution gives rather than a file: -, /dev/stdin, /dev/fd/N, a
// name from an expansion or <(…).
func isInput(w word) bool {
	return !w.ok || w.lit == "-" || w.lit == "/dev/stdin" || strings.HasPrefix(w.lit, "/dev/fd/") ||
		strings.HasPrefix(w.lit, "/proc/") && strings.Contains(w.lit, "/fd/")
}

// readInput adds p, a command that runs the commands of its input, and
// reads a literal here-document or here-string it is given as a script;
// input the line does not show (a pipe, a substitution, an expansion)
// makes p opaque, a file makes it a script file.
func (r *reader) readInput(p Part, c cmd, why, from string) {
	p.Unjudged = why
	shown := false
	var bodies []string
	for _, rd := range c.stmt {
		if rd.N != nil && rd.N.Value != "0" {
			continue
		}
		switch body, ok := redirected(rd); {
		case ok:
			shown = true
			bodies = append(bodies, body)
		case rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc || rd.Op == syntax.WordHdoc:
			p.Opaque = true // a here-document with an expansion
		case rd.Op == syntax.RdrIn || rd.Op == syntax.RdrInOut:
			if _, _, ok := literal(rd.Word); ok {
				shown = true // a script file, as sh FILE
			} else {
				p.Opaque = true // <(…), or a name from an expansion
			}
		}
	}
	for _, w := range c.words[1:] {
		if !w.ok && !strings.HasPrefix(w.text, "-") {
			p.Opaque = true // sh <(curl …), . "$f"
		}
	}
	if !shown {
		p.Opaque = true // a pipe, or what runs it gives
	}
	r.add(p)
	for _, body := range bodies {
		r.script(body, from)
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
	r.runString(Part{Text: c.text(), Unjudged: "trap runs a string as commands later", From: from}, rest[:1], joinFrom(from, "inside trap"))
}

// readAlias reads alias: a name given a text runs that text. The name's
// uses are read as the text ([reader.define]).
func readAlias(r *reader, c cmd, from string) {
	p := Part{Text: c.text(), From: from}
	var texts []string
	for _, w := range c.words[1:] {
		if _, text, ok := strings.Cut(w.lit, "="); w.ok && ok {
			texts = append(texts, text)
		} else if !w.ok {
			p.Unjudged, p.Opaque = "alias makes a name run a text", true
		}
	}
	if len(texts) > 0 {
		p.Unjudged = "alias makes a name run a text"
	}
	r.define(c.words)
	r.add(p)
	for _, t := range texts {
		r.script(t, joinFrom(from, "inside alias"))
	}
}

var hashOptions = getopt{flags: "lrt", values: "pd"}

// readHash reads hash: with -p it makes a name run the program at a path,
// and the name's uses are read as that program ([reader.define]).
func readHash(r *reader, c cmd, from string) {
	_, met, _ := hashOptions.scan(c.words[1:])
	p := Part{Text: c.text(), From: from}
	if o, ok := metAny(met, []string{"-p"}); ok {
		p.Unjudged, p.Opaque = "hash -p makes a name run "+o.value, true
	}
	r.define(c.words)
	r.add(p)
}

// readWatch reads watch: it runs its words with sh -c, again and again.
func readWatch(r *reader, c cmd, from string) {
	rest, _, _ := getopt{flags: "bcdeghprtwx", values: "nq",
		long:     []string{"beep", "color", "no-color", "differences", "errexit", "chgexit", "no-title", "no-wrap", "exec", "precise", "no-rerun"},
		longVals: []string{"interval", "equexit", "shotsdir"}}.scan(c.words[1:])
	r.runString(Part{Text: c.text(), Unjudged: "watch runs its words with sh -c", From: from}, rest, joinFrom(from, "inside watch"))
}

// readSu reads su: it starts a shell, given a string (-c) or reading its
// input. Its options may come after the user's name.
func readSu(r *reader, c cmd, from string) {
	p := Part{Text: c.text(), Unjudged: "su starts a shell that reads commands from its input", Opaque: true, From: from}
	var script []word
	words := c.words[1:]
	for i, w := range words {
		name, value, hasValue := strings.Cut(w.lit, "=")
		switch {
		case !w.ok:
		case name == "-c" || name == "--command" || name == "--session-command" || name == "-C":
			script = []word{}
			switch {
			case hasValue:
				script = []word{named(value)}
			case i+1 < len(words):
				script = words[i+1 : i+2]
			}
		case strings.HasPrefix(w.lit, "-c") && !strings.HasPrefix(w.lit, "--"):
			script = []word{named(w.lit[2:])}
		default:
			continue
		}
		break
	}
	if script == nil {
		r.add(p)
		return
	}
	p.Unjudged, p.Opaque = "su -c runs a string as commands", false
	r.runString(p, script, joinFrom(from, "inside su -c"))
}

// readRunuser reads runuser: with -u it runs a command as a user, else it
// is su.
func readRunuser(r *reader, c cmd, from string) {
	w := wrapper{getopt: getopt{flags: "flmpPhV", values: "ugGs", long: []string{"login", "preserve-environment", "pty", "help", "version"},
		longVals: []string{"user", "group", "supp-group", "shell", "session-command", "command", "whitelist-environment", "w"}}, bare: true}
	_, met, _ := w.scan(c.words[1:])
	if _, ok := metAny(met, []string{"-u", "--user"}); ok {
		if _, ok := metAny(met, []string{"-c", "--command", "--session-command"}); !ok {
			w.read(r, c, from)
			return
		}
	}
	readSu(r, c, from)
}

// readFlock reads flock: it runs a command, or a string (-c), holding a
// lock on a file; given only a file descriptor it runs nothing.
func readFlock(r *reader, c cmd, from string) {
	w := wrapper{getopt: getopt{flags: "sexnouFhV", values: "wE",
		long:     []string{"shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose", "help", "version"},
		longVals: []string{"wait", "timeout", "conflict-exit-code"}}, operands: 1, harmless: true}
	rest, _, _ := w.scan(c.words[1:])
	if len(rest) >= 2 && rest[1].ok && (rest[1].lit == "-c" || rest[1].lit == "--command") {
		r.runString(Part{Text: c.text(), Unjudged: "flock -c runs a string as commands", From: from}, rest[2:min(3, len(rest))],
			joinFrom(from, "inside flock -c"))
		return
	}
	w.read(r, c, from)
}

// readScript reads script: it runs a string (-c) in a shell, or starts a
// shell that reads its input; on BSD and macOS the words after the file
// are a command it runs.
func readScript(r *reader, c cmd, from string) {
	rest, met, unknown := getopt{flags: "aeEfFkqrh", values: "BIOTmoc", optional: "t",
		long:     []string{"append", "return", "flush", "force", "quiet", "help", "version"},
		longVals: []string{"command", "echo", "log-io", "log-in", "log-out", "log-timing", "logging-format", "output-limit", "timing"}}.scan(c.words[1:])
	p := Part{Text: c.text(), From: from}
	if o, ok := metAny(met, []string{"-c", "--command"}); ok {
		p.Unjudged = "script -c runs a string as commands"
		p.Opaque = unknown != ""
		r.runString(p, []word{o.word}, joinFrom(from, "inside script -c"))
		return
	}
	if len(rest) > 1 {
		p.Unjudged, p.Opaque = "script runs the command after its file", unknown != ""
		r.add(p)
		r.read(c.with(rest[1:]), joinFrom(from, "run by script"))
		return
	}
	p.Unjudged, p.Opaque = "script starts a shell that reads commands from its input", true
	r.add(p)
}

// readSg reads sg: it runs a string with sh -c as a group.
func readSg(r *reader, c cmd, from string) {
	words := c.words[1:]
	if len(words) > 0 && words[0].ok && words[0].lit == "-" {
		words = words[1:]
	}
	p := Part{Text: c.text(), Unjudged: "sg runs a string with sh -c", From: from}
	if len(words) < 2 {
		p.Unjudged, p.Opaque = "sg starts a shell that reads commands from its input", true
		r.add(p)
		return
	}
	words = words[1:]
	if words[0].ok && words[0].lit == "-c" {
		words = words[1:]
	}
	r.runString(p, words, joinFrom(from, "inside sg"))
}

// readParallel reads GNU parallel: its words before ::: are a command it
// runs with a shell, once for each argument; with none it runs the lines
// of its input as commands.
func readParallel(r *reader, c cmd, from string) {
	rest, _, unknown := getopt{flags: "0ekqruvX", values: "jnNIEdaLlPCSsmM",
		long: []string{"null", "keep-order", "quote", "ungroup", "verbose", "xargs", "dry-run", "bar", "progress", "eta",
			"group", "line-buffer", "tag", "halt-on-error", "pipe", "pipepart", "no-notice", "will-cite", "shuf", "version",
			"help", "lb", "plain", "nonall", "onall", "fg", "bg", "semaphore", "citation"},
		longVals: []string{"jobs", "max-args", "max-replace-args", "replace", "eof", "delimiter", "arg-file", "max-lines",
			"sshlogin", "colsep", "results", "joblog", "timeout", "tmpdir", "workdir", "env", "tag-string", "basefile",
			"transferfile", "return", "retries", "delay", "memfree", "load", "nice", "halt", "block", "id", "shebang",
			"tagstring", "sshloginfile", "retry-failed", "resume", "max-chars"}}.scan(c.words[1:])
	end := slices.IndexFunc(rest, func(w word) bool { return w.ok && strings.HasPrefix(w.lit, ":::") })
	if end < 0 {
		end = len(rest)
	}
	p := Part{Text: c.text(), Unjudged: "parallel runs its words with a shell", Opaque: unknown != "", From: from}
	if end == 0 {
		p.Unjudged, p.Opaque = "parallel runs the lines of its input as commands", true
		r.add(p)
		return
	}
	// Each command is the words with an argument after them, or in {}.
	words := slices.Clone(rest[:end])
	if end < len(rest) {
		for _, w := range rest[end+1:] {
			if w.ok && strings.HasPrefix(w.lit, ":::") {
				break
			}
			words = append(words, w)
		}
	}
	r.runString(p, words, joinFrom(from, "inside parallel"))
}

// pathBase is the last element of the path p, p itself for a name.
func pathBase(p string) string {
	if b := path.Base(p); b != "." && b != "/" {
		return b
	}
	return p
}
