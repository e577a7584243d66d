package screen

// What Claude Code draws for AskUserQuestion, in one place: every mark and
// word the recogniser looks for, and how the layouts differ by version. Seen
// on the pinned releases 2.1.197, 2.1.227, 2.1.266, 2.1.299, 2.1.321 and
// 2.1.330; the golden screens under testdata/screens/<version>/ keep these
// honest (see its README for which recording shows what).
//
// A question page is read from the bottom up, because a form taller than
// the terminal loses its top (tab row, header, the first lines of the
// question) while its bottom is always drawn:
//
//	←  ☐ Database  ☐ Features  ✔ Submit  →     tab row (several questions), or " ☐ Header" chip
//	                                            blank
//	Which database should we use?               question, wrapped; 2.1.330 draws a multi-line one behind "│ "
//	                                            blank
//	❯ 1. PostgreSQL                             options: layoutList, layoutMulti or layoutPreview below
//	     Relational, robust
//	  …
//	──────────────────────────────────────      rule
//	  5. Chat about this                        numbered, except in the preview layout
//	 ↑ 3 more lines                             2.1.330, when the top is cut off
//	                                            blank
//	Enter to select · ↑/↓ to navigate · … · Esc to cancel    footer, wrapped over up to 4 lines
//
// The review page that follows the last of several questions:
//
//	←  ☒ Database  ☒ Features  ✔ Submit  →
//
//	Review your answers
//
//	⚠ You have not answered all questions       only when one was skipped
//
//	 ● Which database should we use?            2.1.330 may draw it "│ ● …"; long ones wrap
//	   → SQLite                                 multi-select: labels holding ", " or '"' are quoted
//
//	Ready to submit your answers?               not on every version
//
//	❯ 1. Submit answers
//	  2. Cancel
//
// Where the pinned versions differ (the recogniser accepts every variant, so
// it needs no table of versions; each is in a golden screen):
//
//   - multi-select descriptions are indented 2 columns on 2.1.197, 9 on
//     2.1.330; in the dim colour of the numbers on all versions, as is the
//     "Type something" placeholder (a description such as "2. Not an
//     option" is told from a row by that colour);
//   - 2.1.330 draws a long or multi-line question behind a "│ " gutter, on
//     its page and on the review page, and marks a cut top with " ↑ N more
//     lines" under "Chat about this" or among the review answers;
//   - while "Chat about this" has the focus, the preview layout keeps the
//     pointer on the last option (all versions) and 2.1.197 keeps it on the
//     multi-select button: the chat row's pointer wins;
//   - multi-select answers quote labels holding ", " or '"' (JSON) since
//     2.1.266, on the review page and in what Claude records;
//   - at narrow widths the preview layout squeezes its option column: the
//     pointer vanishes (2.1.197) or the number wraps to the option's second
//     line (2.1.330); 2.1.197 leaves a blank row under a wrapped label,
//     across the box too, and 2.1.227 to 2.1.299 break "Notes:" over two
//     rows; focus then shows only as the label drawn bold;
//   - 2.1.227 splits a multi-select checkbox when its label wraps
//     ("[  Long label" over "]  the rest");
//   - 2.1.227 prints a tab in a preview raw, pushing the box's side out;
//   - in the header chip and on the tab row, 2.1.227 and older give an
//     emoji made of a text character and VS16 two columns and leave the
//     second blank ("☐ ⚠  Risk"), 2.1.266 on draw U+FFFD there ("☐ ⚠� Risk");
//   - 2.1.266 on draw a header holding a double quote or white space at an
//     end as a JSON string (`☐ " Space "`), and a label trimmed, its runs
//     of white space made one; 2.1.227 and older draw both as they are;
//   - 2.1.266 on draw a soft hyphen, a zero-width space, a word joiner or
//     U+FEFF as U+FFFD and leave a direction mark out; 2.1.227 and older
//     leave them all out;
//   - 2.1.321 and older measure a spacing mark (a Devanagari vowel sign)
//     as part of its letter and draw what follows there; 2.1.330 gives it
//     a column, as terminals do (New follows the banner's version);
//   - every version measures a keycap ("1️⃣", drawn "1⃣" from 2.1.266 on)
//     as two columns, where a terminal gives it one; 2.1.266 to 2.1.321
//     draw a preview layout's option row as one run, what follows the
//     keycap unmoved, so New's emulator gives it two (vt.Measure);
//   - a lone Esc takes about half a second to act on 2.1.197;
//   - in Claude's vim mode (editorMode "vim"), 2.1.321 and later type
//     "Type something" in vim's insert mode: the footer then begins
//     "-- INSERT -- · " and ends with "ctrl+g to edit in Vim", not "Esc to
//     cancel" (Form.Insert);
//   - on every version, a review answer whose first word does not fit after
//     its arrow begins on the row below, the arrow alone on its row;
//   - Claude's fullscreen renderer (/tui fullscreen) draws the same form on
//     the alternate screen: nothing here differs.
const (
	pointer      = '❯' // the focused row's marker, in column 0
	nbsp         = '\u00a0'
	moreAbove    = '↑' // in column 0: options above the visible ones
	moreBelow    = '↓' // in column 0: options below the visible ones
	gutter       = '│' // 2.1.330: a multi-line question is drawn behind "│ "
	tabLeft      = '←'
	tabRight     = '→'
	chipOpen     = '☐'
	chipAnswered = '☒'
	chipSubmit   = '✔'
	ruleRune     = '─'

	// The list layouts (single- and multi-select).
	boxOpen     = "[ ] "
	boxTicked   = "[✔] "
	otherSingle = "Type something."
	otherMulti  = "Type something"
	buttonNext  = "Next"   // multi-select, not the last question
	buttonSub   = "Submit" // multi-select, the last question
	chatLabel   = "Chat about this"

	// The footer.
	footerSelect = "Enter to select"
	footerCancel = "Esc to cancel"
	// footerNotes marks the preview layout; footerEditor shows that text is
	// being typed (into "Type something", or into the notes of a preview).
	footerNotes  = "n to add notes"
	footerEditor = "ctrl+g to edit in Vim"
	// footerInsert begins the footer while "Type something" is typed into
	// in vim mode (editorMode "vim", 2.1.321 and later): Esc then leaves
	// insert mode instead of cancelling, and the footer does not end with
	// footerCancel but with footerEditor.
	footerInsert = "-- INSERT -- · "

	// The preview layout (a single-select question whose options have a
	// preview): options on the left (no descriptions, no "Type something",
	// a " ✔" after an option chosen before), the focused option's preview in
	// a box on the right, the notes under the box, "Chat about this" not
	// numbered. 2.1.197 at narrow widths drops the ": " after "Notes".
	boxTopLeft      = '┌'
	boxBottomLeft   = '└'
	boxSide         = '│'
	boxCut          = '├' // "├─── ✂ ─── N lines hidden ┤"
	notesLabel      = "Notes"
	notesHint       = "press n to add notes"
	notesPrompt     = "Add notes on this design…"
	previewChosen   = " ✔"
	previewMinLeft  = 8 // the option column is never narrower
	moreLinesPrefix = "↑ "
	moreLinesSuffix = " more line"

	// The review page.
	reviewTitle    = "Review your answers"
	reviewQuestion = "● "
	reviewAnswer   = "→ "
	reviewArrow    = "→" // an answer's arrow alone on its row
	reviewWarning  = "⚠ "
	submitAnswers  = "Submit answers"
	cancelAnswers  = "Cancel"

	// A rule spans at least 1/minRuleFraction of the width.
	minRuleFraction = 2
)
