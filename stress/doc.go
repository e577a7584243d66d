// Package stress tries claudewrap on forms nobody picked. [Generate] draws
// a [Plan] from a seed: sessions of random AskUserQuestion forms at random
// sizes, with what makes Claude's screens hard (wide and joined characters,
// other scripts, labels like Claude's own UI, a terminal resized or
// answering queries, a person pressing keys). [Run] has the claudewrap
// binary answer them on the real Claude Code against the fake Messages API
// and judges each form by what Claude recorded ([Verdict]); [Summarize]
// tallies the verdicts. [GenerateDialogs] draws the other dialogs Claude
// shows a person (permission prompts, plan approval, the trust dialog, the
// bypass confirmation, MCP servers' input forms, the last judged by what
// the project's test MCP server received).
//
// The same seed and [Generation] always give the same plan. The package
// owns the harness only: it starts processes, plays the person's terminal
// and writes scratch files under the directory it is given; it never
// changes what claudewrap does. It keeps its own Question type and its own
// reading of Claude's records rather than package answer's, so that the
// judge does not share claudewrap's mistakes.
package stress
