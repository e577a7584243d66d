// Command fakeapi serves a fake Anthropic Messages API on loopback for
// end-to-end tests of the real Claude Code; see package fakeapi.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/claudewrap/claudewrap/internal/testsupport/fakeapi"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := fakeapi.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
