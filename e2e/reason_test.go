//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// TestHeadlessEnds: a headless run given a prompt ends when Claude's turn
// ends with nothing open, as claude -p does, with no --exit-after-turn: exit
// 0 within seconds of the verified answer. --keep-open keeps Claude open
// after its turn, for what may come: the run then ends only at its idle
// limit.
func TestHeadlessEnds(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		r := runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database", "--rules", writeRules(t, sqliteRule))
		v, x := r.find("verified"), r.find("exit")
		if r.code != 0 || len(v) != 1 || len(x) != 1 {
			t.Fatalf("want the answer verified and exit 0 with no --exit-after-turn\n%s", r)
		}
		after := eventTime(t, x[0]).Sub(eventTime(t, v[0]))
		if after > 10*time.Second {
			t.Errorf("the run ended %v after the verified answer, want seconds\n%s", after, r)
		}
		r = runClaudewrap(t, version, "testdata/scenarios/database.yaml", "pick a database", "--rules", writeRules(t, sqliteRule),
			"--keep-open", "--idle-timeout", "8s")
		te, b := r.find("turn_end"), r.find("blocked")
		if r.code != 7 || len(te) != 1 || len(b) != 1 || eventTime(t, b[0]).Sub(eventTime(t, te[0])) < 6*time.Second {
			t.Fatalf("--keep-open: want Claude kept open after its turn until the idle limit (exit 7)\n%s", r)
		}
		report("Claude Code %s: a headless run ended %v after its verified answer (exit 0); --keep-open kept Claude open until the idle limit", version, after.Round(100*time.Millisecond))
	})
}

// eventTime is when an event was logged.
func eventTime(t *testing.T, e event) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, e["ts"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestClaudesReason: without an API key and with no login, Claude shows
// "Not logged in · Please run /login" and waits at its prompt. The
// headless run ends at once with exit 1 and Claude's own words on stderr
// and in the exit event.
func TestClaudesReason(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/hello.yaml")
		start := time.Now()
		r := runEnv(t, sb, []string{"ANTHROPIC_API_KEY="}, "say hello")
		took := time.Since(start)
		x := r.find("exit")
		if r.code != 1 || len(x) != 1 || !strings.Contains(lastLine(r.stderr), "Not logged in · Please run /login") ||
			!strings.Contains(x[0]["reason"].(string), "Not logged in") || took > 30*time.Second {
			t.Fatalf("want exit 1 within seconds, Claude's words last on stderr and in the exit event (took %v)\n%s", took, r)
		}
		report("Claude Code %s: no API key and no login: ended in %v with Claude's words %q (exit 1)", version, took.Round(100*time.Millisecond), lastLine(r.stderr))
	})
}

// TestClaudesLastWords: Claude refuses an option it does not know and
// exits 1 before any session starts: its own words, from its last screen,
// are on stderr and in the exit event.
func TestClaudesLastWords(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/hello.yaml")
		r := runEnv(t, sb, nil, "say hello", "--", "--no-such-option", "say hello")
		x := r.find("exit")
		if r.code != 1 || len(x) != 1 || !strings.Contains(r.stderr, "Claude's screen as it ended:") ||
			!strings.Contains(r.stderr, "--no-such-option") || !strings.Contains(x[0]["screen"].(string), "--no-such-option") {
			t.Fatalf("want exit 1 with Claude's own words on stderr and in the exit event\n%s", r)
		}
		report("Claude Code %s: Claude refused an unknown option and exited 1: its words shown", version)
	})
}

// TestAPIUnreachable: with a base URL that refuses connections, Claude
// retries; the run says at once why it waits, with Claude's words.
func TestAPIUnreachable(t *testing.T) {
	forVersions(t, func(t *testing.T, version string) {
		sb := claudetest.New(t, version, "testdata/scenarios/hello.yaml")
		start := time.Now()
		r := runInEnv(t, sb, []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:9"}, "say hello", "retrying")
		rt := r.find("retrying")
		if len(rt) == 0 || !strings.Contains(r.stderr, "Claude cannot reach its API and retries") || eventTime(t, rt[0]).Sub(start) > 20*time.Second {
			t.Fatalf("want the retries said within seconds, with Claude's words\n%s", r)
		}
		report("Claude Code %s: API refused: said in %v: %s", version, eventTime(t, rt[0]).Sub(start).Round(100*time.Millisecond), rt[0]["message"])
	})
}

// TestVersionFloor: a Claude Code older than claudewrap supports is said
// at the start, and headless its first form ends the run at once (exit 7,
// within seconds, nothing pressed) rather than fail after its bounds.
func TestVersionFloor(t *testing.T) {
	version := "2.0.77"
	if v := os.Getenv("CLAUDEWRAP_BELOW_FLOOR"); v != "" {
		version = v
	}
	sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
	start := time.Now()
	r := runEnv(t, sb, nil, "pick a database", "--rules", writeRules(t, sqliteRule))
	took := time.Since(start)
	first := strings.SplitN(r.stderr, "\n", 2)[0]
	if !strings.Contains(first, "Claude Code "+version+" is older than claudewrap supports (2.1.197 and later") {
		t.Errorf("the floor was not said first: %q", first)
	}
	if r.code != 7 || len(r.find("key")) != 0 || len(r.find("blocked")) != 1 || took > 15*time.Second {
		t.Fatalf("want the run blocked at its first form within 15s, nothing pressed (took %v)\n%s", took, r)
	}
	report("Claude Code %s (below the floor): said at start, the form ended the run in %v (exit 7)", version, took.Round(100*time.Millisecond))
}
