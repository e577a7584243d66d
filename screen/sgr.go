package screen

import (
	"cmp"
	"strings"
)

// rewriteSGR rewrites SGR parameters for vt10x, or returns "" to drop them.
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
