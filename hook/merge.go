package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/claudewrap/claudewrap/internal/safefile"
)

// ErrSettings marks a --settings of the person's that claudewrap cannot
// merge its hooks into.
var ErrSettings = errors.New("claude's --settings")

// WithSettings returns Claude's arguments with claudewrap's hooks added.
// Claude Code honours only the last --settings it is given, so when the
// person passes their own (a file or inline JSON), claudewrap's hooks are
// merged into it and one --settings carries both.
func WithSettings(args []string, ours string) ([]string, error) {
	var user []string // the person's --settings values, in order
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			i = len(args)
		case a == "--settings":
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%w: --settings needs a value", ErrSettings)
			}
			user = append(user, args[i+1])
			i++
		case strings.HasPrefix(a, "--settings="):
			user = append(user, strings.TrimPrefix(a, "--settings="))
		default:
			rest = append(rest, a)
		}
	}
	merged := ours
	if len(user) > 0 {
		// Only the last one counts for Claude, so only it is merged.
		base, err := readSettings(user[len(user)-1])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSettings, err)
		}
		if merged, err = mergeHooks(base, ours); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSettings, err)
		}
	}
	return append([]string{"--settings", merged}, rest...), nil
}

// maxSettings bounds a --settings file: settings are written by hand, and
// the merged settings must fit in one of Claude's arguments (128 KiB on
// Linux) all the same.
const maxSettings = 1 << 20

// readSettings reads a --settings value: inline JSON, or a file's path (a
// regular file of at most maxSettings bytes).
func readSettings(v string) (map[string]any, error) {
	b := []byte(v)
	if t := strings.TrimSpace(v); !strings.HasPrefix(t, "{") {
		var err error
		if b, err = safefile.ReadFile(v, maxSettings); err != nil {
			return nil, fmt.Errorf("--settings: %w", err)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("--settings %s: not a JSON object: %w", shorten(v), err)
	}
	return m, nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// mergeHooks appends our hook entries to base's, event by event.
func mergeHooks(base map[string]any, ours string) (string, error) {
	var o map[string]any
	if err := json.Unmarshal([]byte(ours), &o); err != nil {
		return "", err
	}
	hooks, _ := base["hooks"].(map[string]any)
	if hooks == nil {
		if base["hooks"] != nil {
			return "", fmt.Errorf("--settings: hooks must be an object")
		}
		hooks = map[string]any{}
	}
	for ev, entries := range o["hooks"].(map[string]any) {
		have, _ := hooks[ev].([]any)
		if hooks[ev] != nil && have == nil {
			return "", fmt.Errorf("--settings: hooks.%s must be a list", ev)
		}
		hooks[ev] = append(have, entries.([]any)...)
	}
	base["hooks"] = hooks
	b, err := json.Marshal(base)
	return string(b), err
}
