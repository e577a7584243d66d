package cli

import (
	"strings"
	"testing"
)

func TestUnreadableTerminal(t *testing.T) {
	if got := unreadableTerminal([]string{"TERM=xterm-256color"}); got != "" {
		t.Errorf("xterm-256color: %q, want nothing", got)
	}
	got := unreadableTerminal([]string{"TERM=linux"})
	for _, want := range []string{"TERM=linux", "ASCII", "left to you", "TERM=xterm-256color", "--headless"} {
		if !strings.Contains(got, want) {
			t.Errorf("TERM=linux: %q does not say %q", got, want)
		}
	}
}
