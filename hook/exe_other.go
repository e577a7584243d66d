//go:build !linux

package hook

// Exe is the path Claude's hooks run claudewrap by: exe itself, as
// nothing here keeps a removed binary reachable.
func Exe(exe string) string { return exe }
