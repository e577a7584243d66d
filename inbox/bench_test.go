package inbox

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/natstest"
	"github.com/claudewrap/claudewrap/remote"
)

// BenchmarkAnswer answers 200 forms waiting in 50 runs on a three-node
// cluster, one after the other, from one answerer, and reports the time
// from the answer's start to its run receiving it (p50, p99), and to the
// answerer having the run's outcome.
//
//	go test -run '^$' -bench Answer -benchtime 1x ./inbox
func BenchmarkAnswer(b *testing.B) {
	srv := natstest.Start(b, natstest.Options{Nodes: 3})
	type got struct {
		id FormID
		at time.Time
	}
	received := make(chan got, 200)
	var forms []FormID
	var wg sync.WaitGroup
	b.Cleanup(wg.Wait) // after every run has closed: cleanups run last first
	for s := range 50 {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		c, err := Dial(ctx, Config{URL: srv.URL()})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		run := NewPublisher(c, Identity{Machine: fmt.Sprintf("m%d", s%5), Session: fmt.Sprint(s)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case cl := <-run.Claims():
					received <- got{cl.Form, time.Now()}
					run.Done(cl, remote.Outcome{Result: "verified"})
				case <-run.ended:
					return
				}
			}
		}()
		b.Cleanup(func() { run.Close(); c.Close() })
		for f := range 4 {
			forms = append(forms, run.Publish(form(fmt.Sprintf("toolu_%d", f))))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	c, err := Dial(ctx, Config{URL: srv.URL(), Name: "alice"})
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		fs, err := c.Forms(context.Background())
		if err == nil && len(fs) == len(forms) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d forms listed of %d (%v)", len(fs), len(forms), err)
		}
		<-tick.C
	}
	b.ResetTimer()
	for range b.N {
		var toRun, toOutcome []time.Duration
		for _, id := range forms {
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			r, err := c.Answer(ctx, id, pick("SQLite"), 0)
			cancel()
			if err != nil || r.Result != "verified" {
				b.Fatalf("%s: %+v, %v", id, r, err)
			}
			toOutcome = append(toOutcome, time.Since(start))
			g := <-received
			if g.id != id {
				b.Fatalf("the run received %s, want %s", g.id, id)
			}
			toRun = append(toRun, g.at.Sub(start))
		}
		slices.Sort(toRun)
		slices.Sort(toOutcome)
		b.ReportMetric(float64(toRun[len(toRun)/2].Microseconds())/1000, "ms-to-run-p50")
		b.ReportMetric(float64(toRun[len(toRun)*99/100].Microseconds())/1000, "ms-to-run-p99")
		b.ReportMetric(float64(toOutcome[len(toOutcome)/2].Microseconds())/1000, "ms-to-outcome-p50")
		b.ReportMetric(float64(toOutcome[len(toOutcome)*99/100].Microseconds())/1000, "ms-to-outcome-p99")
		// Each form was answered: the next round of answers finds them
		// taken, so one round is what there is to measure.
		if b.N > 1 {
			b.Log("each form takes one answer: run with -benchtime 1x")
			break
		}
	}
}
