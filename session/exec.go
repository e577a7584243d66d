package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
)

// execTimeout bounds a rule's program when no answer timeout is set.
const execTimeout = 60 * time.Second

// maxProgramOutput bounds what a rule's program may print.
const maxProgramOutput = 1 << 20

// execDecide asks a rule's program (exec) for the answer to q: the
// question as JSON on its stdin, one answer as JSON (or YAML) on its
// stdout, within the answer timeout. A program that fails, times out or
// prints no usable answer leaves the question unmatched, with the reason:
// never guessed.
func (s *session) execDecide(q answer.Question, d rules.Decision) rules.Decision {
	if s.cfg.StillAllowed != nil {
		if err := s.cfg.StillAllowed(); err != nil {
			return rules.Decision{Rule: d.Rule, File: d.File, Line: d.Line,
				Unmatched: fmt.Sprintf("rule %q (%s:%d): its program is not run: %v; allow the file again to let it", d.Rule, d.File, d.Line, err)}
		}
	}
	timeout := s.cfg.AnswerTimeout
	if timeout <= 0 {
		timeout = execTimeout
	}
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	prog := rules.ProgramPath(d.Dir, d.Exec[0])
	in, _ := json.Marshal(q)
	cmd := exec.CommandContext(ctx, prog, d.Exec[1:]...)
	cmd.Stdin = bytes.NewReader(in)
	out, errOut := &capped{n: maxProgramOutput}, &capped{n: 4096}
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	unmatched := func(format string, args ...any) rules.Decision {
		return rules.Decision{Rule: d.Rule, File: d.File, Line: d.Line,
			Unmatched: fmt.Sprintf("rule %q (%s:%d): its program %q ", d.Rule, d.File, d.Line, d.Exec[0]) + fmt.Sprintf(format, args...)}
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return unmatched("gave no answer within %v", timeout)
	case err != nil:
		return unmatched("failed: %v%s", err, stderrNote(errOut.String()))
	case out.over:
		return unmatched("printed more than %d bytes", maxProgramOutput)
	}
	a, err := rules.ParseProgramAnswer(out.Bytes())
	if err != nil {
		return unmatched("printed no usable answer: %v%s", err, stderrNote(errOut.String()))
	}
	dd, err := a.Apply(q)
	if err == nil && s.cfg.AnswerVia != AnswerViaHook {
		// Refused before the form is taken, as an answer from elsewhere is:
		// typed, text the screen cannot show could never be confirmed. The
		// hook gives Claude such text without the screen.
		err = screen.CheckAnswer(q, dd)
	}
	if err != nil {
		return unmatched("answered what the question cannot take: %v", err)
	}
	return rules.Decision{Decision: dd, Rule: d.Rule, File: d.File, Line: d.Line}
}

func stderrNote(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	return " (its stderr: " + clip(askflow.OneLine(s), 200) + ")" // one line: it ends in exit 4's reason
}

// capped is a buffer that keeps at most n bytes and notes more.
type capped struct {
	bytes.Buffer
	n    int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.n - c.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
