package screen_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudewrap/claudewrap/screen"
)

// keys writes key hints as "Key: does" strings, for comparing.
func keys(d screen.Dialog) []string {
	var out []string
	for _, k := range d.Keys {
		out = append(out, k.Key+": "+k.Does)
	}
	return out
}

// TestWaitingScreens: the screens on which the real Claude Code waits for a
// key, with a menu or without one, are read as their kind with their
// title, options and keys, at every recorded size and version; those that
// cut the dialog's top off (a short screen) with no title. Claude's input
// box is no dialog, whatever is under it (its command menu, file
// suggestions) or in it (typed key hints, vim's normal mode), nor a tool
// running.
func TestWaitingScreens(t *testing.T) {
	autoKeys := []string{"Enter: stay in auto mode", "shift+Tab: leave for accept edits mode and stop", "Esc: cancel"}
	for _, tc := range []struct {
		glob    string
		kind    screen.DialogKind
		title   string
		options []string
		keys    []string
		server  string
		cut     bool
	}{
		{glob: "auto-check-1*", kind: screen.AutoModeDialog, title: "Auto mode can't check actions in this session", keys: autoKeys},
		{glob: "auto-check-80x30", kind: screen.AutoModeDialog, title: "Auto mode can't check actions in this session", keys: autoKeys},
		// 24 rows: the title is above the screen, "↑ 4 more lines" over
		// the footer, and shift+Tab says it needs a taller window.
		{glob: "auto-check-60x24", kind: screen.AutoModeDialog, cut: true,
			keys: []string{"Enter: stay in auto mode", "shift+Tab: leave for accept edits mode and stop (needs a taller window)", "Esc: cancel"}},
		{glob: "apikey-question-*", kind: screen.APIKeyDialog, title: "Detected a custom API key in your environment",
			options: []string{"Yes", "No (recommended)"}, keys: []string{"Enter: confirm", "Esc: cancel"}},
		{glob: "mcp-project-[0-9]*", kind: screen.MCPServerDialog, title: "New MCP server found in this project: demo", server: "demo",
			options: []string{"Use this MCP server", "Use this and all future MCP servers in this project", "Continue without using this MCP server"}},
		{glob: "mcp-project-two-*", kind: screen.MCPServerDialog, title: "2 new MCP servers found in this project",
			options: []string{"[✔] demo", "[✔] other"}},
		{glob: "onboarding-theme-*", kind: screen.OnboardingDialog, title: "Let's get started.",
			options: []string{"Auto (match terminal)", "Dark mode", "Light mode", "Dark mode (colorblind-friendly)",
				"Light mode (colorblind-friendly)", "Dark mode (ANSI colors only)", "Light mode (ANSI colors only)"}},
		{glob: "onboarding-security-*", kind: screen.OnboardingDialog, title: "Security notes:", keys: []string{"Enter: continue"}},
		{glob: "bash-tall-100x40", kind: screen.PermissionDialog, title: "Bash command"},
		{glob: "bash-tall-80x24", kind: screen.PermissionDialog, cut: true},
		{glob: "slash-menu-*"},
		{glob: "at-files-*"},
		{glob: "prompt-typed-*"}, // "Enter to confirm · Esc to cancel, typed" at the prompt
		{glob: "prompt-vim-*"},
		{glob: "bash-running-*"},
	} {
		files, err := filepath.Glob("../testdata/screens/*/" + tc.glob + ".cast")
		if err != nil || len(files) < 2 {
			t.Fatalf("%s: want recordings on two versions at least, got %q %v", tc.glob, files, err)
		}
		for _, f := range files {
			for _, chunk := range []int{0, 1} {
				d, ok := screen.ParseDialog(replay(t, f, chunk))
				if tc.kind == "" {
					if ok {
						t.Errorf("%s: read as a dialog: %s", f, d)
					}
					continue
				}
				if !ok {
					t.Errorf("%s: no dialog", f)
					continue
				}
				if d.Kind != tc.kind || d.Title != tc.title || d.Cut != tc.cut || d.Server != tc.server {
					t.Errorf("%s: read as %s (cut %t), want %s %q (cut %t), server %q", f, d, d.Cut, tc.kind, tc.title, tc.cut, tc.server)
				}
				if tc.options != nil && !slices.Equal(d.Options, tc.options) {
					t.Errorf("%s: options %q, want %q", f, d.Options, tc.options)
				}
				if tc.options == nil && tc.kind != screen.PermissionDialog && (len(d.Options) > 0 || d.Focus != -1) {
					t.Errorf("%s: options %q, focus %d, want no menu", f, d.Options, d.Focus)
				}
				// The keys differ by version where no keys are given.
				if tc.keys != nil && !slices.Equal(keys(d), tc.keys) {
					t.Errorf("%s: keys %q, want %q", f, keys(d), tc.keys)
				}
				if tc.options == nil && tc.kind != screen.PermissionDialog && d.Body == "" {
					t.Errorf("%s: no body", f)
				}
			}
		}
	}
}

// TestMCPServers: the servers an MCP server dialog asks about, one named in
// its title or several in a list of checkboxes.
func TestMCPServers(t *testing.T) {
	for _, tc := range []struct {
		glob string
		want []string
	}{
		{"mcp-project-100x40", []string{"demo"}},
		{"mcp-project-two-100x40", []string{"demo", "other"}},
	} {
		files, _ := filepath.Glob("../testdata/screens/*/" + tc.glob + ".cast")
		for _, f := range files {
			d, ok := screen.ParseDialog(replay(t, f, 0))
			if got := d.Servers(); !ok || !slices.Equal(got, tc.want) {
				t.Errorf("%s: servers %q (%v), want %q", f, got, ok, tc.want)
			}
		}
	}
	if got := (screen.Dialog{Kind: screen.PermissionDialog, Options: []string{"[✔] x"}}).Servers(); got != nil {
		t.Errorf("a permission dialog's servers: %q", got)
	}
}

// TestAutoModeBody: the auto-mode dialog's body is its text between the
// title and the footer, paragraphs one blank line apart.
func TestAutoModeBody(t *testing.T) {
	d, ok := screen.ParseDialog(replay(t, "../testdata/screens/2.1.332/auto-check-120x40.cast", 0))
	if !ok {
		t.Fatal("no dialog")
	}
	paras := strings.Split(d.Body, "\n\n")
	if len(paras) != 4 || !strings.HasPrefix(paras[0], "Auto mode's safety check runs on the server.") ||
		!strings.HasSuffix(paras[3], "#server-side-classifier-review") {
		t.Errorf("body:\n%s", d.Body)
	}
}
