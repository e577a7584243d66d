package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claudewrap/claudewrap/internal/safefile"
)

// ErrSettings marks a --settings of the person's that claudewrap cannot
// merge its hooks into.
var ErrSettings = errors.New("claude's --settings")

// SettingsFile is the name of the merged settings in the run's private
// folder ([Server.Dir]).
const SettingsFile = "settings.json"

// WithSettings returns Claude's arguments with claudewrap's hooks added.
// Claude Code honours only the last --settings it is given, so when the
// person passes their own (a file or inline JSON), claudewrap's hooks are
// merged into it and one --settings carries both. The merged settings are
// written to a private file in dir and Claude is given its path: the
// person's settings may hold secrets (an env block), and any local user
// can read a process's arguments.
func WithSettings(args []string, ours, dir string) ([]string, error) {
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
	base := map[string]any{}
	if len(user) > 0 {
		// Only the last one counts for Claude, so only it is merged.
		var err error
		if base, err = readSettings(user[len(user)-1]); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSettings, err)
		}
	}
	merged, err := mergeHooks(base, ours)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSettings, err)
	}
	file := filepath.Join(dir, SettingsFile)
	if err := safefile.WriteFile(file, []byte(merged)); err != nil {
		return nil, fmt.Errorf("claudewrap's settings for Claude: %w", err)
	}
	return append([]string{"--settings", file}, rest...), nil
}

// maxSettings bounds a --settings file: settings are written by hand.
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
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// mergeHooks appends our hook entries to base's, event by event, and
// takes our keys beside hooks (disableAllHooks, the env of the hooks,
// under the person's own env) as they are: settings
// given with --settings take precedence over the user's, the project's
// and the local ones, so no settings file can switch claudewrap's hooks
// off. The person's own --settings turning every hook off is refused:
// claudewrap could then neither answer nor guard anything.
func mergeHooks(base map[string]any, ours string) (string, error) {
	var o map[string]any
	if err := json.Unmarshal([]byte(ours), &o); err != nil {
		return "", err
	}
	if off, _ := base[disableAllHooks].(bool); off {
		return "", fmt.Errorf("--settings turns every hook off (%q: true), claudewrap's with them, and it cannot answer or guard anything without them: leave that key out", disableAllHooks)
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
	for k, v := range o {
		switch k {
		case "hooks":
		case "env":
			// Ours, under what the person's own --settings say.
			env, _ := v.(map[string]any)
			mine, _ := base["env"].(map[string]any)
			if base["env"] != nil && mine == nil {
				return "", fmt.Errorf("--settings: env must be an object")
			}
			for ek, ev := range mine {
				env[ek] = ev
			}
			base["env"] = env
		default:
			base[k] = v
		}
	}
	base["hooks"] = hooks
	b, err := json.Marshal(base)
	return string(b), err
}
