package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

func TestStart(t *testing.T) {
	for _, n := range []int{1, 3} {
		start := time.Now()
		c := Start(t, Options{Nodes: n})
		t.Logf("%d nodes ready in %v", n, time.Since(start))
		nc, err := nats.Connect(c.URL())
		if err != nil {
			t.Fatal(err)
		}
		nc.Close()
	}
}
