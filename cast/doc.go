// Package cast reads ([Reader], [Read]) and writes ([Writer]) asciicast v2
// recordings: the output Claude drew ("o" events), the keys the wrapper
// sent ("i") and resizes ("r"). It owns the file format only; it does not
// know about PTYs or screens.
package cast
