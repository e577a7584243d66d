package inbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/claudewrap/claudewrap/internal/testsupport/natstest"
)

func TestPlaintext(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string // "" when taken; else a part of the error
	}{
		{Config{URL: "nats://127.0.0.1:4222"}, ""},
		{Config{URL: "nats://localhost:4222, nats://[::1]:4223"}, ""},
		{Config{URL: "nats://192.0.2.1:4222"}, ErrPlaintext.Error()},
		{Config{URL: "nats://127.0.0.1:4222,nats://inbox.example:4222"}, ErrPlaintext.Error()},
		{Config{URL: "nats://inbox.example:4222", AllowPlaintext: true}, ""},
		{Config{URL: "tls://inbox.example:4222"}, ""},
		{Config{URL: "nats://inbox.example:4222", CAFile: "ca.pem"}, ""},
		{Config{URL: "nats://alice:secret@127.0.0.1:4222"}, "not in the URL"},
		{Config{URL: "https://inbox.example"}, "want nats:// or tls://"},
		{Config{URL: " , "}, "no URL"},
	}
	for _, tt := range tests {
		_, _, err := parseURLs(tt.cfg)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v, want it taken", tt.cfg, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: %v, want an error holding %q", tt.cfg, err, tt.want)
		}
	}
	if strings.Contains(func() string {
		_, _, err := parseURLs(Config{URL: "nats://alice:secret@127.0.0.1:4222"})
		return err.Error()
	}(), "secret") {
		t.Error("a password in the URL is repeated in the error")
	}

	// Refused before anything is dialled.
	_, err := Dial(context.Background(), Config{URL: "nats://inbox.invalid:4222"})
	if !errors.Is(err, ErrPlaintext) {
		t.Errorf("Dial to a host not this machine without TLS: %v, want ErrPlaintext", err)
	}

	// An address a server advertises is checked as it is dialled.
	var dialled []string
	d := loopbackDialer{dial: func(network, address string) (net.Conn, error) {
		dialled = append(dialled, address)
		return nil, errors.New("not dialled in this test")
	}}
	if _, err := d.Dial("tcp", "192.0.2.1:4222"); !errors.Is(err, ErrPlaintext) {
		t.Errorf("dialling 192.0.2.1 in plaintext: %v, want ErrPlaintext", err)
	}
	d.Dial("tcp", "127.0.0.1:4222")
	d.Dial("tcp", "[::1]:4222")
	if strings.Join(dialled, " ") != "127.0.0.1:4222 [::1]:4222" {
		t.Errorf("dialled %v, want only the loopback addresses", dialled)
	}
}

func TestCredentials(t *testing.T) {
	srv := natstest.Start(t, natstest.Options{Config: `authorization {
  users: [
    {user: alice, password: right}
    {user: runner, password: also-right}
  ]
}`})
	_, err := Dial(context.Background(), Config{URL: srv.URL(), User: "alice", Password: "wrong"})
	if !errors.Is(err, nats.ErrAuthorization) || !strings.Contains(err.Error(), "Authorization Violation") {
		t.Fatalf("a wrong password: %v; want NATS's reason", err)
	}
	if _, err := Dial(context.Background(), Config{URL: srv.URL(), User: "alice", Password: "right", Token: "t"}); err == nil {
		t.Error("two credentials at once: taken")
	}

	// A run whose credential is refused keeps trying, and says why.
	c, err := Dial(context.Background(), Config{URL: srv.URL(), User: "runner", Password: "wrong", Retry: true})
	if err != nil {
		t.Fatalf("a run's connection: %v; want it to keep trying", err)
	}
	defer c.Close()
	p := NewPublisher(c, Identity{Machine: "laptop", Session: "1"})
	defer p.Close()
	eventually(t, wait, "the run saying why", func() (string, bool) {
		select {
		case s := <-p.Status():
			return s.Reason, !s.Connected && strings.Contains(strings.ToLower(s.Reason), "authorization violation")
		default:
			return "nothing said", false
		}
	})

	// The right ones: the user's name is who answers.
	alice := dial(t, Config{URL: srv.URL(), User: "alice", Password: "right"})
	run := runOn(t, Config{URL: srv.URL(), User: "runner", Password: "also-right"}, "laptop", "2")
	id := run.Publish(form("toolu_1"))
	listed(t, alice, id)
	if r := answerAndApply(t, run, alice, id, "SQLite"); r.Result != "verified" {
		t.Fatalf("answer: %+v", r)
	}
}

func TestTLS(t *testing.T) {
	certs := natstest.MakeTLS(t)
	srv := natstest.Start(t, natstest.Options{Config: certs.Config(true)})

	if _, err := Dial(context.Background(), Config{URL: srv.URL(), CAFile: certs.CA}); err == nil {
		t.Error("no client certificate where the server asks one: taken")
	}
	if _, err := Dial(context.Background(), Config{URL: srv.URL()}); err == nil {
		t.Error("a TLS server, dialled without its CA: taken")
	}
	cfg := Config{URL: srv.URL(), CAFile: certs.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey}
	alice := cfg
	alice.Name = "alice"
	a := dial(t, alice)
	run := runOn(t, cfg, "laptop", "1")
	id := run.Publish(form("toolu_1"))
	listed(t, a, id)
	if r := answerAndApply(t, run, a, id, "SQLite"); r.Result != "verified" {
		t.Fatalf("answer over TLS: %+v", r)
	}
}

// A run dials on when the inbox cannot be reached, and not when a server
// refuses it.
func TestDialRun(t *testing.T) {
	srv := natstest.Start(t, natstest.Options{Config: "authorization {\n  users: [{user: runner, password: right}]\n}"})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := DialRun(ctx, Config{URL: srv.URL(), User: "runner", Password: "wrong"}); !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("a wrong password: %v; want NATS's reason", err)
	}
	if _, err := DialRun(ctx, Config{URL: "nats://192.0.2.1:4222"}); !errors.Is(err, ErrPlaintext) {
		t.Errorf("plaintext to another host: %v; want ErrPlaintext", err)
	}
	srv.Stop(0)
	c, err := DialRun(ctx, Config{URL: srv.URL(), User: "runner", Password: "right"})
	if err != nil {
		t.Fatalf("an inbox down: %v; want a connection that keeps trying", err)
	}
	defer c.Close()
	srv.Start(0)
	eventually(t, wait, "the connection made once the server is back", func() (string, bool) {
		return fmt.Sprint(c.Err()), c.Connected()
	})
}
