package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/transcript"
	"github.com/claudewrap/claudewrap/screen"
)

// A permission answer is checked in what Claude recorded, as a form's is in
// its PostToolUse. Claude runs no hook of ours for other tools, and its
// PermissionRequest has no tool_use_id, so the record is its transcript:
// the tool_use of that tool with that input, and the tool_result Claude
// wrote for it. The check runs at the end of each turn (Stop), when every
// tool_result of the turn has been written, and once more when Claude has
// exited.

// outcome is what a permission answer should have led to.
type outcome string

const (
	ran      outcome = "ran"      // the tool ran (allowed)
	refused  outcome = "refused"  // Claude was told no
	approved outcome = "approved" // plan approval: Claude was told the plan is approved
)

// permCheck is a permission answer waiting to be found in the transcript.
type permCheck struct {
	tool  string
	input json.RawMessage
	// id is the tool use's id when the hook named it (a PreToolUse's);
	// else the check finds the tool use by its tool and input.
	id   string
	kind screen.DialogKind // the dialog answered; "" for a PreToolUse deny
	rule string
	want outcome
	text string // refused: what Claude must have been told; "" any refusal
}

// fields are the event fields that name c.
func (c *permCheck) fields() events.Fields {
	f := events.Fields{"tool": c.tool, "rule": c.rule}
	if c.kind != "" {
		f["dialog"] = string(c.kind)
	} else {
		f["hook"] = "PreToolUse"
	}
	return f
}

// expect adds a permission answer to check.
func (s *session) expect(c permCheck) { s.loop.send(permExpected{&c}) }

// permExpected: a permission answer to find in Claude's transcript (see
// checkPermissions).
type permExpected struct{ c *permCheck }

// transcriptWait bounds the wait, at the end of a turn, for Claude to write
// the tool_results of permission answers to its transcript.
const transcriptWait = 2 * time.Second

// checkPermissions finds the permission answers of this run in Claude's
// transcript and reports each one verified or a mismatch (exit 6). At the
// end of a turn it waits up to transcriptWait for missing records; final
// (Claude has exited) reports what is still missing as not verified.
func (s *session) checkPermissions(ctx context.Context, final bool) {
	settled := func() bool {
		var pending int
		s.loop.do(func() { pending = len(s.perms) })
		path := s.following().transcript
		return pending == 0 || path != "" && s.matchPermissions(path) == 0
	}
	if !final {
		if transcript.Await(ctx, s.following().transcript, transcriptWait, settled) {
			return
		}
		if ctx.Err() == nil {
			return // perhaps in a later turn's record
		}
		// Claude is gone: what is missing now stays missing.
	}
	if settled() {
		return
	}
	var left []*permCheck
	s.loop.do(func() { left, s.perms = s.perms, nil })
	for _, c := range left {
		fields := c.fields()
		fields["message"] = "permission answer not verified: Claude's transcript has no tool_result for this " + c.tool + " call"
		s.say("error", fields)
	}
}

// matchPermissions reads the transcript at path, settles every pending
// check it holds a record for, and returns how many are still pending.
func (s *session) matchPermissions(path string) int {
	uses, results := transcript.Read(path)
	var left int
	s.loop.do(func() { left = s.settleOnLoop(uses, results) })
	return left
}

// settleOnLoop settles the pending checks uses and results hold a record
// for, and returns how many are still pending.
func (s *session) settleOnLoop(uses []transcript.Use, results map[string]transcript.Result) int {
	if s.claimed == nil {
		s.claimed = map[string]bool{}
	}
	var left []*permCheck
	for _, c := range s.perms {
		id := c.id
		for _, u := range uses {
			if id == "" && !s.claimed[u.ID] && u.Name == c.tool && sameInput(u.Input, c.input) {
				id = u.ID
				break
			}
		}
		res, ok := results[id]
		if id == "" || !ok {
			left = append(left, c)
			continue
		}
		s.claimed[id] = true
		fields := c.fields()
		fields["tool_use_id"] = id
		told := c.text == "" || strings.Contains(res.Content, c.text)
		got := judge(res)
		if c.want == refused && c.text != "" && res.IsError && told {
			got = refused // a hook's deny: Claude was told exactly the rule's message
		}
		if got == c.want && told {
			fields["outcome"] = string(got)
			s.say("verified", fields)
			continue
		}
		fields["want"], fields["got"] = string(c.want), string(got)
		if c.text != "" {
			fields["want_text"] = c.text
		}
		fields["tool_result"] = clip(res.Content, 300)
		s.because(ExitMismatch, fmt.Sprintf("permission rule %q: Claude's transcript shows the %s call %s %s, not %s",
			c.rule, c.tool, id, got, c.want))
		s.say("mismatch", fields)
	}
	s.perms = left
	return len(left)
}

// judge reads what a tool_result says happened. Claude's own words for a
// refusal ("The user doesn't want to proceed with this tool use…") and a
// hook's deny message both come with is_error; a tool that ran and failed
// does too, so a refusal is told by its words, and a hook's deny by the
// message the check expects (see matchPermissions).
func judge(r transcript.Result) outcome {
	c := r.Content
	switch {
	case !r.IsError && strings.Contains(c, "has approved"):
		// "User has approved your plan…", "User has approved exiting plan mode…"
		return approved
	case r.IsError && (strings.Contains(c, "doesn't want to proceed") || strings.Contains(c, "was rejected") ||
		strings.Contains(c, "denied")):
		return refused
	}
	return ran
}

// sameInput reports whether a transcript's tool input a is the one a
// PermissionRequest carried (b): equal, or one holding every field of the
// other with the same value (a version may add a field on either side).
func sameInput(a, b json.RawMessage) bool {
	var x, y map[string]any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	if len(y) == 0 {
		return true // 2.1.330 asks for ExitPlanMode with no input: the tool tells
	}
	sub := func(small, big map[string]any) bool {
		for k, v := range small {
			if !reflect.DeepEqual(big[k], v) {
				return false
			}
		}
		return true
	}
	return len(x) > 0 && (sub(x, y) || sub(y, x))
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
