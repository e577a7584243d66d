package claudetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
)

// Pinned are the Claude Code versions claudewrap is proven on: a spread from
// 2.1.197 to the newest on the registry. The Makefile's CLAUDE_VERSIONS must
// list the same; it reaches the tests as $CLAUDEWRAP_CLAUDE_VERSIONS.
var Pinned = []string{"2.1.332", "2.1.330", "2.1.321", "2.1.299", "2.1.266", "2.1.227", "2.1.197"}

// DefaultVersions are the versions the whole end-to-end suite runs on: the
// newest and the oldest pinned. The random-form sample runs on all of them
// (see [PinnedVersions]). $CLAUDEWRAP_E2E_VERSIONS overrides it.
var DefaultVersions = []string{"2.1.332", "2.1.197"}

// APIKey is the fake key every run uses. Claude Code approves a custom key
// by its last 20 characters.
const APIKey = "sk-ant-api03-claudewrap-test-key-0123456789abcdef"

// Root returns the repository root (the directory holding go.mod).
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("claudetest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Versions returns the Claude Code versions the end-to-end suite runs on.
func Versions() []string {
	if v := strings.Fields(os.Getenv("CLAUDEWRAP_E2E_VERSIONS")); len(v) > 0 {
		return v
	}
	return DefaultVersions
}

// PinnedVersions returns every pinned Claude Code version.
func PinnedVersions() []string {
	if v := strings.Fields(os.Getenv("CLAUDEWRAP_CLAUDE_VERSIONS")); len(v) > 0 {
		return v
	}
	return Pinned
}

// Binary returns the path of the installed Claude Code version, failing the
// test when it is not installed.
func Binary(t testing.TB, version string) string {
	t.Helper()
	p := filepath.Join(Root(t), ".cache", "claude-code", version, "node_modules", ".bin", "claude")
	if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("Claude Code %s is not installed at %s: run `make claude` (or `make test`, which does)", version, p)
	}
	return p
}

// Sandbox is one isolated run of Claude Code: its HOME, its working
// directory, and the fake API it talks to.
type Sandbox struct {
	Version string
	Claude  string // the claude binary
	Home    string
	Dir     string // the project directory Claude runs in
	API     *fakeapi.Server
}

// New starts the fake API with the scenario file (a path relative to the
// repository root) and prepares HOME and a project directory for version.
func New(t testing.TB, version, scenario string) *Sandbox {
	t.Helper()
	sc, err := fakeapi.Load(filepath.Join(Root(t), scenario))
	if err != nil {
		t.Fatal(err)
	}
	api, err := fakeapi.Start(sc, fakeapi.WithLogf(func(format string, args ...any) {
		t.Logf("fakeapi: "+format, args...)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	base := t.TempDir()
	s := &Sandbox{
		Version: version,
		Claude:  Binary(t, version),
		Home:    filepath.Join(base, "home"),
		Dir:     filepath.Join(base, "project"),
		API:     api,
	}
	for _, d := range []string{s.Home, s.Dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Before the home is removed: Claude's background daemon may still
	// write there.
	t.Cleanup(func() {
		if n := KillStrays(s.Home); n > 0 {
			t.Logf("killed %d processes Claude Code left running in its home (its background daemon)", n)
		}
	})
	if err := Seed(s.Home, s.Dir); err != nil {
		t.Fatal(err)
	}
	return s
}

// Env is the environment Claude Code runs with: isolated HOME, the fake
// API, no outside traffic.
func (s *Sandbox) Env() []string {
	return Env(s.Home, s.API.URL())
}

// Env builds the environment for a Claude Code run against the API at url.
func Env(home, url string) []string {
	env := []string{
		"HOME=" + home,
		"ANTHROPIC_API_KEY=" + APIKey,
		"ANTHROPIC_BASE_URL=" + url,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"PATH=" + os.Getenv("PATH"),
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	return env
}

// Seed writes $HOME/.claude.json so that no first-run dialog blocks the TUI
// started in dir.
func Seed(home, dir string) error {
	cfg := map[string]any{
		"hasCompletedOnboarding":    true,
		"fullscreenUpsellSeenCount": 99,
		"hasSeenAutoDefaultNotice":  true,
		"customApiKeyResponses": map[string]any{
			"approved": []string{APIKey[len(APIKey)-20:]},
			"rejected": []string{},
		},
		"projects": map[string]any{
			dir: map[string]any{
				"hasTrustDialogAccepted":        true,
				"hasCompletedProjectOnboarding": true,
			},
		},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, ".claude.json"), b, 0o600)
}

// Fullscreen writes $HOME/.claude/settings.json so that Claude Code draws
// with its fullscreen renderer (the alternate screen, mouse reporting), as
// `/tui fullscreen` leaves a person's settings. Every pinned version has it.
func Fullscreen(home string) error {
	dir := filepath.Join(home, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"tui": "fullscreen"}`+"\n"), 0o600)
}

// Themes are Claude Code's colour themes other than its default ("dark"),
// as `/theme` offers them on every pinned version.
var Themes = []string{"light", "dark-daltonized", "light-daltonized", "dark-ansi", "light-ansi"}

// Configure sets keys of Claude Code's own configuration,
// $HOME/.claude.json, which [Seed] wrote: {"theme": "light"} as `/theme`
// leaves a person's, {"editorMode": "vim"} as `/vim` does.
func Configure(home string, keys map[string]any) error {
	p := filepath.Join(home, ".claude.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	cfg := map[string]any{}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	for k, v := range keys {
		cfg[k] = v
	}
	if b, err = json.MarshalIndent(cfg, "", "  "); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o600)
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
	buildOut  []byte
)

// Claudewrap builds the claudewrap binary once per test process and returns
// its path.
func Claudewrap(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "claudewrap-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "claudewrap")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/claudewrap")
		cmd.Dir = Root(t)
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("build claudewrap: %v\n%s", buildErr, buildOut)
	}
	return buildPath
}
