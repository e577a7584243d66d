// Package askflow answers one AskUserQuestion form by closed-loop
// navigation: it waits until the form on the screen agrees with the questions
// the hook reported, then sends one key at a time and waits for the screen to
// show that key's effect before the next. Enter is pressed only when the
// focused row is the intended one; a key with no visible effect is retried a
// bounded number of times, and then askflow stops pressing and reports, with
// the last screen it saw.
//
// askflow reads a [Screen] and sends keys through [Keys]; it never touches
// files, processes or PTYs, and it does not know where decisions come from.
package askflow
