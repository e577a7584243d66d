//go:build bench

package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/events"
	"github.com/claudewrap/claudewrap/hook"
	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
	"github.com/claudewrap/claudewrap/ptyhost"
	"github.com/claudewrap/claudewrap/rules"
	"github.com/claudewrap/claudewrap/screen"
	"github.com/claudewrap/claudewrap/session"
)

// form is one form answered in the latency measurement: what is asked, the
// rules claudewrap answers it with, the oracle's precomputed keys, and what
// Claude must record.
type form struct {
	scenario, prompt, id string
	question             string // the first question's text, for the gated oracle
	questions            int
	rules                string
	keys                 string
	// numbers is keys as a blind tool would press the options' numbers:
	// a number commits a single-select option and ticks a multi-select
	// one (see askflow's numberKey).
	numbers string
	want    string
}

const (
	down  = "\x1b[B"
	enter = "\r"
	tab   = "\t"
)

var forms = []form{
	{
		scenario: "database.yaml", prompt: "pick a database", id: "toolu_01database", questions: 1,
		question: "Which database should we use?",
		rules:    "  - {when: {header: '^Database$'}, answer: {select: MongoDB}}\n",
		keys:     down + down + enter, // the 3rd option
		numbers:  "3",
		want:     `"Which database should we use?"="MongoDB"`,
	},
	{
		scenario: "three.yaml", prompt: "plan the project", id: "toolu_01three", questions: 3,
		question: "Which database should we use?",
		rules: "  - {when: {header: '^Database$'}, answer: {select: MongoDB}}\n" +
			"  - {when: {header: '^Features$'}, answer: {select: [Auth, API]}}\n" +
			"  - {when: {header: '^Naming$'}, answer: {select: snake_case}}\n",
		keys: down + down + enter + // Database: MongoDB, on to Features
			enter + down + down + down + enter + down + down + enter + // tick Auth, tick API, Next
			down + enter + // Naming: snake_case, on to the review page
			enter, // Submit answers
		numbers: "3" + // Database: MongoDB, on to Features
			"1" + "4" + tab + // tick Auth, tick API, on to Naming
			"2" + // Naming: snake_case, on to the review page
			enter, // Submit answers
		want: `"Which database should we use?"="MongoDB", "Which features should we build?"="Auth, API", "How should we name things?"="snake_case"`,
	},
}

// runLimit bounds one Claude Code run; answerLimit bounds the time from
// PreToolUse to PostToolUse before a run counts as not answered.
const (
	runLimit    = 90 * time.Second
	answerLimit = 10 * time.Second
)

// sandbox is an isolated Claude Code run against a quiet fake API.
type sandbox struct {
	claude, home, dir string
	api               *fakeapi.Server
	hookLog           string
}

func newSandbox(t *testing.T, version, scenario string) *sandbox {
	t.Helper()
	sc, err := fakeapi.Load(filepath.Join(claudetest.Root(t), "testdata", "scenarios", scenario))
	if err != nil {
		t.Fatal(err)
	}
	api, err := fakeapi.Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	base := t.TempDir()
	s := &sandbox{claude: claudetest.Binary(t, version), home: filepath.Join(base, "home"), dir: filepath.Join(base, "project"),
		api: api, hookLog: filepath.Join(base, "hooks.jsonl")}
	for _, d := range []string{s.home, s.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := claudetest.Seed(s.home, s.dir); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *sandbox) env() []string {
	return append(claudetest.Env(s.home, s.api.URL()), "BENCH_HOOK_LOG="+s.hookLog)
}

// hookTimes reads when the hook shim ran PreToolUse and PostToolUse for id.
func (s *sandbox) hookTimes(id string) (pre, post time.Time) {
	f, err := os.Open(s.hookLog)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			T     int64  `json:"t"`
			Event string `json:"event"`
			ID    string `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.ID != id {
			continue
		}
		switch l.Event {
		case hook.PreToolUse:
			pre = time.Unix(0, l.T)
		case hook.PostToolUse:
			post = time.Unix(0, l.T)
		}
	}
	return pre, post
}

// outcome is one run.
type outcome struct {
	latency time.Duration // PreToolUse→PostToolUse; 0 without a PostToolUse
	wrong   bool
	why     string
	phases  map[string]time.Duration
	keys    int // keys claudewrap sent
}

// judge reads the hook times and the recorded tool_result.
func (s *sandbox) judge(f form) outcome {
	var o outcome
	pre, post := s.hookTimes(f.id)
	if !pre.IsZero() && !post.IsZero() {
		o.latency = post.Sub(pre)
	}
	var got *fakeapi.ToolResult
	for _, r := range s.api.ToolResults() {
		if r.ToolUseID == f.id {
			got = &r
		}
	}
	switch {
	case pre.IsZero():
		o.wrong, o.why = true, "no PreToolUse"
	case got == nil:
		o.wrong, o.why = true, "no tool_result recorded"
	case got.IsError || !strings.Contains(got.Content, f.want):
		o.wrong, o.why = true, fmt.Sprintf("recorded %q", got.Content)
	}
	return o
}

// lockedBuffer is an event log the test can read while the session writes.
type lockedBuffer struct{ testkit.SyncBuffer }

// eventTimes returns the first time of each event name, and every name.
func (l *lockedBuffer) eventTimes() (first map[string]time.Time, names []string) {
	first = map[string]time.Time{}
	for _, line := range strings.Split(l.String(), "\n") {
		var e struct {
			TS    time.Time `json:"ts"`
			Event string    `json:"event"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		names = append(names, e.Event)
		if _, ok := first[e.Event]; !ok {
			first[e.Event] = e.TS
		}
	}
	return first, names
}

// sentKeys wraps askflow's key sender to note when each key was sent.
type sentKeys struct {
	inner askflow.Keys
	mu    sync.Mutex
	times []time.Time
}

func (k *sentKeys) SendKeys(p []byte) error {
	k.mu.Lock()
	k.times = append(k.times, time.Now())
	k.mu.Unlock()
	return k.inner.SendKeys(p)
}

// frameTimes notes when each chunk of Claude's output reached the
// emulated screen (a Tap sees a chunk just after the emulator took it).
type frameTimes struct {
	mu    sync.Mutex
	times []time.Time
}

func (f *frameTimes) Output([]byte) {
	f.mu.Lock()
	f.times = append(f.times, time.Now())
	f.mu.Unlock()
}
func (f *frameTimes) Input([]byte)    {}
func (f *frameTimes) Resize(_, _ int) {}

// wrapOnce answers f with claudewrap's session in this process, hooks
// through the timestamping shim.
func wrapOnce(t *testing.T, version string, f form, via string) outcome {
	s := newSandbox(t, version, f.scenario)
	rf := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(rf, []byte("version: 1\nrules:\n"+f.rules), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := rules.Load(rf)
	if err != nil {
		t.Fatal(err)
	}
	log := &lockedBuffer{}
	keys := &sentKeys{}
	frames := &frameTimes{}
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	var rep session.Report
	done := make(chan struct{})
	go func() {
		defer close(done)
		rep, err = session.Run(ctx, session.Config{
			Host: ptyhost.Config{Path: s.claude, Args: []string{f.prompt}, Env: s.env(), Dir: s.dir,
				Headless: true, Cols: 100, Rows: 40, Tap: frames},
			Exe:           benchchild(t),
			AnswerVia:     via,
			Decider:       set,
			Policy:        rules.Fail,
			Log:           events.New(log),
			ExitAfterTurn: true,
			WrapKeys:      func(k askflow.Keys) askflow.Keys { keys.inner = k; return keys },
		})
	}()
	select {
	case <-done:
	case <-time.After(runLimit + 30*time.Second):
		t.Fatalf("session did not end")
	}
	o := s.judge(f)
	first, names := log.eventTimes()
	if err != nil || rep.Mismatch || rep.Navigation || rep.Unmatched || first["verified"].IsZero() {
		if !o.wrong {
			o.wrong, o.why = true, fmt.Sprintf("report %+v err %v", rep, err)
		}
		o.why += fmt.Sprintf("; events %v", names)
	}
	pre, post := s.hookTimes(f.id)
	keys.mu.Lock()
	defer keys.mu.Unlock()
	if !pre.IsZero() && !post.IsZero() && len(keys.times) > 0 {
		firstKey, lastKey := keys.times[0], keys.times[len(keys.times)-1]
		o.phases = map[string]time.Duration{
			phaseHook:     first["question"].Sub(pre),
			phaseForm:     firstKey.Sub(first["question"]),
			phaseKeys:     lastKey.Sub(firstKey),
			phaseLastPost: post.Sub(lastKey),
		}
		o.keys = len(keys.times)
		frames.mu.Lock()
		claude, wrap := keySplit(keys.times, frames.times)
		frames.mu.Unlock()
		o.phases[phaseKeyClaude], o.phases[phaseKeyWrap] = claude, wrap
	}
	return o
}

// Phases of an answer, for the notes.
const (
	phaseHook     = "hook shim → claudewrap's question event"
	phaseForm     = "question → first key sent"
	phaseKeys     = "first → last key sent"
	phaseLastPost = "last key sent → PostToolUse hook"
	// The first → last key phase, divided (see keySplit).
	phaseKeyClaude = "of which Claude drawing each key's effect"
	phaseKeyWrap   = "of which claudewrap from that frame to the next key"
	phaseSent      = "hook shim → keys written"
	phaseSentPost  = "keys written → PostToolUse hook"
)

var phaseOrder = []string{phaseHook, phaseForm, phaseKeys, phaseKeyClaude, phaseKeyWrap, phaseLastPost, phaseSent, phaseSentPost}

// oracleOnce runs Claude Code with the same hooks and writes f's whole key
// sequence in one write, looking at nothing after that: the moment
// PreToolUse arrives, or with gated as soon as the emulated screen shows
// the form's first question and its footer.
func oracleOnce(t *testing.T, version string, f form, gated bool) outcome {
	return writeOnce(t, version, f, f.keys, gated)
}

// writeOnce is oracleOnce writing keys.
func writeOnce(t *testing.T, version string, f form, keys string, gated bool) outcome {
	s := newSandbox(t, version, f.scenario)
	srv, err := hook.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	h, err := ptyhost.Start(ptyhost.Config{Path: s.claude,
		Args: []string{"--settings", hook.Settings(benchchild(t), srv.Path()), f.prompt},
		Env:  s.env(), Dir: s.dir, Headless: true, Cols: 100, Rows: 40, Screen: screen.NewFunc("")})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.NewTimer(runLimit)
	defer deadline.Stop()
	sentc := make(chan time.Time, 1)
	var sent time.Time
	asked := false
	ending := false
	end := func() {
		if !ending {
			ending = true
			h.Signal(syscall.SIGTERM)
			deadline.Reset(10 * time.Second)
		}
	}
	send := func() {
		h.SendKeys([]byte(keys))
		sentc <- time.Now()
	}
loop:
	for {
		select {
		case m, ok := <-srv.Messages():
			if !ok || m.Payload == nil {
				continue
			}
			switch p := m.Payload; p.HookEventName {
			case hook.PreToolUse:
				if p.ToolUseID != f.id || asked {
					continue
				}
				asked = true
				if !ending {
					deadline.Reset(answerLimit)
				}
				if !gated {
					send()
					continue
				}
				go func() {
					// Polling the screen, not waiting for it to settle: the
					// oracle writes the moment the form is drawn.
					tick := time.NewTicker(time.Millisecond)
					defer tick.Stop()
					stop := time.After(answerLimit)
					for {
						text := h.Screen().Snapshot().Text()
						if strings.Contains(text, f.question) && strings.Contains(text, "Enter to select") {
							send()
							return
						}
						select {
						case <-tick.C:
						case <-stop:
							return
						case <-h.Done():
							return
						}
					}
				}()
			case hook.PostToolUse:
				if !ending {
					deadline.Reset(runLimit)
				}
			case hook.Stop:
				end()
			}
		case sent = <-sentc:
		case <-h.Done():
			break loop
		case <-deadline.C:
			if ending {
				h.Signal(syscall.SIGKILL)
				<-h.Done()
				break loop
			}
			end()
		}
	}
	h.Wait()
	select {
	case sent = <-sentc:
	default:
	}
	o := s.judge(f)
	if pre, post := s.hookTimes(f.id); !pre.IsZero() && !post.IsZero() && !sent.IsZero() {
		o.phases = map[string]time.Duration{
			phaseSent:     sent.Sub(pre),
			phaseSentPost: post.Sub(sent),
		}
	}
	return o
}

// measureAnswers runs claudewrap and the three oracles in turn, runs times
// per form and version, and notes where the time goes.
func measureAnswers(t *testing.T, versions []string, runs int, notes *[]string) []Answer {
	var out []Answer
	for _, v := range versions {
		for _, f := range forms {
			a := Answer{Version: v, Scenario: f.scenario, Questions: f.questions}
			sides := []struct {
				name string
				side *Side
				run  func(t *testing.T) outcome
			}{
				{"claudewrap", &a.Wrap, func(t *testing.T) outcome { return wrapOnce(t, v, f, session.AnswerViaScreen) }},
				{"claudewrap-hook", &a.Hook, func(t *testing.T) outcome { return wrapOnce(t, v, f, session.AnswerViaHook) }},
				{"oracle-at-hook", &a.Oracle, func(t *testing.T) outcome { return oracleOnce(t, v, f, false) }},
				{"oracle-at-form", &a.Gated, func(t *testing.T) outcome { return oracleOnce(t, v, f, true) }},
				{"oracle-numbers-at-form", &a.Numbers, func(t *testing.T) outcome { return writeOnce(t, v, f, f.numbers, true) }},
			}
			lat := make([][]time.Duration, len(sides)) // right answers
			all := make([][]time.Duration, len(sides)) // all answers
			phases := make([]map[string][]time.Duration, len(sides))
			for i := range runs {
				for j, sd := range sides {
					t.Run(fmt.Sprintf("%s/%s/%s/%d", v, strings.TrimSuffix(f.scenario, ".yaml"), sd.name, i+1), func(t *testing.T) {
						o := sd.run(t)
						sd.side.Runs++
						if o.wrong {
							sd.side.Wrong++
						}
						if o.latency > 0 {
							all[j] = append(all[j], o.latency)
							if !o.wrong {
								lat[j] = append(lat[j], o.latency)
							}
						}
						if phases[j] == nil {
							phases[j] = map[string][]time.Duration{}
						}
						for k, d := range o.phases {
							phases[j][k] = append(phases[j][k], d)
						}
						status := "right"
						if o.wrong {
							status = "WRONG: " + o.why
						}
						t.Logf("%s: PreToolUse→PostToolUse %s, %s", sd.name, o.latency.Round(time.Millisecond), status)
					})
				}
			}
			var parts []string
			for j, sd := range sides {
				sd.side.Answered, sd.side.Median, sd.side.Any = len(all[j]), Median(lat[j]), Median(all[j])
				if sd.side == &a.Hook {
					parts = append(parts, sd.name+": the answers returned by the PreToolUse hook, no key pressed")
					continue
				}
				parts = append(parts, sd.name+": "+phaseText(phases[j]))
			}
			out = append(out, a)
			*notes = append(*notes, fmt.Sprintf("Where the time goes, %s on Claude Code %s (medians of the answered runs): %s.",
				f.scenario, v, strings.Join(parts, "; ")))
		}
	}
	return out
}

func phaseText(m map[string][]time.Duration) string {
	var parts []string
	for _, k := range phaseOrder {
		if ds, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", k, ms(Median(ds))))
		}
	}
	if len(parts) == 0 {
		return "no answered run"
	}
	return strings.Join(parts, ", ")
}
