// Package transcript reads Claude Code's session transcript (JSON lines
// under ~/.claude/projects/): the tool calls Claude made and the
// tool_results it recorded for them. It only reads.
package transcript
