package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/safe"
	"github.com/claudewrap/claudewrap/remote"
)

// human turns the run's events into the short lines a person reads:
// what Claude asked, who answered and how, what Claude recorded, and a
// summary at the end. Live on a terminal claudewrap does not share with
// Claude (headless); held for the end when Claude draws on the person's
// screen, where a line would corrupt Claude's picture.
type human struct {
	w    io.Writer
	hold bool // passthrough: lines are printed when the run ends

	mu                           sync.Mutex
	held                         []string
	lastErr                      string // an error line waiting for the next event (see event)
	asked, answered, verified    int
	mismatched, cancelled        int
	dialogsAnswered, dialogsSeen int
	permissionsVerified, blocked int
	elicitAsked, elicitAnswered  int
	seenDialogs                  map[string]bool
	// fates are what became of each form, by its tool_use_id, in the
	// order they came; the summary counts them.
	fates map[string]*formFate
	order []string
}

// formFate is what became of one form: who answered it, or whom it was
// left to.
type formFate struct {
	by      answeredBy // who answered it; "" while nobody has
	decided answeredBy // who decided its answers so far
	handed  bool       // left to the person at the screen
	waits   bool       // left waiting for an answer from anywhere
	ended   bool       // cancelled
}

// answeredBy is who answered a form, as the summary words it.
type answeredBy string

const (
	byRules     answeredBy = "by rules"
	byFallback  answeredBy = "by the fallback"
	byYou       answeredBy = "by you"
	byElsewhere answeredBy = "from elsewhere"
)

// byOrder is the order the summary names them in; a form answered by
// several (rules, then a person for the rest) counts as the last of them.
var byOrder = []answeredBy{byRules, byFallback, byYou, byElsewhere}

func newHuman(w io.Writer, hold bool) *human {
	return &human{w: w, hold: hold, seenDialogs: map[string]bool{}, fates: map[string]*formFate{}}
}

// fate is the form id's, made when it is first heard of; a form with no
// id (no hook came for it) is one of its own.
func (h *human) fate(id string) *formFate {
	if id == "" {
		id = fmt.Sprintf("#%d", len(h.order))
	}
	f := h.fates[id]
	if f == nil {
		f = &formFate{}
		h.fates[id] = f
		h.order = append(h.order, id)
	}
	return f
}

// stronger is whichever of a and b byOrder puts last.
func stronger(a, b answeredBy) answeredBy {
	if slices.Index(byOrder, b) > slices.Index(byOrder, a) {
		return b
	}
	return a
}

// say prints or holds one line, made safe for a terminal: it quotes what
// Claude, its tools and the rules' programs said.
func (h *human) say(format string, args ...any) {
	line := "claudewrap: " + safe.Line(fmt.Sprintf(format, args...))
	if h.hold {
		h.held = append(h.held, line)
		return
	}
	fmt.Fprintln(h.w, line)
}

// event is an events.Log watcher.
func (h *human) event(name string, f events.Fields) {
	h.mu.Lock()
	defer h.mu.Unlock()
	str := func(k string) string { s, _ := f[k].(string); return s }
	// The run's last error is the exit's reason, which claudewrap prints
	// on stderr when it exits: said once.
	if h.lastErr != "" {
		if name != "exit" || str("reason") != h.lastErr {
			h.say("error: %s", h.lastErr)
		}
		h.lastErr = ""
	}
	switch name {
	case "start":
		if rs := asStrings(f["rules"]); len(rs) > 0 {
			h.say("rules in force: %s", strings.Join(rs, ", "))
		}
	case "question":
		qs, _ := f["questions"].([]answer.Question)
		h.asked++
		h.fate(str("tool_use_id"))
		if len(qs) == 0 {
			return
		}
		more := ""
		if len(qs) > 1 {
			more = " (and " + plural(len(qs)-1, "more question") + ")"
		}
		h.say("Claude asks %q%s", qs[0].Question, more)
	case "elicitation":
		h.elicitAsked++
		h.say("MCP server %q asks %q", str("server"), str("message"))
	case "decision":
		switch {
		case str("elicitation") != "" && str("unmatched") != "":
			h.say("no elicitation rule answers MCP server %q: %s", str("elicitation"), str("unmatched"))
		case str("elicitation") != "":
			via := ""
			switch {
			case str("note") != "":
				via = " (" + str("note") + ")"
			case str("via") == "screen":
				via = " on the screen"
			}
			by := fmt.Sprintf("rule %q answers", str("rule"))
			switch {
			case str("from") != "":
				by = "answered from elsewhere (" + str("from") + "):"
			case str("rule") == "ask":
				by = "you answered"
			}
			h.say("MCP server %q: %s %s%s", str("elicitation"), by, elicitText(str("action"), f["content"]), via)
		case str("dialog") != "" && str("unmatched") != "":
			h.say("no permission rule for %s: %s", str("tool"), str("unmatched"))
		case str("dialog") != "" && str("key") != "":
			h.say("%s dialog: %s presses %s", str("dialog"), str("by"), str("key"))
		case str("dialog") != "" && str("select") != "":
			what := fmt.Sprintf("%q", str("select"))
			if t := str("text"); t != "" {
				what += fmt.Sprintf(" with %q", t)
			}
			h.say("%s dialog: %s picks %s", str("dialog"), str("by"), what)
		case str("dialog") != "":
			h.say("%s for %s: rule %q decides %s", str("dialog"), str("tool"), str("rule"), str("decide"))
		case str("hook") != "":
			h.say("Claude's %s call: rule %q decides %s before it runs", str("tool"), str("rule"), str("decide"))
		default:
			by := fmt.Sprintf("rule %q answers", str("rule"))
			who := byRules
			switch str("rule") {
			case "ask":
				by, who = "you answered", byYou
			case "fallback":
				by, who = "the fallback answers", byFallback
			case "remote":
				// The session names the sender; claudewrap answer's is the default.
				by, who = "answered from elsewhere ("+firstOf(str("from"), remote.FromAnswer)+")", byElsewhere
			}
			if id := str("tool_use_id"); id != "" {
				h.fate(id).decided = stronger(h.fate(id).decided, who)
			}
			h.say("%s %q: %s", by, str("question"), decisionText(f))
		}
	case "unmatched":
		h.say("no rule answers %q (%s)", str("question"), firstOf(str("reason"), "policy "+str("policy")))
	case "handed_over":
		switch {
		case f["chat_message"] != nil:
			h.say("the chat message %q is not sent: Claude's prompt is yours (%s)", str("chat_message"), str("reason"))
		case str("dialog") != "":
			h.say("the %s dialog is yours: %s", str("dialog"), str("reason"))
		case str("elicitation") != "":
			h.say("MCP server %q's form %s", str("elicitation"), strings.TrimPrefix(str("reason"), "no rule answers it: "))
		case str("session") != "":
			fate := h.fate(str("tool_use_id"))
			fate.handed, fate.waits = true, true
			h.say("form %s %s", str("tool_use_id"), strings.TrimPrefix(str("reason"), "unmatched question: "))
		default:
			h.fate(str("tool_use_id")).handed = true
			h.say("the form is yours: %s", str("reason"))
		}
	case "submitted":
		switch {
		case str("elicitation") != "":
			h.elicitAnswered++
			if str("by") == "person" {
				h.say("you answered MCP server %q: %s", str("elicitation"), elicitText(str("action"), f["content"]))
			}
		case str("by") == "person":
			h.answered++
			h.fate(str("tool_use_id")).by = byYou
			h.say("you answered: %s", answersText(f["answers"]))
			rs, _ := f["replaced_rules"].([]map[string]any)
			for _, r := range rs {
				h.say("  %q: rule %q answered %q; you replaced it with %q", r["question"], r["rule"], r["rule_answer"], r["recorded"])
			}
			ks, _ := f["kept_rules"].([]map[string]any)
			for _, k := range ks {
				h.say("  verified: Claude recorded rule %q's answer %q for %q", k["rule"], k["recorded"], k["question"])
			}
		case str("dialog") != "":
			h.dialogsAnswered++
		case f["chat_message"] != nil:
			h.say("sent the chat message")
		case f["chat"] == true:
			h.answered++
			h.answeredBy(str("tool_use_id"))
			h.say("chose \"Chat about this\"")
		default:
			h.answered++
			h.answeredBy(str("tool_use_id"))
			h.say("submitted")
		}
	case "verified":
		if str("elicitation") != "" {
			h.say("verified: MCP server %q's form answered %s", str("elicitation"), elicitText(str("action"), f["content"]))
			return
		}
		if str("tool") != "" {
			h.permissionsVerified++
			h.say("verified: Claude's %s call %s", str("tool"), str("outcome"))
			return
		}
		h.verified++
		h.say("verified: Claude recorded %s", answersText(f["answers"]))
	case "mismatch":
		h.mismatched++
		if str("elicitation") != "" {
			want, _ := f["want"].(map[string]any)
			got, _ := f["got"].(map[string]any)
			h.say("MISMATCH: MCP server %q's form answered %s; rule %q meant %s", str("elicitation"),
				elicitText(fmt.Sprint(got["action"]), got["content"]), str("rule"), elicitText(fmt.Sprint(want["action"]), want["content"]))
			return
		}
		if str("tool") != "" {
			h.say("MISMATCH: Claude's %s call %s, the rule meant %s", str("tool"), str("got"), str("want"))
			return
		}
		h.say("MISMATCH: Claude recorded %s; meant %s (%s)", answersText(f["got"]), answersText(f["want"]), str("reason"))
	case "cancelled":
		h.cancelled++
		if id := str("tool_use_id"); id != "" {
			h.fate(id).ended = true
		}
		h.say("form cancelled%s", paren(str("reason")))
	case "waiting":
		if server := str("elicitation"); server != "" {
			h.say("MCP server %q's form %s still waits for an answer (%s): claudewrap answer %s --form %s --accept '{FIELD: VALUE, …}' (or --decline, --cancel)",
				server, str("tool_use_id"), str("waited"), str("session"), str("tool_use_id"))
			break
		}
		h.say("form %s still waits for an answer (%s): claudewrap answer %s", str("tool_use_id"), str("waited"), str("session"))
	case "timeout":
		h.say("no answer in time (after %s)", str("after"))
	case "dialog":
		key := str("kind") + "|" + str("title") + "|" + str("tool")
		if str("source") == "screen" && !h.seenDialogs[key] {
			h.seenDialogs[key] = true
			h.dialogsSeen++
			what := fmt.Sprintf("its %s dialog %q", str("kind"), firstOf(str("title"), str("prompt")))
			if str("kind") == "other" {
				what = fmt.Sprintf("a dialog claudewrap does not know, %q", firstOf(str("title"), str("prompt")))
			}
			switch keys := asStrings(f["keys"]); {
			case len(asStrings(f["options"])) > 0:
				what += " (" + strings.Join(asStrings(f["options"]), " / ") + ")"
			case len(keys) > 0:
				what += " (" + strings.Join(keys, " · ") + ")"
			}
			h.say("Claude shows %s", what)
		}
	case "permission_mode":
		h.say("%s", str("note"))
	case "retrying":
		h.say("Claude cannot reach its API and retries (attempt %v of %v): %s", f["attempt"], f["of"], str("message"))
	case "turn_end":
		if str("error") != "" {
			h.say("Claude's turn ended in an error: %s (%s)", str("message"), str("error"))
		}
	case "inbox":
		switch str("state") {
		case "connected":
			h.say("inbox: connected (server %s); the forms that wait for a person are published there, as machine %s", str("server"), str("machine"))
		case "back":
			h.say("inbox back (server %s): the forms that wait are published again", str("server"))
		default:
			h.say("%s; forms are answered on this machine only (claudewrap answer, the screen) until the inbox is back", str("reason"))
		}
	case "inbox_form":
		switch str("state") {
		case "published":
			h.say("form %s is in the inbox as %s (claudewrap pending --inbox, claudewrap answer --inbox %s)", str("tool_use_id"), str("form_id"), str("form_id"))
		case "answered_here":
			h.say("form %s answered here while the inbox could not take the claim (%s); it is closed there once the inbox is back", str("tool_use_id"), str("reason"))
		}
	case "blocked":
		h.blocked++
		h.say("blocked: %s", str("reason"))
	case "error":
		h.lastErr = str("message")
	}
}

// lastScreen shows the last lines of Claude's screen when it ended by
// itself in error, or before its session started: its own words for why.
// The lines come escaped.
func (h *human) lastScreen(lines []string) {
	if len(lines) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	fmt.Fprintln(h.w, "claudewrap: Claude's screen as it ended:")
	for _, l := range lines {
		fmt.Fprintln(h.w, "  | "+l)
	}
}

// summary is the run in a few lines, printed when it ends: the lines held
// back (passthrough), then the counts and the exit status.
func (h *human) summary(code ExitCode, claudeEnded string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.held {
		fmt.Fprintln(h.w, l)
	}
	h.held = nil
	var parts []string
	// Who answered the forms, and those left to a person that nobody did.
	by := map[answeredBy]int{}
	var handed, waiting int
	for _, id := range h.order {
		switch fate := h.fates[id]; {
		case fate.by != "":
			by[fate.by]++
		case fate.ended:
		case fate.waits:
			waiting++
		case fate.handed:
			handed++
		}
	}
	if h.asked > 0 {
		parts = append(parts, fmt.Sprintf("%s asked, %s, %d verified", plural(h.asked, "form"), answeredText(h.answered, by), h.verified))
	}
	if handed > 0 {
		parts = append(parts, fmt.Sprintf("%d left to you", handed))
	}
	if waiting > 0 {
		parts = append(parts, fmt.Sprintf("%d left waiting for an answer", waiting))
	}
	if h.cancelled > 0 {
		parts = append(parts, fmt.Sprintf("%d cancelled", h.cancelled))
	}
	if h.mismatched > 0 {
		parts = append(parts, fmt.Sprintf("%d MISMATCHED", h.mismatched))
	}
	if h.dialogsAnswered > 0 || h.permissionsVerified > 0 {
		parts = append(parts, fmt.Sprintf("%s answered, %s verified", plural(h.dialogsAnswered, "dialog"), plural(h.permissionsVerified, "permission answer")))
	}
	if h.elicitAsked > 0 {
		parts = append(parts, fmt.Sprintf("%s asked by MCP servers, %d answered", plural(h.elicitAsked, "input form"), h.elicitAnswered))
	}
	if len(parts) == 0 {
		parts = append(parts, "no questions")
	}
	fmt.Fprintf(h.w, "claudewrap: %s; Claude %s; exit %d\n", strings.Join(parts, "; "), claudeEnded, code)
}

// answeredBy notes who answered the form id, submitted by claudewrap: who
// decided its answers (rules, the prompt, an answer from elsewhere).
func (h *human) answeredBy(id string) {
	fate := h.fate(id)
	fate.by = fate.decided
	if fate.by == "" {
		fate.by = byRules
	}
}

// answeredText is how many forms were answered, n, and by whom: "1
// answered by rules", "3 answered (2 by rules, 1 from elsewhere)".
func answeredText(n int, by map[answeredBy]int) string {
	var whom []string
	var only answeredBy
	for _, b := range byOrder {
		if by[b] > 0 {
			whom = append(whom, fmt.Sprintf("%d %s", by[b], b))
			only = b
		}
	}
	switch {
	case len(whom) == 1 && by[only] == n:
		return fmt.Sprintf("%d answered %s", n, only)
	case len(whom) > 0:
		return fmt.Sprintf("%d answered (%s)", n, strings.Join(whom, ", "))
	}
	return fmt.Sprintf("%d answered", n)
}

func decisionText(f events.Fields) string {
	switch a, _ := f["action"].(string); {
	case len(asStrings(f["labels"])) > 0:
		return "select " + quoteAll(asStrings(f["labels"]))
	case f["text"] != nil:
		return fmt.Sprintf("%s %q", a, f["text"])
	default:
		return a
	}
}

// answersText is "Q = A; Q2 = B" in question order.
func answersText(v any) string {
	m, _ := v.(map[string]string)
	if len(m) == 0 {
		return "nothing"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q = %q", k, m[k])
	}
	return strings.Join(parts, "; ")
}

func asStrings(v any) []string {
	s, _ := v.([]string)
	return s
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" && s != "policy " {
			return s
		}
	}
	return ""
}

// elicitText is an MCP server's form's answer: the action, and accept's
// values.
func elicitText(action string, content any) string {
	b, err := json.Marshal(content)
	if action != "accept" || content == nil || err != nil {
		return action
	}
	return action + " " + string(b)
}
