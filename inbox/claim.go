package inbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"
)

// Writing a claim, and finding the claim that took a round, for both
// sides: the run claims its own forms for a local answer, an answerer
// claims any.

// errLost is why a claim was not written: another claim of the round came
// first.
var errLost = errors.New("another answer took the form first")

func claimsSubject(key string) string { return "$KV." + ClaimsBucket + "." + key }

// roundSubject matches every claim of form id in round.
func roundSubject(id FormID, round int) string {
	return "$KV." + ClaimsBucket + "." + string(id) + "." + strconv.Itoa(round) + ".*"
}

// writeClaim writes doc as the claim of token on form id in round, on the
// condition, which the server checks atomically, that no claim of the
// round exists: errLost when one does. Any other error leaves open
// whether it was written (a reply lost); see ownClaim.
func (c *Conn) writeClaim(ctx context.Context, id FormID, round int, token string, doc claimDoc) (uint64, error) {
	doc.V = wireVersion
	if doc.Nonce == "" {
		doc.Nonce = nonce()
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return 0, err
	}
	ack, err := c.js.Publish(ctx, claimsSubject(claimKey(id, round, token)), data,
		jetstream.WithExpectLastSequenceForSubject(0, roundSubject(id, round)))
	if err != nil {
		if wrongLastSeq(err) {
			return 0, errLost
		}
		return 0, c.reason(err)
	}
	return ack.Sequence, nil
}

// ownClaim reports whether the claim under key is doc (its nonce), and
// its revision: a claim whose write had no reply may have been written.
func (c *Conn) ownClaim(ctx context.Context, b *buckets, key string, doc claimDoc) (uint64, bool, error) {
	e, err := b.claims.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var got claimDoc
	if decode(e.Value(), &got) != nil || got.Nonce != doc.Nonce {
		return 0, false, nil
	}
	return e.Revision(), true, nil
}

// winner is the claim that took a round.
type winner struct {
	rev  uint64
	who  string // the name of its key's last token, or localName
	from string
}

// firstClaim finds the first claim of form id in round: the one that took
// it (the server refuses any other written with the expectation; one
// written without it comes later, and is refused by the run).
func (c *Conn) firstClaim(ctx context.Context, b *buckets, id FormID, round int) (winner, error) {
	m, err := b.claimStream.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(roundSubject(id, round)))
	if err != nil {
		return winner{}, fmt.Errorf("who took form %s: %w", id, c.reason(err))
	}
	key := m.Subject[len(claimsSubject("")):]
	_, _, who, ok := parseClaimKey(key)
	if !ok {
		return winner{}, fmt.Errorf("who took form %s: a claim under %q", id, key)
	}
	w := winner{rev: m.Sequence, who: who}
	var doc claimDoc
	if decode(m.Data, &doc) == nil {
		w.from = doc.From
	}
	return w, nil
}

// wrongLastSeq reports whether err is the server refusing a write whose
// expectation of what came before failed (a standalone stream says 10071,
// a replicated one may say 10164).
func wrongLastSeq(err error) bool {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}

func nonce() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// describe names who took a form, for people: "alice (claudewrap serve
// (page))", or "the person at <machine>" for the run's own claim.
func (w winner) describe(machine string) string {
	if w.who == localName {
		return "an answer on " + machine + " (its terminal or its local socket)"
	}
	if w.from != "" {
		return fmt.Sprintf("%s (%s)", w.who, w.from)
	}
	return w.who
}
