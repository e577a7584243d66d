//go:build !linux

package ptyhost

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal
// (macOS): there the child is ended by claudewrap's own signal handling.
func dieWithParent(*exec.Cmd) {}
