package stress

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Term names the terminal a person's would be, as far as Claude's queries
// go (Session.Replies).
type Term string

// The terminals the harness plays.
const (
	Mute  Term = ""      // answers nothing
	Xterm Term = "xterm" // DA1, XTVERSION, DECRQM, CSI 16 t
	Kitty Term = "kitty" // those, the keyboard flags and a graphics query
)

// Answerer answers the terminal queries in what Claude shows, as its Term
// would. It follows the state a reply reports: the DEC private modes set
// and reset, and the kitty keyboard flags pushed, popped and set (one
// stack: a real kitty keeps another for the alternate screen, which no
// recording shows Claude using). Its cell is always 10x20 pixels, and each
// reply goes in one write.
type Answerer struct {
	term  Term
	mu    sync.Mutex   // the drain answers; the person's key reads the flags
	modes map[int]bool // DEC private modes set (true) or reset
	flags []int        // the kitty keyboard flags' stack, top last
	carry []byte       // the end of the last read, where a sequence may begin
}

// NewAnswerer answers as term would.
func NewAnswerer(term Term) *Answerer {
	return &Answerer{term: term, modes: map[int]bool{}}
}

// carryLen is how much of a read is kept for a sequence the next read ends:
// one longer is not answered (Claude's are all shorter).
const carryLen = 1024

// knownModes are the DEC private modes each terminal reports on (DECRQM):
// others get "not recognised".
var knownModes = map[Term]map[int]bool{
	Xterm: {1: true, 7: true, 25: true, 47: true, 1000: true, 1002: true, 1003: true, 1004: true, 1006: true, 1016: true,
		1047: true, 1049: true, 2004: true},
	Kitty: {1: true, 7: true, 25: true, 47: true, 1000: true, 1002: true, 1003: true, 1004: true, 1006: true, 1016: true,
		1047: true, 1049: true, 2004: true, 2026: true},
}

// sequences are what the answerer acts on, each a pattern and what it does:
// a query returns its reply, a mode or flags change updates the state.
var sequences = []struct {
	re *regexp.Regexp
	do func(a *Answerer, m []string) string
}{
	{regexp.MustCompile(`\x1b\[0?c`), func(a *Answerer, _ []string) string { // DA1
		if a.term == Kitty {
			return "\x1b[?62;c"
		}
		return "\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c" // xterm's default, a VT420
	}},
	{regexp.MustCompile(`\x1b\[>0?q`), func(a *Answerer, _ []string) string { // XTVERSION
		if a.term == Kitty {
			return "\x1bP>|kitty(0.39.1)\x1b\\"
		}
		return "\x1bP>|XTerm(390)\x1b\\"
	}},
	{regexp.MustCompile(`\x1b\[\?u`), func(a *Answerer, _ []string) string { // kitty keyboard flags
		if a.term != Kitty {
			return ""
		}
		top := 0
		if len(a.flags) > 0 {
			top = a.flags[len(a.flags)-1]
		}
		return fmt.Sprintf("\x1b[?%du", top)
	}},
	{regexp.MustCompile(`\x1b\[>(\d*)u`), func(a *Answerer, m []string) string { // push flags
		a.flags = append(a.flags, atoi(m[1], 0))
		return ""
	}},
	{regexp.MustCompile(`\x1b\[<(\d*)u`), func(a *Answerer, m []string) string { // pop flags
		a.flags = a.flags[:max(0, len(a.flags)-atoi(m[1], 1))]
		return ""
	}},
	{regexp.MustCompile(`\x1b\[=(\d*)(?:;(\d*))?u`), func(a *Answerer, m []string) string { // set flags
		if len(a.flags) == 0 {
			a.flags = []int{0}
		}
		top, f := &a.flags[len(a.flags)-1], atoi(m[1], 0)
		switch atoi(m[2], 1) {
		case 1:
			*top = f
		case 2:
			*top |= f
		case 3:
			*top &^= f
		}
		return ""
	}},
	{regexp.MustCompile(`\x1b\[\?([\d;]+)([hl])`), func(a *Answerer, m []string) string { // DECSET, DECRST
		for _, n := range strings.Split(m[1], ";") {
			a.modes[atoi(n, 0)] = m[2] == "h"
		}
		return ""
	}},
	{regexp.MustCompile(`\x1b\[\?(\d+)\$p`), func(a *Answerer, m []string) string { // DECRQM
		n, v := atoi(m[1], 0), 0
		if knownModes[a.term][n] {
			v = 2
			if a.modes[n] {
				v = 1
			}
		}
		return fmt.Sprintf("\x1b[?%d;%d$y", n, v)
	}},
	{regexp.MustCompile(`\x1b_G(i=\d+),[^\x1b]*a=q[^\x1b]*\x1b\\`), func(a *Answerer, m []string) string { // kitty graphics
		if a.term != Kitty {
			return ""
		}
		return "\x1b_G" + m[1] + ";OK\x1b\\"
	}},
	{regexp.MustCompile(`\x1b\[16t`), func(*Answerer, []string) string { return "\x1b[6;20;10t" }}, // the cell in pixels
}

func atoi(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

// Answer acts on the sequences in what was just shown, in their order, and
// returns the replies the terminal would send.
func (a *Answerer) Answer(shown []byte) []byte {
	if a.term == Mute {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	b := append(a.carry, shown...)
	type hit struct {
		at, seq int
		m       []string
	}
	var hits []hit
	for k, sq := range sequences {
		for _, m := range sq.re.FindAllSubmatchIndex(b, -1) {
			if m[1] <= len(a.carry) {
				continue // acted on with the last read
			}
			var groups []string
			for g := 0; g < len(m); g += 2 {
				if m[g] < 0 {
					groups = append(groups, "")
					continue
				}
				groups = append(groups, string(b[m[g]:m[g+1]]))
			}
			hits = append(hits, hit{m[0], k, groups})
		}
	}
	// In the order shown: a push before a query changes its reply.
	slices.SortStableFunc(hits, func(x, y hit) int { return cmp.Compare(x.at, y.at) })
	var out []byte
	for _, h := range hits {
		out = append(out, sequences[h.seq].do(a, h.m)...)
	}
	a.carry = append(a.carry[:0], b[max(0, len(b)-carryLen):]...)
	return out
}

// Disambiguate reports whether the keyboard flags on top of the stack ask
// for keys disambiguated (flag 1, as Claude pushes): a kitty then sends Esc
// as CSI 27 u.
func (a *Answerer) Disambiguate() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.term == Kitty && len(a.flags) > 0 && a.flags[len(a.flags)-1]&1 != 0
}
