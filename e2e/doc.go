// Package e2e holds the end-to-end suite: the real Claude Code (every pinned
// version, installed by `make claude`) runs against the fake Messages API,
// under claudewrap, and the tests assert on what Claude recorded. It has no
// code of its own outside tests, and its tests build only with the e2e tag:
// `make test` runs the core (go test -tags e2e), `make test-all` the whole
// suite (-tags e2e,full,browser: the *_full_test.go files add hardening,
// faults, taking over, terminals and text cases), plain `go test ./...` the
// fast unit tests alone.
package e2e
