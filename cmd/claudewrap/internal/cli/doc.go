// Package cli holds claudewrap's cobra commands. Each command fills an
// options struct from its flags and calls a run function; the work itself
// lives in the library packages (session, ptyhost, rules, hook, remote,
// inbox, bundle, web). [Main] maps errors to exit statuses and prints each error
// once.
package cli
