//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/session"
	"github.com/claudewrap/claudewrap/vt"
)

// An in-process session on the real Claude Code with seams for faults: the
// keys askflow sends can be dropped or delayed, and the events read as they come.

// sqliteRule answers the database scenario's form; sqliteAnswer is what
// Claude records for it.
const sqliteRule = "  - answer: {select: SQLite}\n"
const sqliteAnswer = `"Which database should we use?"="SQLite"`

// lockedBuffer is an event log the test can read while the session writes.
type lockedBuffer struct{ testkit.SyncBuffer }

func (l *lockedBuffer) events(t *testing.T) []event {
	var out []event
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// keyFault wraps the keys askflow sends; fault sees each key (1-based n)
// and says whether to deliver it.
type keyFault struct {
	mu    sync.Mutex
	n     int
	inner askflow.Keys
	fault func(n int, key []byte) bool
}

func (k *keyFault) SendKeys(p []byte) error {
	k.mu.Lock()
	k.n++
	n := k.n
	k.mu.Unlock()
	if !k.fault(n, p) {
		return nil // swallowed
	}
	return k.inner.SendKeys(p)
}

type faultRun struct {
	sb     *claudetest.Sandbox
	report session.Report
	err    error
	log    *lockedBuffer
	host   *ptyhost.Host
	socket string
}

func (r *faultRun) find(t *testing.T, name string) []event {
	var out []event
	for _, e := range r.log.events(t) {
		if e.name() == name {
			out = append(out, e)
		}
	}
	return out
}

func (r *faultRun) String() string {
	s := fmt.Sprintf("report %+v err %v\nevents:\n%s", r.report, r.err, r.log.String())
	if r.host != nil {
		s += "screen:\n" + r.host.Screen().Snapshot().Text()
	}
	return s
}

// runSession runs a session in-process on the real Claude Code with fault
// seams, headless at 100x40, ending with the turn.
func runSession(t *testing.T, version, scenario, prompt, rulesYAML string, fault func(n int, key []byte, h *ptyhost.Host) bool, started func(r *faultRun), mods ...func(*session.Config)) *faultRun {
	t.Helper()
	sb := claudetest.New(t, version, scenario)
	set, err := rules.Load(writeRules(t, rulesYAML))
	if err != nil {
		t.Fatal(err)
	}
	r := &faultRun{sb: sb, log: &lockedBuffer{}}
	var hostMu sync.Mutex
	cfg := session.Config{
		Host: ptyhost.Config{Path: sb.Claude, Args: []string{prompt}, Env: sb.Env(), Dir: sb.Dir,
			Headless: true, Cols: 100, Rows: 40},
		Exe:           claudetest.Claudewrap(t),
		Decider:       set,
		Policy:        rules.Fail,
		Log:           events.New(r.log),
		ExitAfterTurn: true,
		Flow:          askflow.Config{FormTimeout: 10 * time.Second, StepTimeout: 2 * time.Second},
		Started: func(h *ptyhost.Host, socket string) {
			hostMu.Lock()
			r.host, r.socket = h, socket
			hostMu.Unlock()
			if started != nil {
				started(r)
			}
		},
	}
	if fault != nil {
		cfg.WrapKeys = func(k askflow.Keys) askflow.Keys {
			return &keyFault{inner: k, fault: func(n int, key []byte) bool {
				hostMu.Lock()
				h := r.host
				hostMu.Unlock()
				return fault(n, key, h)
			}}
		}
	}
	for _, m := range mods {
		m(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.report, r.err = session.Run(ctx, cfg)
	}()
	select {
	case <-done:
	case <-time.After(100 * time.Second):
		t.Fatalf("session did not end\n%s", r)
	}
	return r
}

// waitQuiet waits until the screen has not changed for quiet, at most limit.
func waitQuiet(em vt.Emulator, quiet, limit time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for ctx.Err() == nil {
		seq := em.Snapshot().Seq
		qctx, qcancel := context.WithTimeout(ctx, quiet)
		_, err := em.Wait(qctx, func(s vt.Snapshot) bool { return s.Seq != seq })
		qcancel()
		if err != nil {
			return
		}
	}
}
