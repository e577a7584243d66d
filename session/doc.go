// Package session runs one claudewrap session: it starts Claude Code in a
// PTY (ptyhost) with claudewrap's hooks added (hook), decides an answer for
// every question a form asks (through a [Decider], e.g. rules, or an
// [Asker], the person), has askflow drive the form, checks what Claude
// recorded against the intent, writes the events, and reports the outcome
// the exit status is made of ([Report.Exit]; [Mode.Policy] picks the policy
// for unmatched questions).
//
// Each form is a small state machine (form.go: deciding, queued, driving,
// submitted, handed over, recorded, done), and the jobs around it have a
// file each: decide.go, drive.go (which of the forms asked at once goes
// first; headless, the terminal may be made taller for a form that does
// not fit, and a failed form is cancelled, once it shows if it is not on
// the screen: redrawn, then taller, while it does not; one that never
// shows, on a still screen or for the idle limit on a changing one, ends
// the run; a form the person typed on while it was being decided, or
// asked just after their Esc, is theirs, handed over as watch.go hands
// over one being answered, and with an AnswerTimeout the rules answer it
// once they stop typing for that long; after an Esc, watch.go reports the
// cancel Claude records in its transcript as theirs), verify.go (what
// Claude recorded; on a person's terminal the transcript's record, so that
// the person's key (Esc, Ctrl-C) just before a PostToolUse, or after it
// until Claude writes the record, is the cancel, reported as theirs, and a
// cancel recorded with no key of theirs a mismatch, never verified, unless on a form
// claudewrap answered they differ from its answer; a form recorded with
// nobody's key but claudewrap's, none of them for it, is checked as
// claudewrap's, never taken for the person's), turn.go (the end of Claude's turn,
// confirmed in its transcript, or on its screen where the transcript lags,
// before it acts; the chat message, with its bug report if it cannot be
// sent), watch.go (the person typing, forms with no hook), pin.go (which
// hook messages are this Claude's session's; another session followed only
// once its transcript confirms it), gate.go (every tool's PreToolUse
// decided by the deny rules, in every permission mode; Claude's mode said
// when it asks nothing), dialogs.go (permission
// requests, the trust and other dialogs, the person asked about one, the
// watchdog that ends a headless run nobody can go on with: blocked, exit
// 7), permcheck.go (permission answers found in Claude's transcript:
// verified or mismatch), remote.go (answers from elsewhere: claudewrap
// answer, the first answer wins; --notify), exec.go (a rule's program
// decides; a dry run, which presses nothing, ends a headless run at its
// first form: drive.go), hookanswer.go (--answer-via hook), inflight.go (claudewrap's
// key on its way when the person types: taken back; so that it can be,
// drive.go has askflow walk with arrows, never press an option's number,
// while a person is on Claude's screen; and a key checked before they
// typed reaches Claude before their keys, never after), install.go (Claude Code's
// version, from its install, for the emulator). Claude is
// seen through the [Child] interface and its hook messages as a channel, so
// that the tests drive a session against a fake Claude.
//
// It is the only package that sees all the others; each of them stays
// ignorant of the rest. It does not read screens itself: askflow and screen
// say what the screen shows. The files it reads are Claude's transcript,
// named by Claude's SessionStart hook, and the package.json of the install
// it starts (install.go).
package session
