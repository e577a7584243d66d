// Package askflow answers one AskUserQuestion form by closed-loop
// navigation: it waits until the form on the screen agrees with the questions
// the hook reported, then sends one key at a time and waits for the screen to
// show that key's effect before the next. An option whose row shows its
// number, with the focus on an option row, is pressed by that number: on
// every pinned version it commits a single-select question's option and
// ticks a multi-select one's, one key where a walk takes several
// (testdata/screens/*/digit-*). A single-select option's number that
// leaves no trace is not sent again (the option is walked to instead); a
// tick's is, as a tick by Enter is. Elsewhere (a preview page, the focus
// on "Type something", a list scrolled or not showing option 1, a
// multi-select page not shown whole) and with [Config.Walk] (the session
// sets it when a person is on Claude's screen) it steers by the focused
// row alone,
// its place counted from the hook's questions, so a list that scrolls or a
// form taller than the screen is walked like any other, the shorter way
// (Up on option 1 wraps to "Type something"). Enter is pressed only
// when the focused row is the intended one (and, on a preview question, its
// notes show as intended), and twice only when Claude visibly dropped it on
// the last question or on "Chat about this", where a late copy lands on
// Claude's empty prompt. A multi-select question whose whole page shows,
// ticked as intended, is left by Tab (which keeps the ticks) rather than a
// walk down to its Next or Submit button; Tab, like Enter, is never sent
// twice. Before Enter, Tab, n and typed text (the keys that change the
// form) the form is looked at again after any wait: Claude may have
// swapped in another form meanwhile, or a late move landed (the focus is
// then brought back); so is it before a number (when the number no
// longer stands for the option, the focus moved off the options or the
// list scrolled, the form is walked instead). Moves, ticks and Esc with
// no visible effect are retried a bounded number of times, and the
// screen must settle before the next commit; typed text is sent again only while nothing of it shows, and
// must show exactly as typed (white space aside, and spacing marks where
// the screen gives them no cell, on 2.1.321 and older: see
// screen.SquashTypedOn): text holding what the
// screen gives no cell (a skin tone, an emoji joined by ZWJ, a combining
// accent, an invisible character such as a soft hyphen) could never be
// confirmed and is refused before any key. When
// the screen never shows what is awaited, askflow asks (at most twice per
// question) for a full redraw (see [Redrawer]), then stops pressing and
// reports, with the last screen it saw. An option above the top of a page
// taller than the screen never shows, and such a page, at first or after a
// key, can leave no form in sight at all: askflow has the terminal made
// taller if it may (headless, see [Grower]), and otherwise stops there.
// Told how to see another form asked with this one ([Config.Elsewhere]),
// it also stops, with [ErrElsewhere] and no further key, when that form
// shows instead while only moves were sent. Claude's sessions view instead
// of the form (the person's ← moved the conversation to the background)
// stops it at once, with [ErrAway] and no further key.
//
// [Message], the second half of a chat, types into Claude's own prompt once
// it shows empty on a still screen, and counts the message sent when the
// prompt stops holding it or Claude echoes it above the prompt. A prompt
// still holding the session's last message (Claude Code 2.1.197 may keep it
// after sending) is cleared first with Ctrl-U, each key confirmed; any other
// text there is the person's and is never edited.
//
// dialog.go picks an option of a dialog that is not a form ([Choose]) the
// same way: one confirmed arrow at a time, Enter only on the intended row,
// nothing more once the dialog changes.
//
// watch.go answers the session's few questions about the screen around a
// form (is a form shown, is it untouched, are a preview's notes open, has
// Claude's prompt come back) and
// holds its one blind key, [Dismiss]'s Esc, so that the session reads no
// screens itself.
//
// askflow reads a [Screen] and sends keys through [Keys]; it never touches
// files, processes or PTYs, and it does not know where decisions come from.
package askflow
