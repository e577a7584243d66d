package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/remote"
)

// The answering side: every machine's forms, and answering one of them.

// Forms lists the forms that wait in every run publishing to the inbox
// (open, or being answered), by machine, then oldest first.
func (c *Conn) Forms(ctx context.Context) ([]Form, error) {
	b, err := c.existing(ctx)
	if errors.Is(err, ErrNoBuckets) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	w, err := b.forms.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("inbox forms: %w", c.reason(err))
	}
	defer w.Stop()
	all := map[FormID]Form{}
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return nil, errors.New("inbox forms: the watch ended")
			}
			if e == nil {
				return waiting(all), nil
			}
			take(all, e)
		case <-ctx.Done():
			return nil, fmt.Errorf("inbox forms: %w (%d read)", ctx.Err(), len(all))
		}
	}
}

// WaitForms waits until a form waits in any run, then lists them as
// [Conn.Forms] does; it ends with ctx, saying what it saw.
func (c *Conn) WaitForms(ctx context.Context) ([]Form, error) {
	b, err := c.existing(ctx)
	if errors.Is(err, ErrNoBuckets) {
		// Until a run makes them, looked for again every second.
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for errors.Is(err, ErrNoBuckets) {
			select {
			case <-tick.C:
			case <-ctx.Done():
				return nil, fmt.Errorf("no form waited: %w (%v)", ctx.Err(), ErrNoBuckets)
			}
			b, err = c.existing(ctx)
		}
	}
	if err != nil {
		return nil, err
	}
	w, err := b.forms.WatchAll(ctx)
	if err != nil {
		return nil, fmt.Errorf("inbox forms: %w", c.reason(err))
	}
	defer w.Stop()
	all := map[FormID]Form{}
	initial := true
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return nil, errors.New("inbox forms: the watch ended")
			}
			if e == nil {
				initial = false
			} else {
				take(all, e)
			}
			if forms := waiting(all); !initial && len(forms) > 0 {
				return forms, nil
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("no form waited: %w (%d forms seen, none waiting)", ctx.Err(), len(all))
		}
	}
}

// take keeps entry e of the forms bucket in all: a form as its key names
// it (its machine is its key's), or its removal.
func take(all map[FormID]Form, e jetstream.KeyValueEntry) {
	id, err := ParseFormID(e.Key())
	if err != nil {
		return
	}
	if e.Operation() != jetstream.KeyValuePut {
		delete(all, id)
		return
	}
	var f Form
	if decode(e.Value(), &f) != nil {
		delete(all, id)
		return
	}
	f.ID, f.Machine = id, id.Machine()
	all[id] = f
}

// waiting is the forms of all that wait, by machine, then oldest first.
func waiting(all map[FormID]Form) []Form {
	var out []Form
	for _, f := range all {
		if f.State == Open || f.State == Answering {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Machine != out[j].Machine {
			return out[i].Machine < out[j].Machine
		}
		if !out[i].Since.Equal(out[j].Since) {
			return out[i].Since.Before(out[j].Since)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ErrNoForm is why a form is not found: never there, or gone (answered,
// withdrawn, its run ended) long enough for its reason to be gone too.
var ErrNoForm = errors.New("no such form waits in the inbox (answered, withdrawn, or its run ended)")

// Form is form id as the inbox holds it, closed ones too ([Form.Reason]
// says why).
func (c *Conn) Form(ctx context.Context, id FormID) (Form, error) {
	b, err := c.existing(ctx)
	if errors.Is(err, ErrNoBuckets) {
		return Form{}, fmt.Errorf("form %s: %w", id, ErrNoForm)
	}
	if err != nil {
		return Form{}, err
	}
	return c.form(ctx, b, id)
}

// form reads form id from the bucket's leader, which has whatever the
// run last wrote (a replica may lag behind it).
func (c *Conn) form(ctx context.Context, b *buckets, id FormID) (Form, error) {
	m, err := c.leaderGet(ctx, "KV_"+FormsBucket, "$KV."+FormsBucket+"."+string(id), true)
	if errors.Is(err, errNotFound) || err == nil && (m.header.Get("KV-Operation") != "" || m.header.Get(jetstream.MarkerReasonHeader) != "") {
		return Form{}, fmt.Errorf("form %s: %w", id, ErrNoForm)
	}
	if err != nil {
		return Form{}, fmt.Errorf("form %s: %w", id, err)
	}
	var f Form
	if err := decode(m.data, &f); err != nil {
		return Form{}, fmt.Errorf("form %s: %w", id, err)
	}
	f.ID, f.Machine = id, id.Machine()
	return f, nil
}

// Reply is an answer to a form: one decision per question, or an MCP
// server's form's answer; From is how the sender names itself
// (remote.FromAnswer, remote.FromPage).
type Reply struct {
	Answers []answer.Decision
	Elicit  *remote.ElicitAnswer
	From    string
}

// Result is what came of an answer.
type Result struct {
	// Outcome is the run's, as a local answer's; or "taken" when another
	// answer took the form first, "refused" when the form had moved on or
	// was never there (Message says why), "failed" when the run did not
	// take the answer in time (withdrawn: it is never applied), or did not
	// ask the form again in time after the answer that took it was
	// withdrawn.
	remote.Outcome
	// Rev is the claim's revision, when this answer took the form.
	Rev uint64
	// By is who took the form, when another answer did.
	By string
}

// claimTries bounds how often an answer claims a form that a refused or
// withdrawn answer reopened meanwhile.
const claimTries = 3

// Answer answers form id and waits for what came of it: the run takes the
// answer (exactly one answer takes each round of a form, cluster-wide),
// applies it, checks it as a local answer, and says the outcome. When the
// run has not taken it within wait (0: remote.AnswerWait), or ctx ends
// first, the answer is withdrawn, and is never applied; an error says
// when even that could not be done, or the inbox could not be reached.
func (c *Conn) Answer(ctx context.Context, id FormID, r Reply, wait time.Duration) (Result, error) {
	if c.name == "" {
		return Result{}, errors.New("inbox: no name to answer under: a token or no credential names no user (give a name)")
	}
	if wait <= 0 {
		wait = remote.AnswerWait
	}
	refused := func(msg string) Result { return Result{Outcome: remote.Outcome{Result: "refused", Message: msg}} }
	b, err := c.existing(ctx)
	if errors.Is(err, ErrNoBuckets) {
		return refused(fmt.Sprintf("form %s: %v", id, ErrNoForm)), nil
	}
	if err != nil {
		return Result{}, err
	}
	token := escape(c.name)
	for range claimTries {
		f, err := c.form(ctx, b, id)
		switch {
		case errors.Is(err, ErrNoForm):
			return refused(err.Error()), nil
		case err != nil:
			return Result{}, err
		case f.State == Closed:
			return refused("the form moved on: " + f.Reason), nil
		}
		doc := claimDoc{From: r.From, Nonce: nonce(), Answers: r.Answers, Elicit: r.Elicit}
		key := claimKey(id, f.Round, token)
		rev, err := c.writeClaim(ctx, id, f.Round, token, doc)
		if errors.Is(err, errLost) {
			w, werr := c.firstClaim(ctx, id, f.Round)
			if werr != nil {
				return Result{}, werr
			}
			if g, gerr := c.form(ctx, b, id); gerr == nil && g.Round > f.Round && g.State == Open {
				continue // the answer that took it was refused: the form waits again
			}
			if c.withdrawnClaim(ctx, w.key) {
				// The answer that took the round is never applied: the run
				// opens the next round once it sees it withdrawn.
				moved, err := c.nextRound(ctx, b, id, f.Round, wait)
				if err != nil {
					return Result{}, err
				}
				if moved {
					continue
				}
				return Result{Outcome: remote.Outcome{Result: "failed", Message: fmt.Sprintf(
					"the answer that took the form, by %s, was withdrawn, and its run has not asked the form again within %v: look at it again",
					w.describe(id.Machine()), wait)}}, nil
			}
			return Result{Outcome: remote.Outcome{Result: "taken", Message: "answered first by " + w.describe(id.Machine())}, By: w.who}, nil
		}
		if err != nil {
			// No reply: the claim may have been written all the same.
			own, ok, oerr := c.ownClaim(ctx, key, doc)
			if oerr != nil || !ok {
				return Result{}, fmt.Errorf("the answer did not reach the inbox: %w", err)
			}
			rev = own
		}
		return c.await(ctx, b, key, rev, wait)
	}
	return refused(fmt.Sprintf("the form was reopened %d times while this answer claimed it: look at it again", claimTries)), nil
}

// withdrawnClaim reports whether the sender of the claim under key
// withdrew it, as the outcomes' leader has it; false when that cannot be
// read.
func (c *Conn) withdrawnClaim(ctx context.Context, key string) bool {
	m, err := c.leaderGet(ctx, "KV_"+OutcomesBucket, "$KV."+OutcomesBucket+"."+key, true)
	var v verdict
	return err == nil && decode(m.data, &v) == nil && v.State == withdrawn
}

// nextRound waits, up to wait, until form id has moved past round: asked
// again, closed, or gone. It reports whether it did; an error when the
// form cannot be watched or ctx ends.
func (c *Conn) nextRound(ctx context.Context, b *buckets, id FormID, round int, wait time.Duration) (bool, error) {
	w, err := b.forms.Watch(ctx, string(id))
	if err != nil {
		return false, fmt.Errorf("form %s: %w", id, c.reason(err))
	}
	defer w.Stop()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return false, fmt.Errorf("form %s: the watch ended", id)
			}
			if e == nil {
				continue
			}
			var f Form
			if e.Operation() != jetstream.KeyValuePut || decode(e.Value(), &f) != nil || f.Round > round || f.State == Closed {
				return true, nil
			}
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, fmt.Errorf("form %s: waiting for its next round: %w", id, ctx.Err())
		}
	}
}

// await waits for the outcome of the claim under key: the run accepts it,
// then says what came of it. An answer the run has not accepted within
// wait, or by the end of ctx, is withdrawn.
func (c *Conn) await(ctx context.Context, b *buckets, key string, rev uint64, wait time.Duration) (Result, error) {
	w, err := b.outcomes.Watch(ctx, key)
	if err != nil {
		return Result{}, c.withdraw(b, key, fmt.Errorf("the outcome could not be watched: %w", c.reason(err)))
	}
	defer w.Stop()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	took := false
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return Result{}, errors.New("the outcome's watch ended")
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			var v verdict
			if err := decode(e.Value(), &v); err != nil {
				continue
			}
			switch v.State {
			case accepted:
				took = true
			case done:
				if v.Outcome == nil {
					return Result{}, errors.New("the run said an outcome it did not give")
				}
				return Result{Outcome: *v.Outcome, Rev: rev}, nil
			case withdrawn:
				return Result{Outcome: remote.Outcome{Result: "failed", Message: "the answer was withdrawn"}, Rev: rev}, nil
			}
		case <-timer.C:
			if took {
				continue // being applied: the run says when it is done
			}
			err := c.withdraw(b, key, nil)
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // the run took it just now
			}
			if err != nil {
				return Result{}, err
			}
			return Result{Outcome: remote.Outcome{Result: "failed", Message: fmt.Sprintf(
				"the run did not take the answer within %v (it may have lost the inbox); withdrawn: it will never be applied", wait)}, Rev: rev}, nil
		case <-ctx.Done():
			if took {
				return Result{}, fmt.Errorf("the run took the answer, and said no outcome before the end: %w", ctx.Err())
			}
			if err := c.withdraw(b, key, nil); errors.Is(err, jetstream.ErrKeyExists) {
				return Result{}, fmt.Errorf("the run took the answer just as the wait ended: %w", ctx.Err())
			} else if err != nil {
				return Result{}, err
			}
			return Result{}, fmt.Errorf("no outcome, the answer withdrawn (it will never be applied): %w", ctx.Err())
		}
	}
}

// withdraw marks the claim under key withdrawn, if the run has not taken
// it yet (jetstream.ErrKeyExists when it has); why, when given, is the
// error returned after a withdrawal.
func (c *Conn) withdraw(b *buckets, key string, why error) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	data, _ := json.Marshal(verdict{V: wireVersion, State: withdrawn})
	_, err := b.outcomes.Create(ctx, key, data)
	switch {
	case errors.Is(err, jetstream.ErrKeyExists):
		return err
	case err != nil:
		return fmt.Errorf("the answer could not be withdrawn, and may still be applied: %w", c.reason(err))
	case why != nil:
		return fmt.Errorf("%w; the answer was withdrawn: it will never be applied", why)
	}
	return nil
}
