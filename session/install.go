package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
)

// versionRE is a Claude Code release number.
var versionRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// InstalledVersion is the Claude Code version the install at path says it
// is, or "" when it says nothing: the npm package's package.json beside
// bin/claude.exe or cli.js, or the native installer's file name
// (~/.local/share/claude/versions/2.1.332). No process is run for it.
//
// The emulator needs it before Claude draws (how a spacing mark is
// measured, screen.Options.Version), and not every screen shows it where
// the emulator looks: 2.1.227 and older put it in a "Welcome back!" box's
// border, away from the logo, in a project not yet onboarded. A banner
// beside the logo, the running binary's own word, still overrides it. Run
// asks it when Config.Host.Version is empty; the CLI asks it first, for
// --record's header. The CLI gives an absolute path.
func InstalledVersion(path string) string {
	if !filepath.IsAbs(path) {
		return "" // relative to what the child runs in: not looked into
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	if filepath.Base(filepath.Dir(real)) == "versions" && versionRE.MatchString(filepath.Base(real)) {
		return filepath.Base(real)
	}
	dir := filepath.Dir(real)
	if filepath.Base(dir) == "bin" {
		dir = filepath.Dir(dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct{ Name, Version string }
	if json.Unmarshal(b, &pkg) != nil || pkg.Name != "@anthropic-ai/claude-code" || !versionRE.MatchString(pkg.Version) {
		return ""
	}
	return pkg.Version
}
