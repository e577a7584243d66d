// Package testkit holds the helpers that tests of several packages share:
// the termios of a terminal on every OS, and a buffer a process writes to
// while a test reads it. It is for tests only; nothing else imports it.
package testkit
