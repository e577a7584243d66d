package vt

// sgrParam is one ';'-separated SGR parameter: its number (0 when empty,
// 65535 at most, as xterm caps them), or its ':'-separated sub-parameters.
type sgrParam struct {
	n   int
	sub []byte // nil unless the parameter holds a ':'
}

// maxParam caps a parameter's number, so that no SGR or colour reads an
// overlong one.
const maxParam = 65535

// sgr applies SGR parameters to the pen, as xterm does, reading them without
// allocating. The screen counts as changed unless every parameter is one
// that draws nothing (blink, underline colour, an unknown ':' form).
func (f *filter) sgr(params []byte) {
	ps := f.sgrIn[:0]
	for {
		i := 0
		for i < len(params) && params[i] != ';' {
			i++
		}
		ps = append(ps, readSGRParam(params[:i]))
		if i == len(params) {
			break
		}
		params = params[i+1:]
	}
	f.sgrIn = ps
	if f.t.cur.setAttr(ps) {
		f.touch()
	}
}

// readSGRParam reads one parameter: digits, or sub-parameters with ':'.
func readSGRParam(p []byte) sgrParam {
	n := 0
	for _, c := range p {
		if c == ':' {
			return sgrParam{sub: p}
		}
		n = min(n*10+int(c-'0'), maxParam)
	}
	return sgrParam{n: n}
}

// setAttr applies SGR parameters to the pen and reports whether any of them
// is one that can draw.
func (p *pen) setAttr(ps []sgrParam) (drew bool) {
	for i := 0; i < len(ps); i++ {
		if ps[i].sub != nil {
			drew = p.colonAttr(ps[i].sub) || drew
			continue
		}
		switch a := ps[i].n; {
		case a == 5 || a == 6 || a == 25: // blink: not shown
			continue
		case a == 38 || a == 48 || a == 58:
			c, n, ok := extColor(ps[i+1:])
			if n < 0 {
				// The colour's arguments are missing: the rest is dropped.
				return drew
			}
			i += n
			switch {
			case a == 58: // underline colour: not shown
				continue
			case ok && a == 38:
				p.fg = c
			case ok:
				p.bg = c
			}
		case a == 0:
			p.attr, p.fg, p.bg = 0, DefaultFG, DefaultBG
		case a == 1:
			p.attr |= Bold
		case a == 2:
			p.attr |= Dim
		case a == 3:
			p.attr |= Italic
		case a == 4 || a == 21: // 21: double underline (ECMA-48), as xterm reads it
			p.attr |= Underline
		case a == 7:
			p.attr |= Reverse
		case a == 22:
			p.attr &^= Bold | Dim
		case a == 23:
			p.attr &^= Italic
		case a == 24:
			p.attr &^= Underline
		case a == 27:
			p.attr &^= Reverse
		case a == 39:
			p.fg = DefaultFG
		case a == 49:
			p.bg = DefaultBG
		case a >= 30 && a <= 37:
			p.fg = Color(a - 30)
		case a >= 40 && a <= 47:
			p.bg = Color(a - 40)
		case a >= 90 && a <= 97:
			p.fg = Color(a - 90 + 8)
		case a >= 100 && a <= 107:
			p.bg = Color(a - 100 + 8)
		}
		drew = true
	}
	return drew
}

// extColor reads the arguments of SGR 38, 48 or 58 in their ';' form: 5;n
// or 2;r;g;b. It returns how many it consumed (-1 when they are missing)
// and whether they made a colour.
func extColor(rest []sgrParam) (c Color, n int, ok bool) {
	plain := func(k int) bool {
		for _, p := range rest[:k] {
			if p.sub != nil {
				return false
			}
		}
		return true
	}
	in := func(v int) bool { return v <= 255 }
	switch {
	case len(rest) >= 2 && plain(2) && rest[0].n == 5:
		return Color(rest[1].n), 2, in(rest[1].n)
	case len(rest) >= 4 && plain(4) && rest[0].n == 2:
		r, g, b := rest[1].n, rest[2].n, rest[3].n
		return RGB(uint8(r), uint8(g), uint8(b)), 4, in(r) && in(g) && in(b)
	}
	return 0, -1, false
}

// colonAttr applies one SGR parameter with ':' sub-parameters: an underline
// style (4:0 is none, others one), or a colour (38:5:n, 38:2:r:g:b,
// 38:2:colourspace:r:g:b as ITU T.416 has it; empty ones are 0). It reports
// whether the form is one that can draw; others are ignored.
func (p *pen) colonAttr(s []byte) bool {
	var sub [6]int // the first six sub-parameters
	n, set := 1, false
	for _, c := range s {
		switch {
		case c == ':':
			n++
		case n <= len(sub):
			sub[n-1] = min(sub[n-1]*10+int(c-'0'), maxParam)
			set = set || n == 2
		}
	}
	in := func(v int) bool { return v <= 255 }
	switch {
	case sub[0] == 4 && n == 2 && set && sub[1] == 0:
		p.attr &^= Underline
	case sub[0] == 4:
		p.attr |= Underline
	case sub[0] != 38 && sub[0] != 48:
		return false
	case n == 3 && sub[1] == 5:
		if in(sub[2]) {
			p.setColor(sub[0], Color(sub[2]))
		}
	case (n == 5 || n == 6) && sub[1] == 2:
		r, g, b := sub[n-3], sub[n-2], sub[n-1]
		if in(r) && in(g) && in(b) {
			p.setColor(sub[0], RGB(uint8(r), uint8(g), uint8(b)))
		}
	default:
		return false
	}
	return true
}

// setColor sets the foreground for SGR 38, the background for 48.
func (p *pen) setColor(sgr int, c Color) {
	if sgr == 38 {
		p.fg = c
	} else {
		p.bg = c
	}
}
