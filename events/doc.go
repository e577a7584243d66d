// Package events writes the run's JSON-lines event log ([Log]): one object
// per line, with "ts" in RFC 3339 and "event" naming what happened, and
// every character a terminal would act on escaped, so that the log can be
// printed. It owns the format only; what to report is its callers' choice.
package events
