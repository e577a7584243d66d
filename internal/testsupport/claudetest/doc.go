// Package claudetest runs the real Claude Code offline for tests: a
// [Sandbox] has the pinned binary installed by `make claude`, an isolated
// HOME past the first-run dialogs, the fake Messages API playing a
// scenario, and the claudewrap binary under test. It never skips: a missing
// Claude Code fails the test with the command that installs it.
package claudetest
