// Package ask owns claudewrap's own question prompt: when no rule answers a
// question and Claude runs headless, it shows the question on the person's
// terminal (header, text, numbered options with descriptions, a multi-select
// hint) and reads an answer with line editing — a number, several numbers,
// free text, /chat or /cancel — and returns it as a decision. It never
// touches Claude's PTY: askflow then drives Claude's form.
package ask
