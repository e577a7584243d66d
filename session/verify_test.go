package session

import (
	"testing"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/hook"
)

// TestDiffersLoose: a label picked on the screen is verified by a record
// that differs from one of its recordings only in what answer.Loose leaves
// out (2.1.266 and later record a soft hyphen as U+FFFD:
// testdata/scenarios/scripts.yaml); a visible character apart is still a
// mismatch, and so is anything but the string the hook gave.
func TestDiffersLoose(t *testing.T) {
	q := answer.Question{Question: "Which ones?", MultiSelect: true, Options: []answer.Option{
		{Label: "한국어"}, {Label: "zero\u200bwidth"}, {Label: "soft\u00adhyphen"}}}
	d := answer.Decision{Action: answer.Select, Labels: []string{"soft\u00adhyphen", "한국어"}}
	screen := map[string]expect{q.Question: {answers: d.Recordings(q), intended: d.Recorded(), loose: true}}
	hooked := map[string]expect{q.Question: givenAs(screen[q.Question], d.Recorded())}
	for _, tt := range []struct {
		want     map[string]expect
		recorded string
		ok       bool
	}{
		{screen, "soft\u00adhyphen, 한국어", true},
		{screen, "soft\ufffdhyphen, 한국어", true},
		{screen, "softhyphen, 한국어", true},
		{screen, "soft\ufffdhyphen, 한국어 \ufffd", false},
		{screen, "soft\ufffdhyphen, zero\ufffdwidth", false},
		{screen, "soft-hyphen, 한국어", false},
		{hooked, "soft\u00adhyphen, 한국어", true},
		{hooked, "soft\ufffdhyphen, 한국어", false},
		{hooked, "softhyphen, 한국어", false},
	} {
		got := differs(tt.want, &hook.ToolResponse{Answers: map[string]string{q.Question: tt.recorded}})
		if (got == "") != tt.ok {
			t.Errorf("%q recorded (loose %t): %q, want verified %t", tt.recorded, tt.want[q.Question].loose, got, tt.ok)
		}
	}
}
