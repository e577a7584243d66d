// Package claudetest runs the real Claude Code offline for tests: it finds the
// pinned binaries installed by `make claude`, gives each run an isolated HOME
// pre-seeded past the first-run dialogs, starts the fake Messages API with a
// scenario, and builds the claudewrap binary under test. It never skips: a
// missing Claude Code fails the test with the command that installs it.
package claudetest
