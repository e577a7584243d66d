// Package transcript reads Claude Code's session transcript (JSON lines
// under ~/.claude/projects/): the tool calls Claude made and the
// tool_results it recorded for them, its last message (whether Claude's
// turn is over), and which session a transcript is. It only reads, and only a regular
// file, opened without blocking: a path from a hook message may name a FIFO.
package transcript
