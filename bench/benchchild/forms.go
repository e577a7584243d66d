package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/term"

	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
)

// forms stands in for Claude Code asking n forms of one question at once,
// as the inbox benchmark's sessions do: the PreToolUse hook of each, then
// each form drawn in turn by the fake Claude (fakeclaude: Claude Code
// 2.1.330's form at 100 columns), answered by the keys it reads, its
// PostToolUse hook with what it recorded. Then it waits, its turn never
// ending, until its terminal closes, so that claudewrap's CPU can be read
// while it still runs. The first key each form reads is noted in
// $BENCH_KEY_LOG: one line "TOOL_USE_ID UNIX_NANOSECONDS".
func forms(settings string, n int) {
	st, err := term.MakeRaw(0)
	if err != nil {
		fail("forms: raw mode: " + err.Error())
	}
	defer term.Restore(0, st)
	cmds, err := hookCommands(settings)
	if err != nil {
		fail("forms: " + err.Error())
	}
	qs := []fakeclaude.Question{{Header: "Database", Question: "Which database should we use?", Options: []fakeclaude.Option{
		{Label: "PostgreSQL", Desc: "Relational, robust"}, {Label: "SQLite", Desc: "Embedded, simple"}, {Label: "MongoDB", Desc: "Documents"}}}}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("toolu_bench_%d_%d", os.Getpid(), i+1)
	}
	fc := fakeclaude.New(processTB{}, qs, 100, 40, fakeclaude.Faults{AppearAfter: time.Hour})
	var (
		mu    sync.Mutex
		shown = 0 // the form on the screen, by its index
		keyed = false
	)
	fc.OnState(func(s fakeclaude.State) {
		if s != fakeclaude.Submitted {
			return
		}
		mu.Lock()
		cur := shown
		shown++
		keyed = false
		mu.Unlock()
		runHook(cmds[hook.PostToolUse], &hook.Payload{HookEventName: hook.PostToolUse, ToolName: hook.ToolName, ToolUseID: ids[cur],
			ToolInput: &hook.ToolInput{Questions: fakeclaude.Answers(qs)}, ToolResponse: &hook.ToolResponse{Answers: fc.Submitted()}})
		if cur+1 < n {
			fc.Ask(qs)
		} // Claude shows its next form in the same place at once
	})
	fc.Mirror(os.Stdout)
	for _, id := range ids {
		runHook(cmds[hook.PreToolUse], &hook.Payload{HookEventName: hook.PreToolUse, ToolName: hook.ToolName, ToolUseID: id,
			ToolInput: &hook.ToolInput{Questions: fakeclaude.Answers(qs)}})
	}
	fc.Ask(qs)
	log, _ := os.OpenFile(os.Getenv("BENCH_KEY_LOG"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	buf := make([]byte, 256)
	for {
		k, err := os.Stdin.Read(buf)
		if k > 0 {
			now := time.Now()
			mu.Lock()
			first := !keyed && shown < n
			keyed = true
			cur := shown
			mu.Unlock()
			if first && log != nil {
				fmt.Fprintf(log, "%s %d\n", ids[cur], now.UnixNano())
			}
			fc.SendKeys(append([]byte(nil), buf[:k]...))
		}
		if err != nil {
			return
		}
	}
}

// hookCommands reads the commands claudewrap's settings file gives
// Claude's hooks, by event.
func hookCommands(settings string) (map[string]string, error) {
	var cfg struct {
		Hooks map[string][]struct{ Hooks []struct{ Command string } }
	}
	b, err := os.ReadFile(settings)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", settings, err)
	}
	out := map[string]string{}
	for ev, hs := range cfg.Hooks {
		if len(hs) > 0 && len(hs[0].Hooks) > 0 {
			out[ev] = hs[0].Hooks[0].Command
		}
	}
	for _, ev := range []string{hook.PreToolUse, hook.PostToolUse} {
		if out[ev] == "" {
			return nil, fmt.Errorf("%s: no %s hook", settings, ev)
		}
	}
	return out, nil
}

// runHook runs a hook command with p on its stdin, as Claude Code does.
func runHook(command string, p *hook.Payload) {
	b, _ := json.Marshal(p)
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Stdin = strings.NewReader(string(b))
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "benchchild: %s hook: %v\r\n", p.HookEventName, err)
	}
}

// processTB is what the fake Claude asks of a test, in a process: its
// failures end the process.
type processTB struct{ testing.TB }

func (processTB) Helper()        {}
func (processTB) Cleanup(func()) {}
func (processTB) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchchild: "+format+"\r\n", args...)
}
func (processTB) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchchild: "+format+"\r\n", args...)
	os.Exit(2)
}
