// Package askflow answers one AskUserQuestion form by closed-loop
// navigation: it waits until the form on the screen agrees with the questions
// the hook reported, then sends one key at a time and waits for the screen to
// show that key's effect before the next. Enter is pressed only when the
// focused row is the intended one, and never twice: a late first copy could
// answer the next question. Moves, ticks and Esc with no visible effect are
// retried a bounded number of times, and the screen must settle before the
// next commit; otherwise askflow stops pressing and reports, with the last
// screen it saw.
//
// askflow reads a [Screen] and sends keys through [Keys]; it never touches
// files, processes or PTYs, and it does not know where decisions come from.
package askflow
