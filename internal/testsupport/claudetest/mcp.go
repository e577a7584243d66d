package claudetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	mcpOnce sync.Once
	mcpPath string
	mcpErr  error
	mcpOut  []byte
)

// MCPDemo builds the project's MCP test server (internal/testsupport/mcpdemo)
// once per test process and returns its path.
func MCPDemo(t testing.TB) string {
	t.Helper()
	p, err := BuildMCPDemo(Root(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// BuildMCPDemo builds the MCP test server from the repository at root once
// per process and returns its path.
func BuildMCPDemo(root string) (string, error) {
	mcpOnce.Do(func() {
		dir, err := os.MkdirTemp("", "claudewrap-mcpdemo-")
		if err != nil {
			mcpErr = err
			return
		}
		mcpPath = filepath.Join(dir, "mcpdemo")
		cmd := exec.Command("go", "build", "-o", mcpPath, "./internal/testsupport/mcpdemo")
		cmd.Dir = root
		mcpOut, mcpErr = cmd.CombinedOutput()
	})
	if mcpErr != nil {
		return "", fmt.Errorf("build mcpdemo: %v\n%s", mcpErr, mcpOut)
	}
	return mcpPath, nil
}

// MCPConfig is Claude's --mcp-config value that runs the MCP test server
// as "demo", appending what it is answered to log; args go to the server
// (-message, -schema).
func MCPConfig(t testing.TB, log string, args ...string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"demo": map[string]any{"command": MCPDemo(t), "args": append([]string{"-log", log}, args...)}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
