// Package answer is the vocabulary of an answer, in one place: the
// questions Claude asks through its AskUserQuestion tool (as the hook
// receives them), what may be done with one (select labels, type text,
// chat, cancel; notes on a chosen option), the checks that make an answer
// valid, and the strings Claude records for it, with Claude's quoting of
// labels that hold ", ", its dropping of a label's VS16 and white space,
// and its U+FFFD for invisible characters, kept to those no other pick of
// the question's labels could leave.
//
// hook, rules, ask, askflow, screen and session all speak it. It imports
// none of them and does no I/O.
package answer
