package screen

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/claudewrap/claudewrap/vt"
)

// Retry is Claude's line while it retries a request its API refused or
// could not be reached for: "✻ Connection refused — … (ECONNREFUSED) ·
// retrying in 1s · attempt 3/10" (2.1.197: "Unable to connect to API
// (ConnectionRefused) · Retrying in 1s · attempt 3/10").
type Retry struct {
	Message     string // what went wrong, in Claude's words
	Attempt, Of int
}

var retryLine = regexp.MustCompile(`^\S\s+(.+?) · [Rr]etrying in \d+\s*\w* · attempt (\d+)/(\d+)\s*$`)

// ParseRetry finds Claude's retry line on the screen.
func ParseRetry(s vt.Snapshot) (Retry, bool) {
	for _, l := range strings.Split(s.Text(), "\n") {
		m := retryLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		a, _ := strconv.Atoi(m[2])
		of, _ := strconv.Atoi(m[3])
		return Retry{Message: m[1], Attempt: a, Of: of}, true
	}
	return Retry{}, false
}
