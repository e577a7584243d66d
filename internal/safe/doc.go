// Package safe makes text that came from outside claudewrap (Claude's hook
// payloads and screen, a rules file, a recording, a program's output)
// harmless to print on a terminal: [Line], [Text] and [JSON] write every
// character a terminal would act on rather than show escaped, the way %q
// writes it, and leave everything else as it is. It owns only that
// transformation; callers decide what is untrusted and where it is printed.
package safe
