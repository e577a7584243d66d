package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/claudewrap/claudewrap/remote"
)

func TestPublishListWithdraw(t *testing.T) {
	srv := start(t, 1)
	laptop := runOn(t, Config{URL: srv.URL()}, "laptop", "4242")
	desk := runOn(t, Config{URL: srv.URL()}, "desk.example.com", "77")
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})

	a := laptop.Publish(form("toolu_1"))
	d := desk.Publish(form("toolu_2"))
	if a.Machine() != "laptop" || d.Machine() != "desk.example.com" || d.Session() != "77" {
		t.Fatalf("ids %s, %s: want them to name laptop and desk.example.com (session 77)", a, d)
	}
	forms := listed(t, alice, a, d)
	for _, f := range forms {
		want := map[FormID]string{a: "laptop", d: "desk.example.com"}[f.ID]
		if f.Machine != want || f.State != Open || f.Round != 1 || f.User != "dev" || f.ClaudeVersion != "2.1.332" ||
			f.Cwd != "/src/"+want || len(f.Questions) != 1 || f.Questions[0].Question != "Which database?" {
			t.Errorf("listed %+v: want it on %s, open, with its question", f, want)
		}
	}

	// The same form published again is brought up to date, not doubled.
	f2 := form("toolu_1")
	f2.Questions[0].Header = "DB"
	if again := laptop.Publish(f2); again != a {
		t.Fatalf("published again as %s, want %s", again, a)
	}
	eventually(t, wait, "the form brought up to date", func() (string, bool) {
		f, err := alice.Form(context.Background(), a)
		return fmt.Sprintf("%+v %v", f.Questions, err), err == nil && f.Questions[0].Header == "DB"
	})

	laptop.Withdraw("toolu_1", "answered at Claude's screen")
	listed(t, alice, d)
	f, err := alice.Form(context.Background(), a)
	if err != nil || f.State != Closed || f.Reason != "answered at Claude's screen" {
		t.Fatalf("withdrawn form: %+v, %v; want it closed with its reason", f, err)
	}
	r, err := alice.Answer(context.Background(), a, pick("SQLite"), 0)
	if err != nil || r.Result != "refused" || !strings.Contains(r.Message, "moved on: answered at Claude's screen") {
		t.Fatalf("answering a withdrawn form: %+v, %v; want it refused with the reason", r, err)
	}
	noClaim(t, laptop)

	// A run that ends withdraws what it published.
	desk.Close()
	listed(t, alice)
	if f, err := alice.Form(context.Background(), d); err != nil || f.Reason != "the run ended" {
		t.Fatalf("a form of a run that ended: %+v, %v", f, err)
	}
}

// answerAndApply answers form id from c with label while the run applies
// what takes the form and says it verified.
func answerAndApply(t *testing.T, run *Publisher, c *Conn, id FormID, label string) Result {
	t.Helper()
	got := make(chan Claim, 1)
	go func() {
		select {
		case cl := <-run.Claims():
			run.Done(cl, remote.Outcome{Result: "verified", Recorded: map[string]string{"Which database?": cl.Answers[0].Labels[0]}})
			got <- cl
		case <-run.ended:
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r, err := c.Answer(ctx, id, pick(label), 0)
	if err != nil {
		t.Fatalf("answer %s: %v", id, err)
	}
	cl := <-got
	if cl.Form != id || cl.By != c.Name() || cl.Answers[0].Labels[0] != label || cl.From != remote.FromAnswer {
		t.Fatalf("the run got %+v; want %s's answer %q to %s", cl, c.Name(), label, id)
	}
	return r
}

func TestAnswer(t *testing.T) {
	srv := start(t, 1)
	run := runOn(t, Config{URL: srv.URL()}, "laptop", "4242")
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	id := run.Publish(form("toolu_1"))
	listed(t, alice, id)
	r := answerAndApply(t, run, alice, id, "SQLite")
	if r.Result != "verified" || r.Recorded["Which database?"] != "SQLite" || r.Rev == 0 {
		t.Fatalf("result %+v: want verified, SQLite recorded", r)
	}
	f, _ := alice.Form(context.Background(), id)
	if f.State != Answering || f.By != "alice" {
		t.Errorf("the form after its answer: %s by %q, want answering by alice", f.State, f.By)
	}
	noClaim(t, run)

	if r, err := alice.Answer(context.Background(), "laptop.4242.aaaaaaaaaaaaaaaaaaaaaaaaaa", pick("SQLite"), 0); err != nil ||
		r.Result != "refused" || !strings.Contains(r.Message, "no such form") {
		t.Errorf("an unknown form: %+v, %v; want refused", r, err)
	}
	nobody := dial(t, Config{URL: srv.URL()})
	if _, err := nobody.Answer(context.Background(), id, pick("SQLite"), 0); err == nil || !strings.Contains(err.Error(), "no name") {
		t.Errorf("answering with no name: %v, want refused", err)
	}
}

// A refused answer (one the form cannot take) leaves the form waiting, in
// its next round, where another answer takes it.
func TestRefusedReopens(t *testing.T) {
	srv := start(t, 1)
	run := runOn(t, Config{URL: srv.URL()}, "laptop", "4242")
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	bob := dial(t, Config{URL: srv.URL(), Name: "bob"})
	id := run.Publish(form("toolu_1"))
	listed(t, alice, id)

	go func() {
		cl := <-run.Claims()
		run.Done(cl, remote.Outcome{Result: "refused", Message: `label "MySQL" is not offered`})
	}()
	r, err := alice.Answer(context.Background(), id, pick("MySQL"), 0)
	if err != nil || r.Result != "refused" || !strings.Contains(r.Message, "MySQL") {
		t.Fatalf("a refused answer: %+v, %v", r, err)
	}
	eventually(t, wait, "round 2", func() (string, bool) {
		f, err := alice.Form(context.Background(), id)
		return fmt.Sprintf("%+v %v", f, err), err == nil && f.Round == 2 && f.State == Open
	})
	if r := answerAndApply(t, run, bob, id, "SQLite"); r.Result != "verified" {
		t.Fatalf("round 2's answer: %+v", r)
	}
}

// Two answerers race for the same form, fifty times: each time exactly
// one answer is applied, and the other is told who took the form.
func TestAnswerRace(t *testing.T) {
	srv := start(t, 1)
	race(t, srv.URL(), 50)
}

func race(t *testing.T, url string, n int) {
	run := runOn(t, Config{URL: url}, "laptop", "4242")
	answerers := []*Conn{dial(t, Config{URL: url, Name: "alice"}), dial(t, Config{URL: url, Name: "bob"})}
	wins := map[string]int{}
	for i := range n {
		id := run.Publish(form(fmt.Sprintf("toolu_%d", i)))
		listed(t, answerers[0], id)
		results := make([]Result, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for k, c := range answerers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				defer cancel()
				results[k], errs[k] = c.Answer(ctx, id, pick([]string{"PostgreSQL", "SQLite"}[k]), 0)
			}()
		}
		cl := nextClaim(t, run, wait)
		run.Done(cl, remote.Outcome{Result: "verified"})
		wg.Wait()
		for k := range errs {
			if errs[k] != nil {
				t.Fatalf("race %d: %s: %v", i, answerers[k].Name(), errs[k])
			}
		}
		w, l := 0, 1
		if results[1].Result == "verified" {
			w, l = 1, 0
		}
		winner, loser := answerers[w].Name(), results[l]
		if results[w].Result != "verified" || cl.By != winner || loser.Result != "taken" || loser.By != winner ||
			!strings.Contains(loser.Message, "answered first by "+winner) {
			t.Fatalf("race %d: the run applied %s's; results %+v: want one verified, the other told %s took it", i, cl.By, results, winner)
		}
		wins[winner]++
		noClaim(t, run)
		run.Withdraw(cl.ToolUseID, "answered")
	}
	t.Logf("wins: %v", wins)
}

// The run's own answer (its terminal) races answers from elsewhere.
func TestLocalRace(t *testing.T) {
	srv := start(t, 1)
	run := runOn(t, Config{URL: srv.URL()}, "laptop", "4242")
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	outcomes := map[string]int{}
	for i := range 20 {
		tool := fmt.Sprintf("toolu_%d", i)
		id := run.Publish(form(tool))
		listed(t, alice, id)
		var r Result
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			r, err = alice.Answer(ctx, id, pick("SQLite"), 0)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		local := run.ClaimLocal(ctx, tool, "the person at Claude's screen")
		cancel()
		switch {
		case local.Offline:
			t.Fatalf("round %d: won offline (%s) with the inbox up", i, local.Reason)
		case local.Won:
			<-done
			if err != nil || r.Result != "taken" || r.By != localName || !strings.Contains(r.Message, "an answer on laptop") {
				t.Fatalf("round %d: the local answer won; alice got %+v, %v", i, r, err)
			}
			outcomes["local"]++
		default:
			if !strings.Contains(local.By, "alice") {
				t.Fatalf("round %d: lost to %q, want alice", i, local.By)
			}
			cl := nextClaim(t, run, wait)
			run.Done(cl, remote.Outcome{Result: "verified"})
			<-done
			if err != nil || r.Result != "verified" {
				t.Fatalf("round %d: alice won; she got %+v, %v", i, r, err)
			}
			outcomes["alice"]++
		}
		noClaim(t, run)
		run.Withdraw(tool, "answered")
	}
	t.Logf("won: %v", outcomes)

	// An answer from elsewhere that is in first, whether or not the run
	// has seen it yet, takes the form from the local answer.
	for i := range 10 {
		tool := fmt.Sprintf("toolu_first_%d", i)
		id := run.Publish(form(tool))
		listed(t, alice, id)
		if _, err := alice.writeClaim(context.Background(), id, 1, escape("alice"), claimDoc{From: "claudewrap serve (page)", Answers: pick("SQLite").Answers}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		local := run.ClaimLocal(ctx, tool, "the person at Claude's screen")
		cancel()
		if local.Won || local.By != "alice (claudewrap serve (page))" {
			t.Fatalf("the local answer after alice's: %+v; want it lost to alice", local)
		}
		cl := nextClaim(t, run, wait)
		run.Done(cl, remote.Outcome{Result: "verified"})
		run.Withdraw(tool, "answered")
	}
}

// A claim for a form the run does not have (a guessed id, one of another
// run's) is never delivered to it; its sender is told.
func TestForgedClaim(t *testing.T) {
	srv := start(t, 1)
	run := runOn(t, Config{URL: srv.URL()}, "laptop", "4242")
	other := runOn(t, Config{URL: srv.URL()}, "desk", "77")
	mallory := dial(t, Config{URL: srv.URL(), Name: "mallory"})
	ctx := context.Background()
	b, err := mallory.buckets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	theirs := other.Publish(form("toolu_theirs"))
	mine := run.Publish(form("toolu_mine"))
	listed(t, mallory, theirs, mine)

	guessed := FormID(strings.Join(strings.Split(string(mine), ".")[:2], ".") + ".aaaaaaaaaaaaaaaaaaaaaaaaaa")
	for _, id := range []FormID{guessed, theirs} {
		key := claimKey(id, 1, escape("mallory"))
		if _, err := mallory.writeClaim(ctx, id, 1, escape("mallory"), claimDoc{Answers: pick("SQLite").Answers}); err != nil {
			t.Fatalf("writing %s: %v", key, err)
		}
		if id == guessed {
			// The run says no: its verdict is written after it has
			// handled the claim, so nothing was delivered before it.
			eventually(t, wait, "the run's verdict on "+key, func() (string, bool) {
				e, err := b.outcomes.Get(ctx, key)
				if err != nil {
					return err.Error(), false
				}
				var v verdict
				json.Unmarshal(e.Value(), &v)
				return string(e.Value()), v.State == done && v.Outcome.Result == "refused" && strings.Contains(v.Outcome.Message, "no form")
			})
		}
	}
	// desk's run applies the claim on its form (mallory may answer: the
	// inbox's permissions say who may); laptop's never sees it.
	cl := nextClaim(t, other, wait)
	if cl.Form != theirs {
		t.Fatalf("desk's run got %+v", cl)
	}
	other.Done(cl, remote.Outcome{Result: "verified"})
	noClaim(t, run)

	// A claim in the run's own name that it did not make takes nothing:
	// the round it blocked is passed.
	if _, err := mallory.writeClaim(ctx, mine, 1, localName, claimDoc{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, wait, "round 2 after a claim in the run's name", func() (string, bool) {
		f, err := mallory.Form(ctx, mine)
		return fmt.Sprintf("%+v %v", f, err), err == nil && f.Round == 2 && f.State == Open
	})
	noClaim(t, run)
}

// An answer whose sender withdrew it before the run took it is never
// applied: the form waits again, in its next round.
func TestWithdrawnNotApplied(t *testing.T) {
	srv := start(t, 1)
	run := runOn(t, Config{URL: srv.URL()}, "laptop", "4242")
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	ctx := context.Background()
	b, err := alice.buckets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := run.Publish(form("toolu_1"))
	listed(t, alice, id)
	// Withdrawn before the claim is even written: the run, seeing the
	// claim, finds the withdrawal when it would take it.
	claimWithdrawn(t, alice, b, id)
	eventually(t, wait, "round 2", func() (string, bool) {
		f, err := alice.Form(ctx, id)
		return fmt.Sprintf("%+v %v", f, err), err == nil && f.Round == 2 && f.State == Open
	})
	noClaim(t, run)
	if r := answerAndApply(t, run, alice, id, "PostgreSQL"); r.Result != "verified" {
		t.Fatalf("round 2: %+v", r)
	}

	// A run that does not take an answer in time: the answer is withdrawn,
	// and said to have failed.
	dead := dial(t, Config{URL: srv.URL()})
	p := NewPublisher(dead, Identity{Machine: "gone", Session: "1"})
	waitStatus(t, p, true, wait)
	gone := p.Publish(form("toolu_1"))
	listed(t, alice, id, gone)
	dead.Close() // the run's connection is lost; its form stays, for now
	r, err := alice.Answer(ctx, gone, pick("SQLite"), 300e6)
	if err != nil || r.Result != "failed" || !strings.Contains(r.Message, "withdrawn: it will never be applied") {
		t.Fatalf("an answer no run took: %+v, %v", r, err)
	}
	e, err := b.outcomes.Get(ctx, claimKey(gone, 1, escape("alice")))
	if err != nil || !strings.Contains(string(e.Value()), withdrawn) {
		t.Fatalf("its outcome: %v", err)
	}
	p.Close()
}

// claimWithdrawn has c claim form id's first round with an answer it has
// already withdrawn, as a sender whose wait ran out before its claim was
// written leaves it.
func claimWithdrawn(t *testing.T, c *Conn, b *buckets, id FormID) {
	t.Helper()
	if err := c.withdraw(b, claimKey(id, 1, escape(c.Name())), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.writeClaim(context.Background(), id, 1, escape(c.Name()), claimDoc{Answers: pick("SQLite").Answers}); err != nil {
		t.Fatal(err)
	}
}

// An answer that finds its form's round taken by a claim whose sender
// withdrew it is not told "taken": that claim is never applied, so the
// answer claims the round the run opens next, or fails saying the run has
// not opened it.
func TestAnswerAfterWithdrawn(t *testing.T) {
	srv := start(t, 1)
	run := runOn(t, Config{URL: srv.URL()}, "laptop", "4242")
	a := apply(t, run)
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	bob := dial(t, Config{URL: srv.URL(), Name: "bob"})
	ctx := context.Background()
	b, err := alice.buckets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := run.Publish(form("toolu_1"))
	listed(t, alice, id)
	claimWithdrawn(t, alice, b, id)
	if r, err := bob.Answer(ctx, id, pick("PostgreSQL"), wait); err != nil || r.Result != "verified" {
		t.Fatalf("an answer after a withdrawn claim: %+v, %v; want it to take the next round", r, err)
	}
	if a.count(id) != 1 {
		t.Fatalf("applied %d times, want once (bob's)", a.count(id))
	}
	// A claim not withdrawn took the round: taken.
	if r, err := alice.Answer(ctx, id, pick("SQLite"), wait); err != nil || r.Result != "taken" || r.By != "bob" {
		t.Fatalf("an answer after bob's: %+v, %v; want taken by bob", r, err)
	}

	// A run that takes nothing: its round stays taken by the withdrawn
	// claim.
	dead := dial(t, Config{URL: srv.URL()})
	p := NewPublisher(dead, Identity{Machine: "gone", Session: "1"})
	waitStatus(t, p, true, wait)
	gone := p.Publish(form("toolu_1"))
	listed(t, alice, id, gone)
	dead.Close()
	if r, err := alice.Answer(ctx, gone, pick("SQLite"), 300e6); err != nil || r.Result != "failed" {
		t.Fatalf("an answer no run took: %+v, %v", r, err)
	}
	for _, c := range []*Conn{alice, bob} {
		r, err := c.Answer(ctx, gone, pick("PostgreSQL"), 300e6)
		if err != nil || r.Result != "failed" || !strings.Contains(r.Message, "by alice (claudewrap answer), was withdrawn") {
			t.Fatalf("%s's answer to a round taken by a withdrawn claim: %+v, %v; want failed, saying so", c.Name(), r, err)
		}
	}
	p.Close()
}

func TestKeys(t *testing.T) {
	for _, s := range []string{"", "laptop", "desk.example.com", "Ünïcode host", "=run", "a=b", "_-"} {
		e := escape(s)
		if strings.Trim(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=") != "" {
			t.Errorf("escape(%q) = %q: outside a token's alphabet", s, e)
		}
		if e == localName {
			t.Errorf("escape(%q) is the run's own name", s)
		}
		if got, err := unescape(e); err != nil || got != s {
			t.Errorf("unescape(escape(%q)) = %q, %v", s, got, err)
		}
	}
	for _, bad := range []string{"=41", "=4", "a=zz", "", "=3d"} {
		if got, err := unescape(bad); err == nil {
			t.Errorf("unescape(%q) = %q: want refused (not what escape makes)", bad, got)
		}
	}
	id := newFormID("desk.example.com", "77")
	if got, err := ParseFormID(string(id)); err != nil || got != id || id.Machine() != "desk.example.com" || id.Session() != "77" {
		t.Errorf("ParseFormID(%q) = %q, %v", id, got, err)
	}
	key := claimKey(id, 3, escape("alice@example.com"))
	if gid, round, who, ok := parseClaimKey(key); !ok || gid != id || round != 3 || who != "alice@example.com" {
		t.Errorf("parseClaimKey(%q) = %s %d %q %v", key, gid, round, who, ok)
	}
	for _, bad := range []string{string(id) + ".0.alice", string(id) + ".01.alice", string(id) + ".1", "a.b.c.1.alice"} {
		if _, _, _, ok := parseClaimKey(bad); ok {
			t.Errorf("parseClaimKey(%q) took it", bad)
		}
	}
}

// The answering side makes no bucket: before any run published, it lists
// nothing, finds no form, and waits until a run publishes one.
func TestNoRunYet(t *testing.T) {
	srv := start(t, 1)
	alice := dial(t, Config{URL: srv.URL(), Name: "alice"})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if forms, err := alice.Forms(ctx); err != nil || len(forms) != 0 {
		t.Fatalf("forms of an inbox no run used: %+v, %v", forms, err)
	}
	id := newFormID("laptop", "1")
	if _, err := alice.Form(ctx, id); !errors.Is(err, ErrNoForm) {
		t.Errorf("a form of an inbox no run used: %v", err)
	}
	if r, err := alice.Answer(ctx, id, pick("SQLite"), 0); err != nil || r.Result != "refused" {
		t.Errorf("an answer to it: %+v, %v", r, err)
	}
	if _, err := alice.js.KeyValue(ctx, FormsBucket); err == nil {
		t.Fatal("the answering side made the forms bucket")
	}
	got := make(chan []Form, 1)
	go func() {
		forms, err := alice.WaitForms(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- forms
	}()
	run := runOn(t, Config{URL: srv.URL()}, "laptop", "1")
	id = run.Publish(form("toolu_1"))
	if forms := <-got; len(forms) != 1 || forms[0].ID != id {
		t.Fatalf("waited for %+v, want %s", forms, id)
	}
}
