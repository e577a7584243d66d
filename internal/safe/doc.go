// Package safe makes text that came from outside claudewrap (Claude's hook
// payloads and screen, an MCP server's words, a rules file, a recording, a
// program's output) harmless to print on a terminal: every character a
// terminal would act on rather than show is written escaped, the way %q
// writes it, and everything else is left as it is. It owns only that
// transformation; callers decide what is untrusted and where it is printed.
package safe
