// Package testkit holds the helpers that tests of several packages share:
// a terminal's termios, a buffer a process writes while a test reads it
// ([SyncBuffer]), hostile text, and the files safefile refuses (a FIFO, a
// sticky directory, another user's file). Only tests import it.
package testkit
