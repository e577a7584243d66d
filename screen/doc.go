// Package screen owns the emulated copy of Claude Code's terminal: it feeds the
// child's output through a terminal emulator of its own (behind the [Emulator]
// interface), answers the child's terminal queries when asked to, and hands out
// thread-safe, immutable [Snapshot]s.
//
// It knows nothing about PTYs, files or processes: bytes come in through Write,
// replies go out through an io.Writer given at construction. Recognising forms on
// a snapshot also lives here, so that all knowledge of what Claude draws is in
// one package: layout.go describes every layout (the list, multi-select and
// preview layouts of a question page, the review page) and how they differ by
// version, recognize.go reads them from the bottom of the screen up (a form
// taller than the terminal loses its top, a long list scrolls), and compare.go
// holds a page against the questions the hook reported. The golden screens in
// testdata/screens/<version>/ are recorded from every pinned Claude Code.
// dialog.go reads the other menus Claude draws (the folder trust dialog,
// permission prompts, plan approval) as a [Dialog]. position.go says where each element of a page is in the order Up and Down
// walk, prompt.go reads Claude's own input box and its echoes of messages
// sent, away.go Claude's sessions view (the conversation moved to the
// background, [SessionsView]), and typed.go tells keys the person typed from the terminal's own
// reports that arrive on the same input (strictly, so that no key passes for
// a report; the pointer moving is one where Claude draws nothing on a form
// for it, PointerInert), and the person's Esc in every encoding (EscPressed);
// pointer.go what Claude draws after the pointer, which is no change
// (SameBesidePointer).
//
// A tokenizer (filter.go) keeps its state across writes, gives wide characters
// two cells, drops what has no place on the screen (kitty keyboard and other
// marked or intermediate CSI sequences, OSC and DCS strings, redundant
// alternate-screen switches, synchronized-output marks), answers queries (DA1,
// DA2, XTVERSION, DSR, CPR, DECRQM, OSC 10/11) and drives a cell grid
// (term.go). The grid behaves as github.com/hinshun/vt10x behind that
// tokenizer did, which this package used until its per-character allocations
// made it the bottleneck; the tests keep vt10x as a reference (FuzzOracle).
// One difference is on purpose: an emoji joined to a wide character by a
// zero-width joiner, or a skin tone, gets no cells (Claude Code lays the
// sequence out as its first emoji), and compare.go's Squash leaves such
// characters out of both sides of a comparison. Another follows Claude's
// version, given (Options.Version, from the install) or read from its
// banner ("Claude Code v2.1.321"): up to 2.1.321, a spacing mark (a
// Devanagari vowel sign) gets no cell of its own, as those versions
// measure it; a snapshot says which (Snapshot.MarksJoin, Snapshot.Version),
// and typed text
// is compared with its marks where they get a cell (SquashTypedOn).
//
// The emulator does not allocate while it reads ordinary output. A snapshot
// copies only the rows that changed since the last one and shares the others,
// and is returned again as long as nothing changes, so its Cells must not be
// modified.
//
// Skip (skip.go) is for a feeder that fell behind: the screen is forgotten,
// the private modes (the alternate screen above all) are kept.
//
// A screen is settled when it is not inside a synchronized update and either
// one just ended or output has paused for [Options.Quiet]; [Emulator.Wait] looks
// only at settled screens, so it never judges a half-drawn frame. A resize
// unsettles the screen the same way: the old frame cut to the new size waits
// for the child's redraw, or the quiet period.
package screen
