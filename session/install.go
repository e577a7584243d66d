package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

// The Claude Code versions claudewrap is proven on (docs/versions.md):
// older ones draw forms it cannot answer, newer ones are run as the newest
// is.
const (
	OldestSupported = "2.1.197"
	NewestProven    = "2.1.332"
)

// Older reports whether version a is older than b; versions that are not
// dotted numbers are neither.
func Older(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, err1 := strconv.Atoi(pa[i])
		y, err2 := strconv.Atoi(pb[i])
		if err1 != nil || err2 != nil {
			return false
		}
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}

// UnsupportedVersion says why Claude Code version v is not one claudewrap
// supports, "" when it is (or is not known).
func UnsupportedVersion(v string) string {
	if v == "" || !Older(v, OldestSupported) {
		return ""
	}
	return fmt.Sprintf("Claude Code %s is older than claudewrap supports (%s and later; proven up to %s)", v, OldestSupported, NewestProven)
}
