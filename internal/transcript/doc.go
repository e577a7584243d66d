// Package transcript reads Claude Code's session transcript (JSON lines
// under ~/.claude/projects/): the tool calls Claude made ([Use]), the
// tool_results it recorded for them ([Result]), and its last message
// ([Tail]: whether Claude's turn is over); [Await] reads it again as
// Claude writes it (inotify on Linux), until what is looked for shows. It
// only reads, and only a regular file opened without blocking: a path from
// a hook message may name a FIFO.
package transcript
