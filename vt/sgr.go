package vt

import (
	"bytes"
	"cmp"
	"strconv"
	"strings"
)

// sgr handles SGR with the given parameters. The common case (plain numbers
// separated by ';') is read without allocating; anything else goes through
// rewriteSGR, whose output is what the grid's setAttr understands.
func (f *filter) sgr(params []byte) {
	args, ok := f.fastSGR(params)
	if !ok {
		args = args[:0]
		sgr := rewriteSGR(string(params))
		if sgr == "" {
			return
		}
		for _, p := range strings.Split(sgr, ";") {
			n, err := strconv.Atoi(p)
			if err != nil {
				break // vt10x stopped at the first parameter it could not read
			}
			args = append(args, n)
		}
	}
	f.args = args
	if len(args) == 0 && ok {
		return // only parameters that are dropped, such as blink
	}
	f.t.setAttr(args)
	f.touch()
}

// fastSGR does what rewriteSGR does for parameters that are all plain
// numbers (no empty ones, no colons, no leading zeros, at most 9 digits),
// putting the result in f.args. It reports false for other parameters.
func (f *filter) fastSGR(params []byte) ([]int, bool) {
	out := f.args[:0]
	if len(params) == 0 {
		return append(out, 0), true // SGR 0
	}
	in := f.sgrIn[:0]
	ok := true
	eachParam(params, func(p []byte) {
		if !ok || len(p) == 0 || len(p) > 9 || len(p) > 1 && p[0] == '0' || bytes.IndexByte(p, ':') >= 0 {
			ok = false
			return
		}
		in = append(in, atoi(p))
	})
	f.sgrIn = in
	if !ok {
		return out, false
	}
	for i := 0; i < len(in); i++ {
		switch p := in[i]; p {
		case 38, 48, 58:
			n := -1
			switch rest := in[i+1:]; {
			case len(rest) >= 2 && rest[0] == 5:
				n = 2
			case len(rest) >= 4 && rest[0] == 2:
				n = 4
			}
			if n < 0 {
				return out, true
			}
			if p != 58 {
				out = append(out, in[i:i+1+n]...)
			}
			i += n
		case 2:
			out = append(out, 5)
		case 22:
			out = append(out, 22, 25)
		case 5, 6, 25:
		default:
			out = append(out, p)
		}
	}
	return out, true
}

// rewriteSGR rewrites SGR parameters for the grid's setAttr, which follows
// vt10x's, or returns "" to drop them.
//
//   - vt10x has no dim attribute but a blink one nobody uses, so dim (2) is
//     sent as blink (5), normal intensity (22) also clears it, and real blink
//     is dropped.
//   - vt10x stops at the first parameter that is not a number, and a
//     sequence left without parameters resets everything: empty parameters
//     become 0, colon forms (38:2::r:g:b, 4:3) become their semicolon forms,
//     and unknown colon forms and underline colours (58) are dropped.
func rewriteSGR(params string) string {
	if params == "" {
		return "0"
	}
	in := strings.Split(params, ";")
	out := make([]string, 0, len(in)+1)
	for i := 0; i < len(in); i++ {
		p := in[i]
		if strings.Contains(p, ":") {
			out = append(out, colonSGR(strings.Split(p, ":"))...)
			continue
		}
		switch p {
		case "":
			out = append(out, "0")
		case "38", "48", "58":
			n := colorArgs(in[i+1:])
			if n < 0 {
				return strings.Join(out, ";")
			}
			if p != "58" {
				for _, a := range in[i : i+1+n] {
					out = append(out, cmp.Or(a, "0"))
				}
			}
			i += n
		case "2":
			out = append(out, "5")
		case "22":
			out = append(out, "22", "25")
		case "5", "6", "25":
		default:
			out = append(out, p)
		}
	}
	return strings.Join(out, ";")
}

// colorArgs returns how many parameters follow 38, 48 or 58: 2 for 5;n, 4 for
// 2;r;g;b, or -1 if they are missing.
func colorArgs(rest []string) int {
	switch {
	case len(rest) >= 2 && rest[0] == "5":
		return 2
	case len(rest) >= 4 && rest[0] == "2":
		return 4
	}
	return -1
}

// colonSGR converts one colon-separated SGR parameter.
func colonSGR(sub []string) []string {
	switch {
	case sub[0] == "4" && len(sub) == 2 && sub[1] == "0":
		return []string{"24"}
	case sub[0] == "4":
		return []string{"4"}
	case sub[0] != "38" && sub[0] != "48":
	case len(sub) == 3 && sub[1] == "5":
		return []string{sub[0], "5", sub[2]}
	case (len(sub) == 5 || len(sub) == 6) && sub[1] == "2":
		// 38:2:r:g:b, or 38:2:colourspace:r:g:b as ITU T.416 has it.
		rgb := sub[len(sub)-3:]
		return []string{sub[0], "2", rgb[0], rgb[1], rgb[2]}
	}
	return nil
}

// setAttr applies SGR parameters to the pen, as vt10x did.
func (t *term) setAttr(attr []int) {
	if len(attr) == 0 {
		attr = []int{0}
	}
	c := &t.cur.pen
	for i := 0; i < len(attr); i++ {
		switch a := attr[i]; {
		case a == 0:
			c.mode &^= vtReverse | vtUnderline | vtBold | vtItalic | vtBlink
			c.fg, c.bg = vtDefaultFG, vtDefaultBG
		case a == 1:
			c.mode |= vtBold
		case a == 3:
			c.mode |= vtItalic
		case a == 4:
			c.mode |= vtUnderline
		case a == 5 || a == 6:
			c.mode |= vtBlink
		case a == 7:
			c.mode |= vtReverse
		case a == 21 || a == 22:
			c.mode &^= vtBold
		case a == 23:
			c.mode &^= vtItalic
		case a == 24:
			c.mode &^= vtUnderline
		case a == 25 || a == 26:
			c.mode &^= vtBlink
		case a == 27:
			c.mode &^= vtReverse
		case a == 38 || a == 48:
			col, n, ok := extColor(attr[i+1:])
			i += n
			if ok && a == 38 {
				c.fg = col
			} else if ok {
				c.bg = col
			}
		case a == 39:
			c.fg = vtDefaultFG
		case a == 49:
			c.bg = vtDefaultBG
		case a >= 30 && a <= 37:
			c.fg = vtColor(a - 30)
		case a >= 40 && a <= 47:
			c.bg = vtColor(a - 40)
		case a >= 90 && a <= 97:
			c.fg = vtColor(a - 90 + 8)
		case a >= 100 && a <= 107:
			c.bg = vtColor(a - 100 + 8)
		}
	}
}

// extColor reads the arguments of SGR 38 or 48: 5;n or 2;r;g;b. It returns
// how many it consumed and whether they made a colour.
func extColor(rest []int) (c vtColor, n int, ok bool) {
	in := func(v int) bool { return v >= 0 && v <= 255 }
	switch {
	case len(rest) >= 2 && rest[0] == 5:
		return vtColor(rest[1]), 2, in(rest[1])
	case len(rest) >= 4 && rest[0] == 2:
		r, g, b := rest[1], rest[2], rest[3]
		return vtColor(r<<16 | g<<8 | b), 4, in(r) && in(g) && in(b)
	}
	return 0, 0, false
}
