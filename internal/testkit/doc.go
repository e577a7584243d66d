// Package testkit holds the helpers that tests of several packages share:
// the termios of a terminal on every OS, a buffer a process writes to
// while a test reads it, and hostile text with a check that none of it
// reached a terminal raw. It is for tests only; nothing else imports it.
package testkit
