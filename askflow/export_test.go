package askflow

import (
	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/screen"
)

// SameTypedForTest lets the external tests check sameTyped directly: the
// refusal before any key (TestUnshowableText) hides it otherwise.
var SameTypedForTest = sameTyped

// ReviewMismatchForTest is reviewMismatch for the review page fm of the
// form asking qs, answered with ds.
func ReviewMismatchForTest(fm *screen.Form, qs []answer.Question, ds []answer.Decision) string {
	r := &runner{cfg: Config{Questions: qs, Decisions: ds}}
	return r.reviewMismatch(fm)
}
