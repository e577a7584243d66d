// Package rules owns claudewrap's YAML answer rules: strict loading with
// errors at file:line:col, the default file locations and which of them may
// act (a folder's .claudewrap.yaml only once the person allowed its exact
// content, kept in their config folder), and matching each
// question of a form to the first rule whose conditions hold. A rule that
// cannot apply to the question it matched makes that question unmatched,
// with a reason; nothing is guessed. It reads rule files and forms (a
// hook's tool_input), and returns decisions: it never presses anything,
// and never runs a rule's program (CheckFile only looks it up).
//
// The JSON Schema in schema/rules.schema.json describes the same format for
// editors; the tests keep the two in step.
package rules
