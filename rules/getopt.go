package rules

import (
	"slices"
	"strings"
)

// getopt describes a command's options, as getopt reads them.
type getopt struct {
	flags    string   // short options with no value
	values   string   // short options with a value, attached or the next word
	optional string   // short options with a value only when attached (xargs -i)
	long     []string // long options with no value (or one after =)
	longVals []string // long options with a value after = or as the next word
	digits   bool     // -N is an option (nice -10)
	plus     bool     // +x sets an option as -x does (the shells)
	anyLong  bool     // every --name and --name=value is an option with no value as the next word (firejail)
}

// opt is an option met: "-x" or "--name", with its value.
type opt struct {
	name, value string
	word        word // the value as a word: literal or not
}

// scan reads the options at the start of words and returns the words after
// them (after --), the options met, and the first option it does not know
// ("" for none), which it takes for a flag. A word with an expansion ends
// the options: it may be the command.
func (o getopt) scan(words []word) (rest []word, met []opt, unknown string) {
	note := func(s string) {
		if unknown == "" {
			unknown = s
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.ok {
			return words[i:], met, unknown
		}
		s := w.lit
		next := func() (string, word) {
			if i+1 < len(words) {
				i++
				return words[i].lit, words[i]
			}
			return "", named("")
		}
		switch {
		case s == "--":
			return words[i+1:], met, unknown
		case strings.HasPrefix(s, "--"):
			name, value, hasValue := strings.Cut(s[2:], "=")
			switch {
			case slices.Contains(o.longVals, name):
				vw := named(value)
				if !hasValue {
					value, vw = next()
				}
				met = append(met, opt{"--" + name, value, vw})
			case slices.Contains(o.long, name) || o.anyLong:
				met = append(met, opt{"--" + name, value, named(value)})
			default:
				note(s)
			}
		case len(s) > 1 && (s[0] == '-' || o.plus && s[0] == '+'):
			if o.digits && strings.Trim(s[1:], "0123456789") == "" {
				met = append(met, opt{"-N", s[1:], named(s[1:])})
				continue
			}
			for j := 1; j < len(s); j++ {
				c := s[j]
				name := "-" + string(c)
				switch {
				case strings.IndexByte(o.values, c) >= 0:
					value, vw := s[j+1:], named(s[j+1:])
					if value == "" {
						value, vw = next()
					}
					met = append(met, opt{name, value, vw})
					j = len(s)
				case strings.IndexByte(o.optional, c) >= 0:
					met = append(met, opt{name, s[j+1:], named(s[j+1:])})
					j = len(s)
				case strings.IndexByte(o.flags, c) >= 0:
					met = append(met, opt{name, "", named("")})
				default:
					note(name)
				}
			}
		default:
			return words[i:], met, unknown
		}
	}
	return nil, met, unknown
}

func metAny(met []opt, names []string) (opt, bool) {
	for _, o := range met {
		if slices.Contains(names, o.name) {
			return o, true
		}
	}
	return opt{}, false
}

// optWords are the values of the options named name that were met.
func optWords(met []opt, name string) []word {
	var out []word
	for _, o := range met {
		if o.name == name {
			out = append(out, o.word)
		}
	}
	return out
}
