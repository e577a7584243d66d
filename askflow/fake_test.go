package askflow_test

import (
	"github.com/claudewrap/claudewrap/askflow"
	"github.com/claudewrap/claudewrap/internal/testsupport/fakeclaude"
)

// Short names for the fake Claude (internal/testsupport/fakeclaude) these tests drive.
type (
	fq         = fakeclaude.Question
	fo         = fakeclaude.Option
	faults     = fakeclaude.Faults
	fakeClaude = fakeclaude.Claude
	fakeState  = fakeclaude.State
	fakeForm   = fakeclaude.Form
)

const (
	stateOpen      = fakeclaude.Open
	stateSubmitted = fakeclaude.Submitted
	stateCancelled = fakeclaude.Cancelled
	stateChatted   = fakeclaude.Chatted
)

var (
	newFake   = fakeclaude.New
	hookOf    = fakeclaude.Answers
	otherPos  = fakeclaude.OtherPos
	buttonPos = fakeclaude.ButtonPos
	chatPos   = fakeclaude.ChatPos
)

var _ askflow.Keys = (*fakeClaude)(nil)
