package screen

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/claudewrap/claudewrap/vt"
)

// Options configure an emulator of Claude Code's terminal.
type Options struct {
	Cols, Rows int
	// Replies receives the emulator's answers to terminal queries; nil
	// leaves them unanswered (see [vt.Options]).
	Replies io.Writer
	// Quiet is how long output must pause before a screen counts as
	// settled outside a synchronized update; zero means 30ms.
	Quiet time.Duration
	// Version is the child's Claude Code version ("2.1.321") when known
	// from its install; it decides how a spacing mark is measured until
	// Claude's banner names a version, which wins. Empty, or not a
	// version: the newest, until the banner.
	Version string
}

// New returns a terminal emulator that lays text out as Claude Code
// measures it: an emoji sequence as one wide character, and on 2.1.321 and
// older a spacing mark (a Devanagari vowel sign) as part of its letter, by
// o.Version or, once it shows, the version on Claude's banner
// ([vt.Snapshot] reports which, as its Measure).
func New(o Options) vt.Emulator {
	m := vt.Measure{EmojiSequences: true}
	if n, ok := parseVersion(o.Version); ok {
		m = measureOf(n)
	}
	return vt.New(vt.Options{
		Cols: o.Cols, Rows: o.Rows, Replies: o.Replies, Quiet: o.Quiet,
		Measure: m, Detect: banner, DetectLines: bannerLines,
	})
}

// NewFunc makes emulators as [New] does for Claude Code version, in the
// shape ptyhost.Config.Screen takes.
func NewFunc(version string) func(cols, rows int, replies io.Writer) vt.Emulator {
	return func(cols, rows int, replies io.Writer) vt.Emulator {
		return New(Options{Cols: cols, Rows: rows, Replies: replies, Version: version})
	}
}

// measureOf is how Claude Code version n measures text: 2.1.330 gives a
// spacing mark a column, as terminals do; 2.1.197 to 2.1.321 do not
// ("हिन्दी में" drawn as "हिन्दी" three columns wide, "में" over its end).
func measureOf(n [3]int) vt.Measure {
	return vt.Measure{EmojiSequences: true, MarksJoin: before(n, [3]int{2, 1, 322}), Version: formatVersion(n)}
}

// bannerLines bounds the line feeds the banner is looked for in: Claude
// Code draws it first (after the trust dialog, if that shows).
const bannerLines = 256

// banner is the emulator's [vt.Options.Detect]: it looks for Claude Code's
// banner ("Claude Code v2.1.321" beside or above its logo, " ▐▛███▜▌") on
// the cursor's row and the one above it. The logo must be there, so that
// text someone typed is not taken for it. A child that shows no such banner
// (narrow terminals get a "Welcome back!" box with the version in its
// border, away from the logo, on 2.1.227 and older) is measured as
// Options.Version says. Nothing is allocated but the version's text, once
// found.
func banner(above, row []vt.Cell) (vt.Measure, bool) {
	if n, ok := versionIn(above); ok && (hasLogo(above) || hasLogo(row)) {
		return measureOf(n), true
	}
	if n, ok := versionIn(row); ok && hasLogo(row) {
		return measureOf(n), true
	}
	return vt.Measure{}, false
}

// before reports whether version n is older than v.
func before(n, v [3]int) bool {
	return n[0] < v[0] || n[0] == v[0] && (n[1] < v[1] || n[1] == v[1] && n[2] < v[2])
}

func formatVersion(n [3]int) string {
	return strconv.Itoa(n[0]) + "." + strconv.Itoa(n[1]) + "." + strconv.Itoa(n[2])
}

// parseVersion reads "2.1.321" (what follows it, " (Claude Code)", is
// ignored).
func parseVersion(s string) (n [3]int, ok bool) {
	s, _, _ = strings.Cut(s, " ")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return n, false
	}
	for i, p := range parts {
		if p == "" || len(p) > 6 || strings.Trim(p, "0123456789") != "" {
			return n, false
		}
		n[i], _ = strconv.Atoi(p)
	}
	return n, true
}

func hasLogo(row []vt.Cell) bool {
	for _, c := range row {
		if c.Char == '▛' || c.Char == '▜' {
			return true
		}
	}
	return false
}

// versionIn reads the version after "Claude Code v" on row.
func versionIn(row []vt.Cell) (n [3]int, ok bool) {
	const mark = "Claude Code v"
	for x := range row {
		if row[x].Char != 'C' || !rowHas(row[x:], mark) {
			continue
		}
		k, digits := 0, 0
	version:
		for _, c := range row[x+len(mark):] {
			switch {
			case c.Char >= '0' && c.Char <= '9' && n[k] < 1e5: // six digits at most, as parseVersion reads
				n[k] = n[k]*10 + int(c.Char-'0')
				digits++
			case c.Char == '.' && k < 2 && digits > 0:
				k, digits = k+1, 0
			default:
				break version
			}
		}
		return n, k == 2 && digits > 0
	}
	return n, false
}

// rowHas reports whether row starts with the ASCII text s.
func rowHas(row []vt.Cell, s string) bool {
	if len(row) < len(s) {
		return false
	}
	for i := range len(s) {
		if row[i].Char != rune(s[i]) {
			return false
		}
	}
	return true
}
