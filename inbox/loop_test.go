package inbox

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// entry is a key-value entry as a watch delivers it.
type entry struct {
	key string
	rev uint64
	op  jetstream.KeyValueOp
	val []byte
}

func (e entry) Bucket() string                  { return ClaimsBucket }
func (e entry) Key() string                     { return e.key }
func (e entry) Value() []byte                   { return e.val }
func (e entry) Revision() uint64                { return e.rev }
func (e entry) Created() time.Time              { return time.Time{} }
func (e entry) Delta() uint64                   { return 0 }
func (e entry) Operation() jetstream.KeyValueOp { return e.op }

// The loop's decisions on the claims it sees, one by one.
func TestClaimSeen(t *testing.T) {
	p := &Publisher{id: Identity{Machine: "laptop", Session: "1"}}
	l := &runLoop{p: p, forms: map[string]*pform{}, byID: map[FormID]*pform{}, closed: map[FormID]*closedForm{},
		verdicts: map[string]*pendingVerdict{}, seen: map[string]bool{}}
	f := &pform{id: newFormID("laptop", "1"), tool: "toolu_1", round: 1}
	l.forms[f.tool], l.byID[f.id] = f, f
	claim := func(rev uint64, round int, who string, op jetstream.KeyValueOp) {
		l.claimSeen(entry{key: claimKey(f.id, round, escape(who)), rev: rev, op: op, val: []byte(`{"v":1,"from":"x","nonce":"n"}`)})
	}

	// A claim deleted before the run saw it (the run was away): the round
	// it blocked is passed.
	claim(5, 1, "alice", jetstream.KeyValuePurge)
	if f.round != 2 || f.claim != nil {
		t.Fatalf("after a removed claim: round %d, claim %+v; want round 2, no claim", f.round, f.claim)
	}
	// The first claim of the round takes it; a second, written without the
	// condition, is told who took it.
	claim(6, 2, "alice", jetstream.KeyValuePut)
	claim(7, 2, "bob", jetstream.KeyValuePut)
	if f.claim == nil || f.claim.who != "alice" || f.claim.rev != 6 {
		t.Fatalf("claim %+v, want alice's", f.claim)
	}
	if v := l.verdicts[claimKey(f.id, 2, "bob")]; v == nil || v.v.Outcome.Result != "taken" || !v.create {
		t.Fatalf("bob's verdict %+v, want taken", v)
	}
	// Seen again (a watch made anew after a reconnection): nothing
	// changes.
	claim(6, 2, "alice", jetstream.KeyValuePut)
	if f.claim.rev != 6 || f.round != 2 {
		t.Fatalf("after alice's claim seen again: %+v, round %d", f.claim, f.round)
	}
	// Deleted once the run accepted it: it stands.
	f.claim.accepted = true
	claim(8, 2, "alice", jetstream.KeyValueDelete)
	if f.claim == nil || f.round != 2 {
		t.Fatalf("an accepted claim deleted: %+v, round %d; want it to stand", f.claim, f.round)
	}
	// A claim for an earlier round, and one for a form withdrawn.
	claim(9, 1, "carol", jetstream.KeyValuePut)
	if v := l.verdicts[claimKey(f.id, 1, "carol")]; v == nil || v.v.Outcome.Result != "refused" {
		t.Fatalf("a claim for an earlier round: %+v", v)
	}
	l.handle(withdrawReq{"toolu_1", "answered at Claude's screen"})
	claim(10, 3, "dave", jetstream.KeyValuePut)
	if v := l.verdicts[claimKey(f.id, 3, "dave")]; v == nil || v.v.Outcome.Message != "the form moved on: answered at Claude's screen" {
		t.Fatalf("a claim for a withdrawn form: %+v", v)
	}
	if len(l.deliver) != 0 {
		t.Fatalf("delivered %+v; a claim is delivered only once accepted", l.deliver)
	}
}

// A local answer that gave up waiting for the inbox goes on: an answer
// from elsewhere that took the form meanwhile is refused, never delivered.
func TestLocalGaveUp(t *testing.T) {
	p := &Publisher{id: Identity{Machine: "laptop", Session: "1"}}
	l := &runLoop{p: p, forms: map[string]*pform{}, byID: map[FormID]*pform{}, closed: map[FormID]*closedForm{},
		verdicts: map[string]*pendingVerdict{}, seen: map[string]bool{}}
	f := &pform{id: newFormID("laptop", "1"), tool: "toolu_1", round: 1, localBusy: true}
	l.forms[f.tool], l.byID[f.id] = f, f
	key := claimKey(f.id, 1, escape("alice"))
	l.claimSeen(entry{key: key, rev: 3, op: jetstream.KeyValuePut, val: []byte(`{"v":1,"nonce":"n"}`)})
	f.claim.accepting = true
	l.handle(localGaveUp{"toolu_1"})
	l.handle(acceptDone{key: key, rev: 4, state: accepted})
	if len(l.deliver) != 0 {
		t.Fatalf("delivered %+v after the local answer went on", l.deliver)
	}
	if v := l.verdicts[key]; v == nil || v.v.Outcome.Result != "refused" || v.create {
		t.Fatalf("alice's verdict: %+v; want refused", v)
	}
}
