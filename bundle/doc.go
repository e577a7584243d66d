// Package bundle owns claudewrap's bug-report bundles: when a form could not
// be answered, [Write] puts a folder under the user's state directory with a
// recording of Claude's screen, the questions, the decisions, the error and
// the last screen ([Report]), for `claudewrap replay` and bug reports. A
// [Recorder] keeps that recording in memory, bounded, while Claude runs.
//
// It writes and reads files only when asked to; it knows nothing of PTYs
// or keys.
package bundle
