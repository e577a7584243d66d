package inbox

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/internal/testsupport/natstest"
	"github.com/claudewrap/claudewrap/remote"
)

// wait bounds every wait of these tests but the cluster's elections.
const wait = 10 * time.Second

func dial(t *testing.T, cfg Config) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := Dial(ctx, cfg)
	if err != nil {
		t.Fatalf("dial %s: %v", cfg.URL, err)
	}
	t.Cleanup(c.Close)
	return c
}

// runOn starts a run's publisher on machine, on a connection of its own,
// and waits until its forms are in the inbox.
func runOn(t *testing.T, cfg Config, machine, session string) *Publisher {
	t.Helper()
	cfg.Retry = true
	p := NewPublisher(dial(t, cfg), Identity{Machine: machine, User: "dev", Session: session, PID: 4242, Cwd: "/src/" + machine, ClaudeVersion: "2.1.332"})
	t.Cleanup(p.Close)
	waitStatus(t, p, true, wait)
	return p
}

// waitStatus waits until p says it is connected (or not), and returns
// what it said.
func waitStatus(t *testing.T, p *Publisher, connected bool, within time.Duration) Status {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	var last Status
	for {
		select {
		case s := <-p.Status():
			if s.Connected == connected {
				return s
			}
			last = s
		case <-timer.C:
			t.Fatalf("the publisher did not say connected=%v within %v; it last said %+v", connected, within, last)
		}
	}
}

// form is a one-question form as a run publishes it.
func form(tool string) remote.Form {
	return remote.Form{ToolUseID: tool, Since: time.Now().UTC(), Questions: []answer.Question{{
		Header: "Database", Question: "Which database?", Options: []answer.Option{{Label: "PostgreSQL"}, {Label: "SQLite"}},
	}}}
}

func pick(label string) Reply {
	return Reply{Answers: []answer.Decision{{Action: answer.Select, Labels: []string{label}}}, From: remote.FromAnswer}
}

// eventually waits until cond holds, looking every 20ms, and fails with
// what it last saw after within.
func eventually(t *testing.T, within time.Duration, what string, cond func() (string, bool)) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		saw, ok := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last saw %s", what, within, saw)
		}
		<-tick.C
	}
}

// listed waits until c lists exactly the forms ids (in any order).
func listed(t *testing.T, c *Conn, ids ...FormID) []Form {
	t.Helper()
	var forms []Form
	eventually(t, wait, fmt.Sprintf("listing %v", ids), func() (string, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var err error
		forms, err = c.Forms(ctx)
		if err != nil {
			return err.Error(), false
		}
		got := map[FormID]bool{}
		for _, f := range forms {
			got[f.ID] = true
		}
		if len(got) != len(ids) {
			return fmt.Sprint(got), false
		}
		for _, id := range ids {
			if !got[id] {
				return fmt.Sprint(got), false
			}
		}
		return "", true
	})
	return forms
}

// nextClaim is the next claim p delivers.
func nextClaim(t *testing.T, p *Publisher, within time.Duration) Claim {
	t.Helper()
	select {
	case c := <-p.Claims():
		return c
	case <-time.After(within):
		t.Fatalf("no claim delivered within %v", within)
	}
	return Claim{}
}

// noClaim checks p has no claim to deliver now.
func noClaim(t *testing.T, p *Publisher) {
	t.Helper()
	select {
	case c := <-p.Claims():
		t.Fatalf("a claim delivered: %+v", c)
	default:
	}
}

func start(t *testing.T, nodes int) *natstest.Cluster {
	t.Helper()
	return natstest.Start(t, natstest.Options{Nodes: nodes})
}
