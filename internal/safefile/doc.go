// Package safefile opens the files claudewrap writes and the files it reads
// whole, the way OpenSSH opens its own: [Create] writes only a regular file
// of the person's own, never through a link or into a FIFO, and leaves it
// 0600; [MkdirAll] makes 0700 directories and refuses another user's; [Open]
// and [ReadFile] read only regular files, without blocking. A refusal is a
// [RefusedError] with its reason.
//
// It knows nothing of what the files hold; standard streams ("-") are the
// caller's to handle.
package safefile
