package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/remote"
)

// The inbox is three JetStream key-value buckets. Each value is JSON with
// its version in "v"; text from a form is stored as it is, and escaped by
// whoever prints it.
const (
	// FormsBucket holds the forms that wait, under their [FormID]: a
	// [Form], written only by its run.
	FormsBucket = "claudewrap-forms"
	// ClaimsBucket holds the answers, one key a claim: FORM.ROUND.WHO.
	// The first claim of a round takes the form; it is written with the
	// expectation that no key FORM.ROUND.* exists, which the server checks
	// atomically, so any other is refused at once.
	ClaimsBucket = "claudewrap-claims"
	// OutcomesBucket holds what came of each claim, under the claim's key:
	// accepted by the run, then done with its outcome; or withdrawn by an
	// answerer who gave up before the run accepted it.
	OutcomesBucket = "claudewrap-outcomes"
)

// wireVersion is the version of every value this package writes; a value
// of another version is passed over.
const wireVersion = 1

// maxValue bounds a value in any bucket.
const maxValue = 1 << 20

// Form states.
const (
	Open      = "open"      // waits for an answer
	Answering = "answering" // a claim took it; the run is applying the answer
	Closed    = "closed"    // answered, cancelled or moved on; Reason says which
)

// Form is a form waiting for a person in a run somewhere, as the inbox
// holds it: what `claudewrap pending --json` shows, and where it waits.
type Form struct {
	V  int    `json:"v"`
	ID FormID `json:"id"`
	remote.Form
	// Machine is the machine the form waits on: its id's, which the server
	// let only that machine's runner write (see docs/inbox.md).
	Machine string `json:"machine"`
	// User is the user the run is of, on its machine.
	User string `json:"user"`
	// ClaudeVersion is the version of Claude Code that asks.
	ClaudeVersion string `json:"claude_version,omitempty"`
	// Round counts the times the form has waited for an answer: an answer
	// the run refused (one the form cannot take) opens the next round.
	Round int `json:"round"`
	// State is Open, Answering or Closed.
	State string `json:"state"`
	// By is who holds the form's claim while it is being answered.
	By string `json:"by,omitempty"`
	// Reason is why the form closed.
	Reason  string    `json:"reason,omitempty"`
	Updated time.Time `json:"updated"`
}

// claimDoc is a claim's value: the answer, and how its sender names
// itself.
type claimDoc struct {
	V int `json:"v"`
	// From is how the sender names itself (as remote.FromAnswer does): it
	// decides nothing; the key's last token is who the server let write it.
	From    string               `json:"from,omitempty"`
	Nonce   string               `json:"nonce"`
	Answers []answer.Decision    `json:"answers,omitempty"`
	Elicit  *remote.ElicitAnswer `json:"elicit,omitempty"`
}

// Verdict states.
const (
	accepted  = "accepted"
	done      = "done"
	withdrawn = "withdrawn"
)

// verdict is an outcome's value.
type verdict struct {
	V       int             `json:"v"`
	State   string          `json:"state"`
	Outcome *remote.Outcome `json:"outcome,omitempty"`
}

// buckets are the three buckets, bound.
type buckets struct {
	forms, claims, outcomes jetstream.KeyValue
}

// ErrNoBuckets is why the answering side finds no form at all: no run has
// published to the inbox yet, and only a run makes its buckets.
var ErrNoBuckets = errors.New("no run has published to the inbox yet (its buckets are missing)")

// existing binds the inbox's buckets as they are, for the answering side,
// which makes none: ErrNoBuckets when one is missing.
func (c *Conn) existing(ctx context.Context) (*buckets, error) {
	c.mu.Lock()
	b := c.b
	c.mu.Unlock()
	if b != nil {
		return b, nil
	}
	b = &buckets{}
	for _, kb := range []struct {
		name string
		kv   *jetstream.KeyValue
	}{{FormsBucket, &b.forms}, {ClaimsBucket, &b.claims}, {OutcomesBucket, &b.outcomes}} {
		kv, err := c.js.KeyValue(ctx, kb.name)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			return nil, ErrNoBuckets
		}
		if err != nil {
			return nil, fmt.Errorf("inbox bucket %s: %w", kb.name, c.reason(err))
		}
		*kb.kv = kv
	}
	c.mu.Lock()
	c.b = b
	c.mu.Unlock()
	return b, nil
}

// buckets binds the inbox's buckets, creating those missing with this
// side's replicas (see Config.Replicas), once.
func (c *Conn) buckets(ctx context.Context) (*buckets, error) {
	c.mu.Lock()
	b := c.b
	c.mu.Unlock()
	if b != nil {
		return b, nil
	}
	b = &buckets{}
	var err error
	if b.forms, err = c.bucket(ctx, jetstream.KeyValueConfig{Bucket: FormsBucket,
		Description: "claudewrap: forms waiting for a person", LimitMarkerTTL: time.Minute}); err != nil {
		return nil, err
	}
	if b.claims, err = c.bucket(ctx, jetstream.KeyValueConfig{Bucket: ClaimsBucket,
		Description: "claudewrap: answers claiming forms", TTL: 24 * time.Hour}); err != nil {
		return nil, err
	}
	if b.outcomes, err = c.bucket(ctx, jetstream.KeyValueConfig{Bucket: OutcomesBucket,
		Description: "claudewrap: what came of each answer", TTL: 24 * time.Hour}); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.b = b
	c.mu.Unlock()
	return b, nil
}

func (c *Conn) bucket(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := c.js.KeyValue(ctx, cfg.Bucket)
	if err == nil {
		return kv, nil
	}
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("inbox bucket %s: %w", cfg.Bucket, c.reason(err))
	}
	cfg.History = 1
	cfg.Storage = jetstream.FileStorage
	cfg.MaxValueSize = maxValue
	cfg.Replicas = c.cfg.Replicas
	if cfg.Replicas == 0 {
		cfg.Replicas = 3
	}
	kv, err = c.js.CreateKeyValue(ctx, cfg)
	var apiErr *jetstream.APIError
	if err != nil && c.cfg.Replicas == 0 && errors.As(err, &apiErr) &&
		(apiErr.ErrorCode == errReplicasNotSupported || apiErr.ErrorCode == errInsufficientResources || apiErr.ErrorCode == errNoPeers) {
		// One server, or too few in the cluster, for three copies.
		cfg.Replicas = 1
		kv, err = c.js.CreateKeyValue(ctx, cfg)
	}
	if err != nil {
		// Another side may have created it meanwhile.
		if kv, berr := c.js.KeyValue(ctx, cfg.Bucket); berr == nil {
			return kv, nil
		}
		return nil, fmt.Errorf("inbox bucket %s is missing and could not be created: %w", cfg.Bucket, c.reason(err))
	}
	return kv, nil
}

// The server's codes for a stream of more replicas than it can keep.
const (
	errNoPeers               jetstream.ErrorCode = 10005
	errInsufficientResources jetstream.ErrorCode = 10023
	errReplicasNotSupported  jetstream.ErrorCode = 10074
)

// reason is err, or the server's reason for refusing the last operation
// when err is only that no reply came (the server drops a message its
// sender may not publish, and says why apart).
func (c *Conn) reason(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrTimeout) {
		c.mu.Lock()
		a := c.asyncErr
		c.mu.Unlock()
		if a != nil {
			return fmt.Errorf("%w (the server said: %v)", err, a)
		}
	}
	return err
}

// decode reads a value of this package's, refusing one too long or of
// another version.
func decode(b []byte, v any) error {
	if len(b) > maxValue {
		return errors.New("value too long")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	var ver struct {
		V int `json:"v"`
	}
	_ = json.Unmarshal(b, &ver)
	if ver.V != wireVersion {
		return fmt.Errorf("value of version %d; this claudewrap reads %d", ver.V, wireVersion)
	}
	return nil
}
