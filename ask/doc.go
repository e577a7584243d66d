// Package ask owns claudewrap's own question prompt: when no rule answers a
// question and Claude runs headless, a [Prompter] shows it on the person's
// terminal and reads an answer, which [Parse] turns into an
// answer.Decision. It never touches Claude's PTY: askflow then drives
// Claude's form.
package ask
