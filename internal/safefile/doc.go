// Package safefile opens the files claudewrap writes and the files it reads
// whole, the way OpenSSH opens its own: what another user planted, or what
// never ends, is refused with the reason before a byte is written or read.
//
// [Create] writes only a regular file of the person's own with one link,
// never through a symbolic link, opened without blocking (a FIFO is refused,
// not waited on), and leaves it 0600 whatever it was before. [MkdirAll]
// makes the directories claudewrap keeps files in, 0700, and refuses one
// another user owns or can change; [CheckDir] checks one without making
// it. [Open] and [ReadFile] read only a regular file, again without
// blocking, [ReadFile] up to a limit.
//
// The package knows nothing of what the files hold; callers name them and
// say how much of a file they read. Standard streams ("-") are the
// caller's to handle.
package safefile
