// Package fakeapi owns a fake Anthropic Messages API that the real Claude Code
// CLI can talk to offline, so end-to-end tests can drive the real TUI with no
// account and no network.
//
// A [Scenario], loaded from a YAML (or JSON) file with [Load] or built in Go,
// lists [Rule]s: when the latest user message of a request contains some text,
// or carries a tool_result for a given tool_use id, the [Server] replies with
// the rule's [Block]s (text and tool_use), streamed as server-sent events
// exactly as the real API streams them. Requests without tools (session titles,
// quota checks, topic detection, summaries) are side requests and get a short
// text answer; anything else gets the scenario's default reply ("ok"). A
// string in a tool_use's input may name what Claude Code wrote in the
// request with {{match:REGEX}} (its first submatch), such as the plan file
// plan mode asks for.
//
// The [Server] records every request and every tool_result it receives, so a
// test can wait for the answer Claude Code sends back with
// [Server.WaitToolResult]. Responses are deterministic: ids come from
// counters.
//
// The package listens on loopback only and knows nothing about terminals,
// PTYs or Claude Code's screens; the command in cmd/fakeapi is a thin wrapper
// around [Main].
package fakeapi
