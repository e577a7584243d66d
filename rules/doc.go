// Package rules owns claudewrap's YAML rules: strict loading with errors at
// file:line:col, which files may act (a folder's .claudewrap.yaml only once
// the person allowed its exact content), and matching each question of a
// form, each permission request, each MCP server's input form (its values
// checked against the server's schema) and each dialog to the first rule
// that holds ([Set]). A rule that cannot apply leaves its question unmatched,
// with a reason; nothing is guessed.
//
// It returns decisions: it never presses anything, and never runs a rule's
// program. schema/rules.schema.json describes the same format for editors;
// the tests keep the two in step.
package rules
