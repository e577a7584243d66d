// Package stress tries claudewrap on forms nobody picked: it generates
// random AskUserQuestion forms from a seed (1–4 questions of 2–4 options,
// single- and multi-select, typed answers, chat, cancel, previews with
// notes, long, CJK and emoji text, emoji sequences (ZWJ, VS16, flags,
// skin tones, a keycap, a combining accent), labels that look like
// Claude's own UI, headers holding its tab row's marks, labels holding ", "
// or quotes, other scripts and invisible characters, answers and notes
// typed in other scripts, terminals from 40x16 to 200x50, several forms
// chained in one turn, two asked in one reply), has the claudewrap binary
// answer them on the real Claude Code against the fake Messages API
// (headless, or now and then on a pseudo-terminal as a person's would be,
// resized while the forms are answered, answering Claude's terminal
// queries as no terminal, an xterm or a kitty would, now and then in two
// pieces, the person at it pressing an arrow or Esc now and then; Claude
// drawing some sessions with its fullscreen renderer), and judges every
// form by what Claude recorded: the tool_result the fake API received, and
// for "Chat about this" the message that followed.
// claudewrap's own events are kept for reading, and judged only against
// that record: its report of the person's Esc must match Claude's cancel.
//
// The same seed always gives the same forms, sizes, resizes and intended
// answers; [Generate] is pure. When a resize lands is timed from the
// form's first key event, so what it meets on the screen varies from run to
// run. Each [Generation] of the generator drew more than
// the one before and changed what a seed gives; [GenerateWith] an earlier
// one gives an earlier run's seed its forms again. [Run] drives sessions (one Claude Code process each)
// with bounded parallelism and returns a [Verdict] per form; [Report]
// tallies them per version and per case class.
//
// The package owns the harness only: it starts processes, plays the
// person's terminal for a session on one (terminal.go: resizes, the
// person's key, and replies to Claude's queries, answers.go), and writes scratch files under
// the directory it is given; it never changes what claudewrap does. It keeps its own Question and Option types and its own
// reading of Claude's recorded answers rather than package answer's: a judge
// that shared claudewrap's vocabulary (its label quoting, say) would share
// its mistakes.
package stress
