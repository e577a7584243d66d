// Package session runs one claudewrap session: it starts Claude Code in a
// PTY (ptyhost) with claudewrap's hooks added (hook), and for each question
// Claude asks it decides an answer (a [Decider] such as rules, an [Asker],
// an answer from elsewhere), has askflow give it on the screen or the hook
// return it, checks what Claude recorded, writes the events and reports how
// the run ended ([Report], [Report.Exit]).
//
// A form is a small state machine (deciding, queued, driving, submitted,
// handed over, recorded, done; form.go). The person at Claude's terminal
// comes first: any key of theirs hands the forms being answered to them,
// and a key of claudewrap's checked before theirs reaches Claude before it.
// A Stop ends a turn only once Claude's transcript (or, when that lags, its
// screen) confirms it, and only hook messages of Claude's own session count.
// Every tool's PreToolUse is decided by the deny rules, in every permission
// mode. An MCP server's input form is decided by an [Eliciter] and
// answered on the screen (elicitscreen.go), verified from Claude's
// ElicitationResult hook, or through its Elicitation hook (elicit.go); one
// no rule answers waits, under the wait policy, for an answer from
// anywhere, given and verified the same way (elicitwait.go). A
// headless run that nobody can go on with ends by itself: blocked, exit 7.
//
// One loop, the conductor (conductor.go, with a pump in front that queues
// what it is sent), owns the session's state: the forms and their moves,
// who may press keys (a lease, which the person's key revokes), the run's
// report, the answers from elsewhere that wait for their form's outcome,
// the turn and the dialogs. Workers end in typed events (a drive's end, a
// record to check) or run a step on it (do); session has no mutex. The
// hook reader, which reads Claude's hook messages in order, alone keeps
// which Claude session the run follows (pin.go); one screen watcher hands
// each screen to the watchdogs (watch.go); every event is said through
// say, which writes the log and tells waiters their form's outcome.
//
// Claude is seen through the [Child] interface and its hook messages as a
// channel, so tests drive a session against a fake Claude. session reads
// the screen only through screen's and askflow's parsers; the only files
// it reads are Claude's transcript and the package.json of the install it
// starts.
package session
