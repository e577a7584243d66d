// Package askflow answers Claude Code's forms by driving its screen: an
// AskUserQuestion form ([Run]), a dialog that is not a form ([Choose]), an
// MCP server's input form ([Elicit]), and the message that follows "Chat
// about this", typed into Claude's own prompt ([Message]).
//
// It owns the keys that answer and the checks around them. Every key waits
// for the screen to show the key's effect before the next, and a key that
// commits (Enter, Tab, a number, typed text) goes only once the screen
// shows the intended row, and not within Claude's guard against keys typed
// ahead. When the screen never confirms a step, askflow asks for a redraw
// ([Redrawer]) or, headless, a taller terminal ([Grower]); then it stops
// pressing and returns an [*Error] that holds the last screen seen.
//
// [Config] is one form and its decisions, [Result] how it ended, and
// [DialogConfig] the narrower settings of a dialog. [Showing], [Untouched],
// [AwaitIdle] and their like answer the session's questions about the
// screen around a form, so that the session reads no screens itself.
//
// askflow reads a [Screen] and sends keys through [Keys]. What a form
// looks like is the screen package's: askflow never parses rows itself.
// It never touches files, processes or PTYs, and does not know where
// decisions come from.
package askflow
