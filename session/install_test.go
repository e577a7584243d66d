package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// TestInstalledVersion: the version of an npm install (native or cli.js)
// and of the native installer, reached through symlinks as `claude` on
// PATH is; "" for anything else.
func TestInstalledVersion(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) string {
		t.Helper()
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, p string) string {
		t.Helper()
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("npm/node_modules/@anthropic-ai/claude-code/package.json", `{"name": "@anthropic-ai/claude-code", "version": "2.1.332"}`)
	write("npm/node_modules/@anthropic-ai/claude-code/bin/claude.exe", "")
	npm := link("../@anthropic-ai/claude-code/bin/claude.exe", "npm/node_modules/.bin/claude")
	write("js/node_modules/@anthropic-ai/claude-code/package.json", `{"name": "@anthropic-ai/claude-code", "version": "1.0.128"}`)
	js := link("../@anthropic-ai/claude-code/cli.js", "js/node_modules/.bin/claude")
	write("js/node_modules/@anthropic-ai/claude-code/cli.js", "")
	native := link(write("home/.local/share/claude/versions/2.1.227", ""), "home/.local/bin/claude")
	write("other/node_modules/other/package.json", `{"name": "other", "version": "2.1.197"}`)
	other := link("../other/bin/claude.exe", "other/node_modules/.bin/claude")
	write("other/node_modules/other/bin/claude.exe", "")
	write("odd/node_modules/@anthropic-ai/claude-code/package.json", `{"name": "@anthropic-ai/claude-code", "version": "2.1.197-beta"}`)
	odd := write("odd/node_modules/@anthropic-ai/claude-code/bin/claude.exe", "")
	script := write("wrapper/claude", "#!/bin/sh\n")
	notVersion := write("home2/.local/share/claude/versions/latest", "")
	t.Chdir(dir) // a relative path that would resolve is still not looked into
	for path, want := range map[string]string{
		npm: "2.1.332", js: "1.0.128", native: "2.1.227",
		other: "", odd: "", script: "", notVersion: "", filepath.Join(dir, "missing"): "", "": "", "claude": "",
		"npm/node_modules/.bin/claude": "",
	} {
		if got := InstalledVersion(path); got != want {
			t.Errorf("InstalledVersion(%s) = %q, want %q", path, got, want)
		}
	}
}

// TestSupportedRange: the range claudewrap says it supports is the one its
// end-to-end suite proves: the oldest and the newest pinned versions.
func TestSupportedRange(t *testing.T) {
	p := claudetest.Pinned
	if OldestSupported != p[len(p)-1] || NewestProven != p[0] {
		t.Errorf("supported %s to %s, pinned %v", OldestSupported, NewestProven, p)
	}
	for _, tc := range []struct {
		v     string
		older bool
	}{{"2.0.77", true}, {"2.1.196", true}, {"1.9.999", true}, {"2.1.197", false}, {"2.1.332", false}, {"2.2.0", false}, {"3.0.0", false}, {"", false}, {"x.y", false}} {
		if got := UnsupportedVersion(tc.v) != ""; got != tc.older {
			t.Errorf("%q: unsupported %t, want %t", tc.v, got, tc.older)
		}
	}
}
