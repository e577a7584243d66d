// Package fakeapi owns a fake Anthropic Messages API that the real Claude
// Code CLI can talk to offline, so that end-to-end tests drive the real TUI
// with no account and no network. A [Scenario] of [Rule]s says which
// [Block]s (text, tool_use) answer which request; the [Server] streams them
// as the real API does, deterministically, and records every request and
// tool_result it receives ([Server.WaitToolResult]).
//
// It listens on loopback only and knows nothing of terminals, PTYs or
// Claude's screens; cmd/fakeapi is a thin wrapper around [Main].
package fakeapi
