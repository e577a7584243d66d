//go:build e2e && full

package e2e

// suite names what this build of the suite holds, for the report's head.
const suite = "the whole suite"
