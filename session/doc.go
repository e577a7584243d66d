// Package session runs one claudewrap session: it starts Claude Code in a
// PTY (ptyhost) with claudewrap's hooks added (hook), decides an answer for
// every question a form asks (through a [Decider], e.g. rules), has askflow
// drive the form, checks what Claude recorded against the intent, writes the
// events, and reports the outcome the exit status is made of.
//
// It is the only package that sees all the others; each of them stays
// ignorant of the rest.
package session
