// Package bench measures claudewrap as a person and an unattended run feel
// it: passthrough throughput and key latency against a bare PTY, the
// emulator's throughput, the time to answer a real Claude Code form, many
// forms answered through the inbox beside the local socket, claudewrap's
// share of the CPU of many headless runs at once, and memory over a long
// session, gathered in [Results].
//
// The measurements are tests behind the build tag bench (`make bench`), so
// `go test ./...` only checks the stream generator ([Stream]) and the table.
// It drives claudewrap from outside and owns nothing the product uses.
package bench
