package inbox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/natstest"
	"github.com/claudewrap/claudewrap/remote"
)

// electionWait bounds a wait across a JetStream election: nats-server
// elects a new leader within four to nine seconds of losing one.
const electionWait = 45 * time.Second

// applier is the run's side in these tests: it applies every claim the
// run is given, says it verified, and counts the claims of each form.
type applier struct {
	mu      sync.Mutex
	applied map[FormID]int
	done    chan struct{}
}

func apply(t *testing.T, run *Publisher) *applier {
	a := &applier{applied: map[FormID]int{}, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for {
			select {
			case cl := <-run.Claims():
				a.mu.Lock()
				a.applied[cl.Form]++
				a.mu.Unlock()
				run.Done(cl, remote.Outcome{Result: "verified"})
			case <-run.ended:
				return
			}
		}
	}()
	t.Cleanup(func() { run.Close(); <-a.done })
	return a
}

func (a *applier) count(id FormID) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.applied[id]
}

// answerThrough answers form id from c, again while the inbox cannot take
// it (an election under way), until an answer of c's took the form; it
// returns the last result.
func answerThrough(t *testing.T, c *Conn, id FormID, label string) Result {
	t.Helper()
	var r Result
	var err error
	eventually(t, electionWait, "an answer to "+string(id), func() (string, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err = c.Answer(ctx, id, pick(label), 5*time.Second)
		switch {
		case err != nil:
			return err.Error(), false
		case r.Result == "verified", r.Result == "taken" && r.By == c.Name():
			// Taken by an earlier try of c's, whose reply was lost.
			return "", true
		}
		return fmt.Sprintf("%+v", r), r.Result != "failed"
	})
	return r
}

// A three-node cluster: the node the run is connected to is killed while
// its form waits, and the answer still arrives; every node is stopped, the
// run says so and a local answer goes on; the nodes come back, and what
// the run holds is published again. No answer is applied twice.
func TestClusterFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("a cluster's elections take seconds")
	}
	srv := natstest.Start(t, natstest.Options{Nodes: 3})
	run := runOn(t, Config{URL: srv.URL()}, "laptop", "4242")
	a := apply(t, run)
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})

	f1 := run.Publish(form("toolu_1"))
	listed(t, alice, f1)
	for _, bucket := range []string{FormsBucket, ClaimsBucket, OutcomesBucket} {
		st, err := alice.js.Stream(context.Background(), "KV_"+bucket)
		if err != nil || st.CachedInfo().Config.Replicas != 3 {
			t.Fatalf("bucket %s on a cluster of three: %v; want three replicas", bucket, err)
		}
	}
	killed := srv.Index(run.c.Server())
	t.Logf("the run is connected to n%d; killed", killed+1)
	srv.Stop(killed)
	r := answerThrough(t, alice, f1, "SQLite")
	// Taken by an earlier try whose reply was lost: the run may still be
	// applying it.
	eventually(t, electionWait, "the answer applied after the run's node was killed", func() (string, bool) {
		return fmt.Sprintf("%+v, applied %d times", r, a.count(f1)), a.count(f1) == 1
	})
	run.Withdraw("toolu_1", "answered")
	srv.Start(killed)
	srv.WaitReady()

	// Every node stopped.
	f2 := run.Publish(form("toolu_2"))
	listed(t, alice, f2)
	srv.StopAll()
	eventually(t, wait, "the run saying the inbox is unreachable", func() (string, bool) {
		select {
		case s := <-run.Status():
			return s.Reason, !s.Connected && strings.Contains(s.Reason, "unreachable")
		default:
			return "nothing new said", false
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	local := run.ClaimLocal(ctx, "toolu_2", "the person at Claude's screen")
	cancel()
	if !local.Won || !local.Offline {
		t.Fatalf("a local answer while the inbox is down: %+v; want it won, offline", local)
	}
	run.Withdraw("toolu_2", "answered at Claude's screen")
	f3 := run.Publish(form("toolu_3")) // asked while the inbox is down

	srv.StartAll()
	waitStatus(t, run, true, electionWait)
	listed(t, alice, f3)
	f, err := alice.Form(context.Background(), f2)
	if err != nil || f.State != Closed || f.Reason != "answered at Claude's screen" {
		t.Fatalf("the form answered while the inbox was down: %+v, %v; want it closed with its reason", f, err)
	}
	if r := answerThrough(t, alice, f2, "SQLite"); r.Result != "refused" || !strings.Contains(r.Message, "answered at Claude's screen") {
		t.Errorf("answering it: %+v; want it refused with the reason", r)
	}
	if r := answerThrough(t, alice, f3, "SQLite"); r.Result != "verified" && r.Result != "taken" {
		t.Errorf("answering the form asked while the inbox was down: %+v", r)
	}
	for _, id := range []FormID{f1, f2, f3} {
		if want := map[FormID]int{f1: 1, f3: 1}[id]; a.count(id) != want {
			t.Errorf("%s applied %d times, want %d", id, a.count(id), want)
		}
	}
}

// Two answerers race on a replicated inbox too: the server's atomic
// check holds across the cluster.
func TestClusterRace(t *testing.T) {
	if testing.Short() {
		t.Skip("a cluster")
	}
	srv := natstest.Start(t, natstest.Options{Nodes: 3})
	race(t, srv.URL(), 20)
}
