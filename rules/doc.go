// Package rules owns claudewrap's YAML rules: strict loading with errors at
// file:line:col, which files may act (a folder's .claudewrap.yaml only once
// the person allowed its exact content), and matching each question of a
// form, each permission request, each MCP server's input form (its values
// checked against the server's schema) and each dialog to the first rule
// that holds ([Set]). A rule that cannot apply leaves its question unmatched,
// with a reason; nothing is guessed.
//
// A permission request is read before it is judged: a Bash command is
// parsed (mvdan.cc/sh) into the simple commands it runs ([ReadCommand]), a
// path is cleaned, made absolute and followed through its symbolic links
// ([PathReadings]). A rule that lets the call run must hold for all of it;
// one that refuses or asks, for a part.
//
// It returns decisions: it never presses anything, never runs a rule's
// program or a command it reads, and reads the file system only to follow
// a path's links. schema/rules.schema.json describes the same format for
// editors; the tests keep the two in step.
package rules
