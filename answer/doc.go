// Package answer is claudewrap's one vocabulary for answers: a [Question] as
// Claude's AskUserQuestion tool asks it, a [Decision] on it (select labels,
// type text, chat, cancel; notes on a chosen option), the checks that make a
// decision valid, and the strings Claude records for it.
//
// hook, rules, ask, askflow, screen and session all speak it; it imports
// none of them and does no I/O.
package answer
