package inbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
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
func (c *Conn) ownClaim(ctx context.Context, key string, doc claimDoc) (uint64, bool, error) {
	m, err := c.leaderGet(ctx, "KV_"+ClaimsBucket, claimsSubject(key), true)
	if errors.Is(err, errNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var got claimDoc
	if decode(m.data, &got) != nil || got.Nonce != doc.Nonce {
		return 0, false, nil
	}
	return m.seq, true, nil
}

// winner is the claim that took a round.
type winner struct {
	rev  uint64
	key  string
	who  string // the name of its key's last token, or localName
	from string
}

// firstClaim finds the first claim of form id in round: the one that took
// it (the server refuses any other written with the expectation; one
// written without it comes later, and is refused by the run).
func (c *Conn) firstClaim(ctx context.Context, id FormID, round int) (winner, error) {
	m, err := c.leaderGet(ctx, "KV_"+ClaimsBucket, roundSubject(id, round), false)
	switch {
	case errors.Is(err, errNotFound):
		// A replicated stream refuses a claim while another of the round
		// is on its way to being stored: wait for that one.
		return c.comingClaim(ctx, id, round)
	case err != nil:
		return winner{}, fmt.Errorf("who took form %s: %w", id, err)
	}
	return claimWinner(id, strings.TrimPrefix(m.subject, claimsSubject("")), m.seq, m.data)
}

// comingClaim watches for the first claim of form id in round, within
// opTimeout.
func (c *Conn) comingClaim(ctx context.Context, id FormID, round int) (winner, error) {
	b, err := c.buckets(ctx)
	if err != nil {
		return winner{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	w, err := b.claims.Watch(ctx, string(id)+"."+strconv.Itoa(round)+".*", jetstream.IncludeHistory())
	if err != nil {
		return winner{}, fmt.Errorf("who took form %s: %w", id, c.reason(err))
	}
	defer w.Stop()
	var first jetstream.KeyValueEntry
	for {
		select {
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				return winner{}, fmt.Errorf("who took form %s: the watch ended", id)
			case e != nil && (first == nil || e.Revision() < first.Revision()):
				first = e
			case e == nil && first != nil:
				// Every claim stored so far is in: the first of them took it.
				return claimWinner(id, first.Key(), first.Revision(), first.Value())
			}
			if first != nil && e != nil && e.Delta() == 0 {
				return claimWinner(id, first.Key(), first.Revision(), first.Value())
			}
		case <-ctx.Done():
			return winner{}, fmt.Errorf("who took form %s: no claim stored: %w", id, ctx.Err())
		}
	}
}

// claimWinner is the claim under key, at revision rev, holding data.
func claimWinner(id FormID, key string, rev uint64, data []byte) (winner, error) {
	_, _, who, ok := parseClaimKey(key)
	if !ok {
		return winner{}, fmt.Errorf("who took form %s: a claim under %q", id, key)
	}
	w := winner{rev: rev, key: key, who: who}
	var doc claimDoc
	if decode(data, &doc) == nil {
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

// storedMsg is a message as the stream's leader returns it.
type storedMsg struct {
	subject string
	seq     uint64
	header  nats.Header
	data    []byte
}

// errNotFound is the stream having no message that matches.
var errNotFound = errors.New("no such message")

// leaderGet reads a message of stream from its leader: the last of
// subject (last), or the first from sequence 1 (!last); subject may hold
// wildcards. A replica may answer a direct get before it has what the
// leader just took, so what decides a race is read from the leader.
func (c *Conn) leaderGet(ctx context.Context, stream, subject string, last bool) (storedMsg, error) {
	req := map[string]any{"last_by_subj": subject}
	if !last {
		req = map[string]any{"seq": 1, "next_by_subj": subject}
	}
	body, _ := json.Marshal(req)
	m, err := c.nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET."+stream, body)
	if err != nil {
		return storedMsg{}, c.reason(err)
	}
	var resp struct {
		Error *struct {
			Code        int    `json:"code"`
			ErrCode     int    `json:"err_code"`
			Description string `json:"description"`
		} `json:"error"`
		Message *struct {
			Subject string `json:"subject"`
			Seq     uint64 `json:"seq"`
			Header  []byte `json:"hdrs"`
			Data    []byte `json:"data"`
		} `json:"message"`
	}
	if err := json.Unmarshal(m.Data, &resp); err != nil {
		return storedMsg{}, fmt.Errorf("%s: %w", stream, err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrCode == int(jetstream.JSErrCodeMessageNotFound):
		return storedMsg{}, errNotFound
	case resp.Error != nil:
		return storedMsg{}, fmt.Errorf("%s: %s (%d)", stream, resp.Error.Description, resp.Error.ErrCode)
	case resp.Message == nil:
		return storedMsg{}, fmt.Errorf("%s: an empty reply", stream)
	}
	out := storedMsg{subject: resp.Message.Subject, seq: resp.Message.Seq, data: resp.Message.Data}
	if len(resp.Message.Header) > 0 {
		if out.header, err = nats.DecodeHeadersMsg(resp.Message.Header); err != nil {
			return storedMsg{}, fmt.Errorf("%s: %w", stream, err)
		}
	}
	return out, nil
}
