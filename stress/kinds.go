package stress

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
)

// Start is a dialog Claude draws before its session starts: the trust
// dialog of a folder it does not trust yet, or the confirmation
// --dangerously-skip-permissions asks for. Such a case has no tool.
type Start struct {
	Kind string // startTrust or startBypass
	// By is who answers it: byFlag (--trust), byRule (the dialogs: entry
	// of the rules file the run names), byFolder (the same entry only in
	// the folder's .claudewrap.yaml, which the person has not allowed: it
	// must not act) or byNone.
	By string
}

// Kinds of start dialogs, and who answers them.
const (
	startTrust  = "trust"
	startBypass = "bypass"

	byFlag   = "flag"
	byRule   = "rule"
	byFolder = "folder"
	byNone   = "none"
)

// Answered says whether the dialog is answered Yes: by the person's flag
// or rule, never by a folder's file they did not allow.
func (s Start) Answered() bool { return s.By == byFlag || s.By == byRule }

// kindStream sets apart the random stream of the dialogs added after the
// permission prompts and plan approval (the trust dialog, the bypass
// confirmation, MCP servers' input forms), so that a seed's other dialogs
// stay what they were before.
const kindStream = 0x6b696e6473

// kindChance is how likely a session of permission prompts or plan
// approval is to be followed by a session of another kind.
const kindChance = 0.4

// kindSession is the session drawn after session i, if any: a trust
// dialog, a bypass confirmation, or an MCP server's input form of a random
// schema, named after its kind and i (t003, b003, e003).
func kindSession(seed uint64, i int) (Session, bool) {
	r := rand.New(rand.NewPCG(seed^kindStream, uint64(i)))
	if r.Float64() >= kindChance {
		return Session{}, false
	}
	g := &dialogGen{r: r, mode: r, serial: 1000 * (i + 1)}
	var s Session
	switch x := r.Float64(); {
	case x < 0.2:
		s = g.startSession(fmt.Sprintf("t%03d", i), startTrust)
	case x < 0.4:
		s = g.startSession(fmt.Sprintf("b%03d", i), startBypass)
	default:
		s = g.elicitSession(fmt.Sprintf("e%03d", i))
	}
	g.sizeClasses(&s)
	return s, true
}

// startSession is a trust dialog or a bypass confirmation, answered or
// not; when it is answered Yes, a permission prompt follows: after the
// trust dialog one of any tool under its rule, in default mode; after
// bypass a Bash command that writes, which bypass mode runs with no rule
// (or denied by one: a deny holds in every mode).
func (g *dialogGen) startSession(name, kind string) Session {
	s := Session{Name: name, Files: map[string]string{}}
	s.Cols, s.Rows = g.size()
	s.Prompt = fmt.Sprintf("stress dialogs %s: go on", name)
	st := &Start{Kind: kind, By: g.pick([]string{byRule, byRule, byFlag, byNone, byFolder})}
	if kind == startBypass {
		st.By = g.pick([]string{byRule, byRule, byRule, byNone, byFolder})
	}
	s.Cases = []Case{{ID: "start_" + name, Dialog: &Dialog{Start: st},
		Classes: []string{kind, kind + "-" + st.By}}}
	if !st.Answered() {
		return s
	}
	id := fmt.Sprintf("toolu_dialog_%s_1", name)
	var c Case
	if kind == startTrust {
		s.Mode = "default"
		c = g.permission(id, true, s.Files)
		c.Classes = append(c.Classes, "after-trust")
	} else {
		g.serial++
		cmd := fmt.Sprintf("echo %s > bypass-%d.txt", g.words(1+g.r.IntN(6)), g.serial)
		d := &Dialog{Tool: "Bash", Input: map[string]any{"command": cmd, "description": fmt.Sprint("Run step ", g.serial)},
			When: map[string]any{"command": commandRule(cmd)}, Decide: decideRuns}
		if g.chance(0.4) {
			d.Decide, d.Message = decideDeny, g.denyMessage()
		}
		c = Case{ID: id, Dialog: d, Classes: []string{"mode-bypass"}}
	}
	s.Cases = append(s.Cases, c)
	return s
}

// sizeClasses gives the cases of s their classes: dialog, the decision
// of a permission rule, chained after another case, and the session's
// size.
func (g *dialogGen) sizeClasses(s *Session) {
	for k := range s.Cases {
		c := &s.Cases[k]
		c.Classes = append(c.Classes, "dialog")
		if d := c.Dialog; d.Start == nil && d.Elicit == nil {
			c.Classes = append(c.Classes, "decide-"+d.Decide)
		}
		if k > 0 {
			c.Classes = append(c.Classes, "chained")
		}
		switch {
		case s.Cols == 80:
			c.Classes = append(c.Classes, "80-columns")
		case s.Cols < 80:
			c.Classes = append(c.Classes, "narrow")
		}
		if s.Rows < 25 {
			c.Classes = append(c.Classes, "short")
		}
		slices.Sort(c.Classes)
		c.Classes = slices.Compact(c.Classes)
	}
}

// judgeStart judges a start dialog by what came of the run: whether the
// prompt reached the API (Claude's session started), whether Claude
// recorded the answer (the folder trusted, bypass mode accepted in its
// settings), the run's exit and whether it ended by itself. Answered, the
// session must have started with the answer recorded; not answered,
// nothing may have started or been recorded, and the headless run must
// end blocked (exit 7).
func judgeStart(st Start, sent, recorded bool, exit int, ended bool) (Outcome, string) {
	what := map[string]string{startTrust: "the folder trusted", startBypass: "bypass mode accepted"}[st.Kind]
	if st.Answered() {
		switch {
		case sent && recorded:
			return Right, ""
		case sent:
			return Failed, "the session started, but Claude did not record " + what
		case !ended:
			return Failed, "the dialog was not answered, and the run did not end by itself"
		}
		return Failed, "the dialog was not answered (the prompt never reached the API)"
	}
	switch {
	case sent:
		return Wrong, "the session started, and nobody the person chose answered Yes"
	case recorded:
		return Wrong, "Claude recorded " + what + ", and nobody the person chose answered Yes"
	case !ended:
		return Failed, "nobody answers it, and the run did not end by itself"
	case exit != 7:
		return Failed, fmt.Sprintf("nothing started, but the run exited %d, not 7 (blocked)", exit)
	}
	return Right, ""
}

// start is the session's start dialog, or nil.
func (s Session) start() *Start {
	for _, c := range s.Cases {
		if c.Dialog != nil && c.Dialog.Start != nil {
			return c.Dialog.Start
		}
	}
	return nil
}

// startRecorded reports whether Claude recorded the start dialog
// answered Yes under home: the project folder trusted in ~/.claude.json,
// bypass mode accepted in ~/.claude/settings.json.
func startRecorded(st Start, home, project string) bool {
	if st.Kind == startBypass {
		b, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
		var set struct{ SkipDangerousModePermissionPrompt bool }
		return json.Unmarshal(b, &set) == nil && set.SkipDangerousModePermissionPrompt
	}
	b, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
	var cfg struct {
		Projects map[string]struct{ HasTrustDialogAccepted bool }
	}
	if json.Unmarshal(b, &cfg) != nil {
		return false
	}
	real, _ := filepath.EvalSymlinks(project)
	for dir, p := range cfg.Projects {
		if dir = filepath.Clean(dir); (dir == project || dir == real) && p.HasTrustDialogAccepted {
			return true
		}
	}
	return false
}
