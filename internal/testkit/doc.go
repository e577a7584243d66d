// Package testkit holds the helpers that tests of several packages share:
// the termios of a terminal on every OS, a buffer a process writes to
// while a test reads it, hostile text with a check that none of it reached
// a terminal raw, and what tests of refused files need: a sticky
// directory, another user's file, a FIFO, a deadline on a call that could
// wait for ever. It is for tests only; nothing else imports it.
package testkit
