// Package rules owns claudewrap's YAML answer rules: strict loading with
// errors at file:line:col, the default file locations, and matching each
// question of a form to the first rule whose conditions hold. A rule that
// cannot apply to the question it matched makes that question unmatched,
// with a reason; nothing is guessed. It reads files and questions, and
// returns decisions: it never presses anything.
package rules
