// Package bench measures claudewrap as a person and an unattended run feel
// it: passthrough throughput and keystroke latency against a bare PTY, the
// emulator's throughput and allocations, the time to answer a real Claude
// Code form against an open-loop oracle, and resident memory over a long
// scripted session.
//
// The measurements are tests behind the build tag bench (`make bench`, or
// `go test -tags bench -run TestBench -v ./bench`), so `go test ./...` only
// checks that the stream generator and the table work. The child programs
// the measurements run (a TUI imitation, an echoing raw-mode program, a
// timestamping hook shim) are in bench/benchchild.
//
// It owns nothing the product uses: it drives the claudewrap binary, the
// session, ptyhost and screen packages from outside.
package bench
