package vt

import (
	"sort"
	"sync"
	"unicode"
)

// RuneWidth reports how many columns a terminal gives r: 0 for combining and
// format characters, 2 for East Asian Wide and Fullwidth characters (which
// include emoji with emoji presentation), 1 otherwise. Ambiguous-width
// characters count as narrow, as in terminals outside CJK locales.
func RuneWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case r < 0x10000:
		bmpOnce.Do(fillBMP)
		return int(bmpWidths[r>>2]>>(r&3*2)) & 3
	}
	return computeWidth(r)
}

// bmpWidths holds the width of every character of the Basic Multilingual
// Plane, two bits each, filled on first use.
var (
	bmpOnce   sync.Once
	bmpWidths [0x10000 / 4]uint8
)

func fillBMP() {
	for r := range rune(0x10000) {
		bmpWidths[r>>2] |= uint8(computeWidth(r)) << (r & 3 * 2)
	}
}

func computeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case isZeroWidth(r):
		return 0
	case r >= wideTable[0][0] && inTable(r, wideTable):
		return 2
	}
	return 1
}

// ZeroWidthJoiner (U+200D) joins the emoji around it into one sequence.
const ZeroWidthJoiner = 0x200D

// IsEmojiModifier reports whether r is one of the five skin tones, which
// join the emoji before them.
func IsEmojiModifier(r rune) bool { return r >= 0x1F3FB && r <= 0x1F3FF }

// Clusters follows emoji sequences as [Measure.EmojiSequences] lays them
// out: an emoji joined by a zero-width joiner to the wide character before
// it (👨 ZWJ 💻), or a skin tone after one, adds no width, so the sequence
// is as wide as its first emoji. The zero value is outside any sequence;
// anything but a character (a control, an escape sequence; white space,
// for a caller measuring text) ends one.
type Clusters struct{ cluster, join bool }

// Joins reports whether r, w columns wide, joins the sequence before it,
// and moves past r.
func (c *Clusters) Joins(r rune, w int) bool {
	if c.cluster && (c.join && w == 2 || IsEmojiModifier(r)) {
		c.join = false
		return true
	}
	c.join = c.cluster && r == ZeroWidthJoiner
	switch w {
	case 0: // a mark or joiner stays in the sequence
	case 2:
		c.cluster = true
	default:
		c.cluster = false
	}
	return false
}

func isZeroWidth(r rune) bool {
	switch {
	case r >= 0x1160 && r <= 0x11FF, // Hangul Jamo medial vowels and finals
		r >= 0x200B && r <= 0x200F, // zero-width space, joiners, direction marks
		r >= 0x2060 && r <= 0x2064,
		r >= 0xFE00 && r <= 0xFE0F, // variation selectors
		r == 0xFEFF,
		r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me)
}

func inTable(r rune, t [][2]rune) bool {
	i := sort.Search(len(t), func(i int) bool { return t[i][1] >= r })
	return i < len(t) && t[i][0] <= r
}

// wideTable lists the East Asian Wide (W) and Fullwidth (F) ranges of Unicode
// 14, with unassigned gaps inside a run merged into it, plus the Symbols and
// Pictographs Extended-A block and planes 2 and 3, which are wide by default.
var wideTable = [][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0},
	{0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F},
	{0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
	{0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
	{0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728},
	{0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
	{0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
	{0x2E80, 0x303E}, {0x3041, 0x3247}, {0x3250, 0x4DBF}, {0x4E00, 0xA4C6}, {0xA960, 0xA97C},
	{0xAC00, 0xD7A3}, {0xF900, 0xFAD9}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6B}, {0xFF01, 0xFF60},
	{0xFFE0, 0xFFE6}, {0x16FE0, 0x1B2FB}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E},
	{0x1F191, 0x1F19A}, {0x1F200, 0x1F320}, {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393},
	{0x1F3A0, 0x1F3CA}, {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E},
	{0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E}, {0x1F550, 0x1F567},
	{0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4}, {0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5},
	{0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6DF}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC},
	{0x1F7E0, 0x1F7F0}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945}, {0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF},
	{0x20000, 0x3FFFD},
}

// IsSpacingMark reports whether r extends the grapheme before it and is
// drawn one column wide by terminals: a spacing combining mark (Mc: the
// Devanagari vowel sign ि), or Thai's and Lao's sara am.
func IsSpacingMark(r rune) bool {
	return r >= 0x0900 && (unicode.Is(unicode.Mc, r) || r == 0x0E33 || r == 0x0EB3)
}
