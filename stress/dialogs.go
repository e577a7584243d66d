package stress

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
	"github.com/claudewrap/claudewrap/rules"
)

// Dialog is a tool call that asks for the person's permission, or plan
// approval (ExitPlanMode), and the permission rule the session has for it;
// or, with Start, a dialog Claude draws before its session starts; or,
// with Elicit, an MCP tool whose server asks the person for input.
type Dialog struct {
	Tool  string
	Input map[string]any
	// Lead is a tool call the fake API makes first, whose tool_result
	// brings this one: the Read an Edit needs, the Write of a plan file.
	// It asks nothing.
	Lead *fakeapi.Block `json:",omitempty"`
	// Decide is the rule's decision: allow, allow_session, deny (with
	// Message), select-yes or select-no (an option by its label), ask (the
	// person answers Claude's own dialog), or none (no rule matches). A
	// headless run has nobody for the last two: the tool must not run.
	Decide  string
	Message string `json:",omitempty"`
	// When is the rule's condition beyond the tool (command, path, host
	// or input), as the rules file writes it.
	When map[string]any `json:",omitempty"`
	// Decoys are rules for the same tool that must not match this call.
	Decoys []map[string]any `json:",omitempty"`
	// Fallible: the tool may fail once allowed (WebFetch without a
	// network), so an error that is no refusal still means it ran.
	Fallible bool `json:",omitempty"`
	// Start, when set, makes the case the trust dialog or the bypass
	// confirmation: no tool, no permission rule.
	Start *Start `json:",omitempty"`
	// Elicit, when set, is the form the MCP server of the tool (allowed
	// by its rule) asks, judged by what the server received.
	Elicit *Elicit `json:",omitempty"`
}

// Decisions a dialog case's rule may make (Dialog.Decide).
const (
	decideAllow   = "allow"
	decideSession = "allow_session"
	decideDeny    = "deny"
	decideYes     = "select-yes"
	decideNo      = "select-no"
	decideAsk     = "ask"
	decideNone    = "none"
	// decideRuns: no rule, and the permission mode (bypass) runs the
	// tool without asking.
	decideRuns = "runs"
)

// Placeholders in a dialog's input and files, filled in when the session
// runs: its project folder (Claude's working folder) and a folder beside it.
const (
	projectDir = "@PROJECT@"
	outsideDir = "@OUTSIDE@"
)

// dialogStream sets the dialogs' random stream apart from the forms',
// modeStream the permission modes' apart from the dialogs'.
const (
	dialogStream = 0x6469616c6f6773
	modeStream   = 0x6d6f6465
)

// GenerateDialogs makes sessions of random dialogs until they hold at
// least n permission prompts and plan approvals: permission prompts (Bash
// commands short, long and on several lines, Write, Edit and Read of
// random paths in the folder and beside it, WebFetch of random URLs) under
// random rules, in sessions Claude runs with --permission-mode default,
// and plan approval (ExitPlanMode with a random plan, with or without a
// plan file) in sessions run with --permission-mode plan, at random sizes;
// some sessions of permission prompts run in accept-edits mode, allowed or
// denied. Those sessions are named d000, d001…; after a share of them
// comes a session of another kind (see kindSession), not counted in n: the
// trust dialog (t…), the bypass confirmation (b…) or an MCP server's input
// form of a random schema (e…). The same seed and n give the same
// sessions; the forms' sessions are apart.
func GenerateDialogs(seed uint64, n int) []Session {
	var out []Session
	for i, k := 0, 0; k < n; i++ {
		g := &dialogGen{r: rand.New(rand.NewPCG(seed^dialogStream, uint64(i))),
			mode: rand.New(rand.NewPCG(seed^modeStream, uint64(i)))}
		s := g.session(i, n-k)
		k += len(s.Cases)
		out = append(out, s)
		if x, ok := kindSession(seed, i); ok {
			out = append(out, x)
		}
	}
	return out
}

type dialogGen struct {
	r *rand.Rand
	// mode draws the sessions run in accept-edits mode and their
	// decisions, apart from r, so that a seed's other dialogs stay what
	// they were before.
	mode   *rand.Rand
	serial int
}

func (g *dialogGen) pick(list []string) string { return list[g.r.IntN(len(list))] }
func (g *dialogGen) chance(p float64) bool     { return g.r.Float64() < p }

// planChance is how likely a dialog session is to be plan approval;
// acceptEditsChance how likely one of permission prompts is to run in
// accept-edits mode, where Claude asks about less and a deny must hold all
// the same.
const (
	planChance        = 0.3
	acceptEditsChance = 0.2
)

func (g *dialogGen) session(i, left int) Session {
	s := Session{Name: fmt.Sprintf("d%03d", i), Files: map[string]string{}}
	s.Cols, s.Rows = g.size()
	s.Prompt = fmt.Sprintf("stress dialogs %s: go on", s.Name)
	id := func(k int) string { return fmt.Sprintf("toolu_dialog_%s_%d", s.Name, k) }
	if g.chance(planChance) {
		s.Mode = "plan"
		s.Cases = []Case{g.plan(id(0))}
	} else {
		s.Mode = "default"
		if g.mode.Float64() < acceptEditsChance {
			s.Mode = "acceptEdits"
		}
		n := min(left, 1+g.r.IntN(4))
		for k := 0; k < n; k++ {
			c := g.permission(id(k), k == n-1, s.Files)
			if s.Mode != "default" {
				// Claude asks about less here: only what holds whether it
				// asks or not, a deny above all.
				c.Dialog.Decide, c.Dialog.Message = decideAllow, ""
				if g.mode.Float64() < 0.6 {
					c.Dialog.Decide = decideDeny
					c.Dialog.Message = fmt.Sprintf("not in %s mode (%s)", s.Mode, c.ID)
				}
				c.Classes = append(c.Classes, "mode-"+s.Mode)
			}
			s.Cases = append(s.Cases, c)
		}
	}
	g.sizeClasses(&s)
	return s
}

// size is a terminal from 60 to 200 columns, often 80 (where plan
// approval wraps its question), and 16 to 50 rows.
func (g *dialogGen) size() (int, int) {
	cols := 60 + g.r.IntN(141)
	if g.chance(0.5) {
		cols = []int{60, 72, 80, 80, 80, 100, 120, 160, 200}[g.r.IntN(9)]
	}
	rows := 16 + g.r.IntN(35)
	if g.chance(0.3) {
		rows = []int{20, 24, 30, 40, 50}[g.r.IntN(5)]
	}
	return cols, rows
}

var dialogWords = []string{
	"alpha", "bravo", "cache", "delta", "queue", "build", "report", "draft", "notes", "config",
	"schema", "worker", "ledger", "banner", "router", "widget", "daemon", "kernel", "vector", "zephyr",
}

func (g *dialogGen) words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = g.pick(dialogWords)
	}
	return strings.Join(w, " ")
}

// denyMessage is a random message for a deny rule, unique in the session.
func (g *dialogGen) denyMessage() string {
	return fmt.Sprintf("no %s in this job (%d)", g.pick(dialogWords), g.serial)
}

// decide draws a rule's decision. A No picked in the dialog, asking and
// no rule act only on a dialog Claude shows (a deny holds whether it asks
// or not), so they are drawn only for a call Claude surely asks about, and
// last in a session: a No stops Claude's turn, and nobody answers the
// others.
func (g *dialogGen) decide(last, asks bool) string {
	list := []string{decideAllow, decideAllow, decideDeny, decideDeny, decideSession, decideYes}
	if last && asks {
		list = append(list, decideNo, decideAsk, decideNone)
	}
	return g.pick(list)
}

// permission is one permission prompt; files gets what the folder must
// hold for it.
func (g *dialogGen) permission(id string, last bool, files map[string]string) Case {
	g.serial++
	n := g.serial
	d := &Dialog{}
	c := Case{ID: id, Dialog: d}
	asks := true
	switch tool := g.pick([]string{"Bash", "Bash", "Bash", "Write", "Edit", "Read", "WebFetch"}); tool {
	case "Bash":
		d.Tool = "Bash"
		var cmd string
		cmd, asks = g.command(n, &c, files)
		d.Input = map[string]any{"command": cmd, "description": "Run step " + fmt.Sprint(n)}
		d.When = map[string]any{"command": commandRule(cmd)}
		d.Decoys = append(d.Decoys, map[string]any{"command": "^" + regexp.QuoteMeta(cmd) + " --decoy$"})
	case "Write":
		d.Tool = "Write"
		path := g.path(projectDir, n)
		if g.chance(0.3) {
			path = g.path(outsideDir, n)
			c.Classes = append(c.Classes, "outside")
		}
		lines := 1 + g.r.IntN(8)
		var body []string
		for i := 0; i < lines; i++ {
			body = append(body, g.words(1+g.r.IntN(20)))
		}
		d.Input = map[string]any{"file_path": path, "content": strings.Join(body, "\n") + "\n"}
		d.When = map[string]any{"path": path}
		d.Decoys = append(d.Decoys, map[string]any{"path": path + ".decoy"})
		c.Classes = append(c.Classes, "write")
	case "Edit":
		d.Tool = "Edit"
		path := g.path(projectDir, n)
		old := fmt.Sprintf("line %d: %s", n, g.words(3+g.r.IntN(10)))
		files[path] = "first line\n" + old + "\nlast line\n"
		d.Lead = &fakeapi.Block{Type: "tool_use", ID: id + "_lead", Name: "Read", Input: map[string]any{"file_path": path}}
		d.Input = map[string]any{"file_path": path, "old_string": old, "new_string": "changed: " + g.words(2+g.r.IntN(12))}
		d.When = map[string]any{"path": path}
		d.Decoys = append(d.Decoys, map[string]any{"path": path + ".decoy"})
		c.Classes = append(c.Classes, "edit")
	case "Read":
		// In the folder Claude reads without asking; beside it, it asks.
		d.Tool = "Read"
		path := g.path(outsideDir, n)
		files[path] = g.words(5) + "\n"
		d.Input = map[string]any{"file_path": path}
		d.When = map[string]any{"path": path}
		d.Decoys = append(d.Decoys, map[string]any{"path": path + ".decoy"})
		asks = false // not known to ask on every version
		c.Classes = append(c.Classes, "read-outside")
	case "WebFetch":
		d.Tool = "WebFetch"
		host := fmt.Sprintf("%s.h%d.example.test", g.pick(dialogWords), n)
		url := "https://" + host + "/" + strings.ReplaceAll(g.words(1+g.r.IntN(6)), " ", "/")
		d.Input = map[string]any{"url": url, "prompt": "Summarise " + g.words(2+g.r.IntN(15)) + "."}
		if g.chance(0.5) {
			d.When = map[string]any{"host": host}
		} else {
			d.When = map[string]any{"host": fmt.Sprintf("*.h%d.example.test", n)}
		}
		d.Decoys = append(d.Decoys, map[string]any{"host": "decoy." + host})
		d.Fallible = true
		c.Classes = append(c.Classes, "webfetch")
	}
	d.Decide = g.decide(last, asks)
	if d.Decide == decideDeny {
		d.Message = g.denyMessage()
	}
	if !g.chance(0.4) {
		d.Decoys = nil
	}
	return c
}

// path is a random file path under dir.
func (g *dialogGen) path(dir string, n int) string {
	parts := []string{dir}
	for i := g.r.IntN(3); i > 0; i-- {
		parts = append(parts, g.pick(dialogWords))
	}
	return strings.Join(append(parts, fmt.Sprintf("%s-%d.txt", g.pick(dialogWords), n)), "/")
}

// commandRule is a command condition that holds for each part of cmd and
// for nothing else: a rule matches each part of a command on its own.
func commandRule(cmd string) string {
	var alts []string
	for _, p := range rules.ReadCommand(cmd) {
		alts = append(alts, regexp.QuoteMeta(p.Text))
	}
	slices.Sort(alts)
	return "^(?:" + strings.Join(slices.Compact(alts), "|") + ")$"
}

// command is a random Bash command that succeeds when it runs, and whether
// Claude surely asks for it in default mode (it writes).
func (g *dialogGen) command(n int, c *Case, files map[string]string) (string, bool) {
	switch g.r.IntN(8) {
	case 0:
		return "echo " + g.words(1+g.r.IntN(4)), false
	case 1:
		c.Classes = append(c.Classes, "long-command")
		return "echo " + g.words(20+g.r.IntN(40)), false
	case 2:
		sub := fmt.Sprintf("out/%s-%d", g.pick(dialogWords), n)
		return fmt.Sprintf("mkdir -p %s && touch %s/%s.txt", sub, sub, g.pick(dialogWords)), true
	case 3:
		return fmt.Sprintf("echo %s > out-%d.txt", g.words(2+g.r.IntN(30)), n), true
	case 4:
		c.Classes = append(c.Classes, "outside")
		return fmt.Sprintf("touch %s/%s-%d.txt", outsideDir, g.pick(dialogWords), n), true
	case 5:
		c.Classes = append(c.Classes, "multi-line")
		return fmt.Sprintf("echo %s > lines-%d.txt\necho %s >> lines-%d.txt", g.words(3), n, g.words(3), n), true
	case 6:
		path := g.path(projectDir, n)
		files[path] = g.words(8) + "\n"
		return fmt.Sprintf("wc -w %s && cp %s %s.copy", path, path, path), true
	default:
		c.Classes = append(c.Classes, "long-command")
		return fmt.Sprintf("for i in 1 2 3; do echo %s $i; done | tr a-z A-Z > upper-%d.txt && cat upper-%d.txt", g.words(10+g.r.IntN(20)), n, n), true
	}
}

// plan is plan approval: ExitPlanMode with a random plan, after writing
// it to the plan file Claude names in plan mode ("Ready to code?") or
// without one ("Exit plan mode?").
func (g *dialogGen) plan(id string) Case {
	g.serial++
	var b strings.Builder
	fmt.Fprintf(&b, "# Plan %d: %s\n", g.serial, g.words(2+g.r.IntN(6)))
	for i, steps := 0, 1+g.r.IntN(8); i < steps; i++ {
		w := g.words(3 + g.r.IntN(30))
		fmt.Fprintf(&b, "%d. %s%s", i+1, strings.ToUpper(w[:1]), w[1:])
		if g.chance(0.2) {
			fmt.Fprintf(&b, " (`%s`)", g.words(2))
		}
		b.WriteString(".\n")
	}
	plan := b.String()
	d := &Dialog{Tool: "ExitPlanMode", Input: map[string]any{"plan": plan}}
	c := Case{ID: id, Dialog: d, Classes: []string{"plan"}}
	if g.chance(0.7) {
		d.Lead = &fakeapi.Block{Type: "tool_use", ID: id + "_lead", Name: "Write", Input: map[string]any{
			"file_path": `{{match:create your plan at (\S+\.md)}}`, "content": plan}}
		c.Classes = append(c.Classes, "plan-file")
	}
	// Without a plan file Claude gives the hooks ExitPlanMode's input
	// empty: only the plan written to the file can be matched.
	if g.chance(0.3) && d.Lead != nil {
		d.When = map[string]any{"input": regexp.QuoteMeta(fmt.Sprintf("Plan %d:", g.serial))}
	}
	d.Decide = g.pick([]string{decideAllow, decideAllow, decideDeny, decideDeny, decideAsk, decideNone})
	if d.Decide == decideDeny {
		d.Message = g.denyMessage()
	}
	return c
}
