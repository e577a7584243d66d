package inbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/claudewrap/claudewrap/internal/testsupport/natstest"
)

// docBlock is the fenced block of docs/inbox.md whose first line is
// "# NAME".
func docBlock(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../docs/inbox.md")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(b), "```conf\n# "+name+"\n")
	if len(parts) != 2 {
		t.Fatalf("docs/inbox.md: %d blocks named %s, want 1", len(parts)-1, name)
	}
	return "# " + name + "\n" + strings.SplitN(parts[1], "```", 2)[0]
}

// docUser is a user of the doc's accounts, with a new nkey in place of
// the doc's example.
type docUser struct {
	example, seedFile string
}

// docAccounts is the doc's accounts file, each example nkey replaced by a
// new one whose seed is in a file of the test's.
func docAccounts(t *testing.T) (string, []docUser) {
	t.Helper()
	text := docBlock(t, "inbox-accounts.conf")
	var users []docUser
	for _, m := range regexp.MustCompile(`nkey: (U[A-Z2-7]{55})`).FindAllStringSubmatch(text, -1) {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		seed, _ := kp.Seed()
		f := filepath.Join(t.TempDir(), "user.nk")
		if err := os.WriteFile(f, seed, 0o600); err != nil {
			t.Fatal(err)
		}
		text = strings.ReplaceAll(text, m[1], pub)
		users = append(users, docUser{example: m[1], seedFile: f})
	}
	return text, users
}

// The doc's accounts, as they are: the runner of laptop publishes its
// forms and the answerer alice answers them; alice cannot publish a form
// or claim under another name, and the runner can claim only its own
// machine's forms, in the run's own name.
func TestDocsAccounts(t *testing.T) {
	accounts, users := docAccounts(t)
	if len(users) != 2 {
		t.Fatalf("the doc's accounts have %d users, want the runner and the answerer", len(users))
	}
	srv := natstest.Start(t, natstest.Options{Config: accounts})
	runner := Config{URL: srv.URL(), NkeyFile: users[0].seedFile}
	alice := Config{URL: srv.URL(), NkeyFile: users[1].seedFile, Name: "alice"}

	run := runOn(t, runner, "laptop", "4242")
	a := dial(t, alice)
	id := run.Publish(form("toolu_1"))
	listed(t, a, id)
	if r := answerAndApply(t, run, a, id, "SQLite"); r.Result != "verified" {
		t.Fatalf("alice's answer: %+v", r)
	}
	run.Withdraw("toolu_1", "answered")
	id2 := run.Publish(form("toolu_2"))
	listed(t, a, id2)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	if local := run.ClaimLocal(ctx, "toolu_2", "the person at Claude's screen"); !local.Won || local.Offline {
		t.Fatalf("a local answer on laptop: %+v; want it won in the inbox", local)
	}
	cancel()

	refused := func(what string, write func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := write(ctx)
		if err == nil {
			t.Errorf("%s: taken", what)
			return
		}
		if !strings.Contains(err.Error(), "Permissions Violation") && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v, want the server to refuse it", what, err)
		}
	}
	ab, err := a.buckets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	refused("alice publishing a form", func(ctx context.Context) error {
		return putForm(ctx, a, ab, Form{V: wireVersion, ID: newFormID("laptop", "1"), State: Open}, time.Minute)
	})
	refused("alice claiming as bob", func(ctx context.Context) error {
		_, err := a.writeClaim(ctx, id2, 1, escape("bob"), claimDoc{})
		return err
	})
	// Claude, on laptop, can read the runner's credentials: with them it
	// may claim only in the run's own name, which the run takes from
	// itself alone (TestForgedClaim).
	id3 := run.Publish(form("toolu_3"))
	refused("the runner of laptop claiming its own machine's form as alice", func(ctx context.Context) error {
		_, err := run.c.writeClaim(ctx, id3, 1, escape("alice"), claimDoc{})
		return err
	})
	refused("the runner of laptop claiming desk's form", func(ctx context.Context) error {
		_, err := run.c.writeClaim(ctx, newFormID("desk", "77"), 1, escape("alice"), claimDoc{})
		return err
	})
	if err := a.Err(); err == nil || !strings.Contains(err.Error(), "Permissions Violation") {
		t.Errorf("the server's reason: %v, want a permissions violation", err)
	}
}

// The doc's server configuration is one nats-server takes.
func TestDocsServer(t *testing.T) {
	certs := natstest.MakeTLS(t)
	accounts, _ := docAccounts(t)
	dir := t.TempDir()
	conf := docBlock(t, "inbox-a.conf")
	for from, to := range map[string]string{
		"/etc/nats/inbox-a.pem": certs.Cert, "/etc/nats/inbox-a-key.pem": certs.Key, "/etc/nats/ca.pem": certs.CA,
		"/var/lib/nats": filepath.Join(dir, "store"),
	} {
		conf = strings.ReplaceAll(conf, from, to)
	}
	if err := os.WriteFile(filepath.Join(dir, "inbox-accounts.conf"), []byte(accounts), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "inbox-a.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("docs/inbox.md's server configuration: %v", err)
	}
	if opts.ServerName != "inbox-a" || !opts.JetStream || opts.Cluster.Name != "claudewrap" || len(opts.Routes) != 2 ||
		opts.TLSConfig == nil || opts.Cluster.TLSConfig == nil || len(opts.Accounts) == 0 {
		t.Errorf("docs/inbox.md's server configuration reads as %+v", opts)
	}
}
