package inbox

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strconv"
	"strings"
)

// FormID names a form in the inbox: MACHINE.SESSION.RANDOM, the machine's
// and the session's names escaped to a key's alphabet and 130 random bits,
// which nobody guesses. It is the form's key in the forms bucket, so that
// the server's permissions decide which machine may write it (see
// docs/inbox.md): the machine it names is the one whose runner wrote it.
type FormID string

// newFormID is a new form's id in a session of a machine.
func newFormID(machine, session string) FormID {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	r := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
	return FormID(escape(machine) + "." + escape(session) + "." + r)
}

// ParseFormID checks s is a form's id.
func ParseFormID(s string) (FormID, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return "", fmt.Errorf("%q is no form id (MACHINE.SESSION.RANDOM)", s)
	}
	for _, p := range parts[:2] {
		if _, err := unescape(p); err != nil {
			return "", fmt.Errorf("%q is no form id: %v", s, err)
		}
	}
	if len(parts[2]) < 16 || strings.Trim(parts[2], "abcdefghijklmnopqrstuvwxyz234567") != "" {
		return "", fmt.Errorf("%q is no form id: its last part is not one claudewrap makes", s)
	}
	return FormID(s), nil
}

// Machine is the machine the form waits on.
func (id FormID) Machine() string { return id.part(0) }

// Session is the session the form waits in, as its machine names it.
func (id FormID) Session() string { return id.part(1) }

func (id FormID) part(i int) string {
	parts := strings.Split(string(id), ".")
	if len(parts) != 3 {
		return ""
	}
	s, _ := unescape(parts[i])
	return s
}

// claimKey is the key of a claim on form id in round, by token (a name
// escaped, or [localName]): the last token is what the server's
// permissions tie to the NATS user (see docs/inbox.md). The claim's
// outcome is kept under the same key.
func claimKey(id FormID, round int, token string) string {
	return string(id) + "." + strconv.Itoa(round) + "." + token
}

// parseClaimKey splits a claim's key; who is the name its last token
// escapes, or [localName].
func parseClaimKey(key string) (id FormID, round int, who string, ok bool) {
	parts := strings.Split(key, ".")
	if len(parts) != 5 {
		return "", 0, "", false
	}
	round, err := strconv.Atoi(parts[3])
	if err != nil || round < 1 || strconv.Itoa(round) != parts[3] {
		return "", 0, "", false
	}
	who = localName
	if parts[4] != localName {
		if who, err = unescape(parts[4]); err != nil {
			return "", 0, "", false
		}
	}
	id, err = ParseFormID(strings.Join(parts[:3], "."))
	if err != nil {
		return "", 0, "", false
	}
	return id, round, who, true
}

// localName is the name a run claims its own forms under, for an answer
// given on its machine (the terminal, the local socket): no escaped name
// is spelt so, since an escape is "=" and two hex digits.
const localName = "=run"

// escape maps s to the alphabet of one token of a key: letters, digits,
// '-' and '_' stand for themselves, every other byte is "=" and two hex
// digits, and the empty string is "=". It is one to one, and [unescape]
// takes only what it makes, so a token names exactly one name.
func escape(s string) string {
	if s == "" {
		return "="
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	return b.String()
}

// unescape undoes escape.
func unescape(t string) (string, error) {
	if t == "=" {
		return "", nil
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		case c == '=' && i+2 < len(t) && isUpperHex(t[i+1]) && isUpperHex(t[i+2]):
			v, _ := strconv.ParseUint(t[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
		default:
			return "", fmt.Errorf("%q is not an escaped name", t)
		}
	}
	if escape(b.String()) != t {
		return "", fmt.Errorf("%q is not an escaped name", t)
	}
	return b.String(), nil
}

func isUpperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }
