//go:build !(linux && cgo)

package ptyhost

import (
	"os"

	"github.com/claudewrap/claudewrap/internal/ptyfile"
)

// relayPTY readies the PTY master f for readLoop's own reads: the relay
// thread (relay_cgo.go) needs cgo and Linux's eventfd. f is closed.
func relayPTY(f *os.File, _ *os.File) (*os.File, outRelay, error) {
	p, err := ptyfile.Pollable(f)
	return p, nil, err
}
