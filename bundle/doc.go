// Package bundle owns claudewrap's bug-report bundles. When a form could not
// be answered, claudewrap writes a folder under the user's state directory
// ($XDG_STATE_HOME/claudewrap/bundles, ~/.local/state/… when unset) holding
// what it takes to see why: a recording of Claude's screen (form.cast), the
// questions the hook reported, the decisions, the error and the last screen
// (report.json, screen.txt). `claudewrap replay` reads one back and runs
// recognition on it; a person can attach it to a bug report.
//
// While Claude runs, a [Recorder] keeps the recording in memory, bounded: past
// its limit it starts again from a drawing of the current screen
// ([vt.Snapshot.ANSI]), and the recording's header names the Claude
// Code version that drawing was measured by ([vt.Snapshot.Version]), so
// a replay measures alike. The package writes and reads files only when
// asked to; it knows nothing of PTYs or keys.
package bundle
