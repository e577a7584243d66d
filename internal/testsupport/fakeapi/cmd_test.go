package fakeapi

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMainCommand(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "results.jsonl")
	portFile := filepath.Join(dir, "port")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		code := Main(ctx, []string{"--scenario", "../../../testdata/scenarios/database.yaml", "--log", logPath,
			"--requests-log", filepath.Join(dir, "requests.jsonl"), "--port-file", portFile}, pw, &stderr)
		pw.Close()
		done <- code
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading URL: %v (stderr %q)", err, stderr.String())
	}
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	port, err := os.ReadFile(portFile)
	if err != nil || !strings.HasSuffix(url, ":"+strings.TrimSpace(string(port))) {
		t.Errorf("port file %q, %v; URL %s", port, err, url)
	}

	replyText(t, url, []map[string]any{{"role": "user", "content": []map[string]any{
		{"type": "tool_result", "tool_use_id": "toolu_01database", "content": "answered"}}}})
	data, err := os.ReadFile(logPath)
	if want := `{"tool_use_id":"toolu_01database","content":"answered","is_error":false,"request":1}` + "\n"; err != nil || string(data) != want {
		t.Errorf("log %q, %v\nwant %q", data, err, want)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Main did not return after cancel")
	}
}

func TestMainBadFlags(t *testing.T) {
	var stderr strings.Builder
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--nope"}, 2},
		{[]string{"extra"}, 2},
		{[]string{"--scenario", "../../../testdata/scenarios/missing.yaml"}, 1},
		{[]string{"--addr", "0.0.0.0:0"}, 1},
	}
	for _, tt := range tests {
		if code := Main(context.Background(), tt.args, io.Discard, &stderr); code != tt.code {
			t.Errorf("%v: code %d, want %d; stderr %q", tt.args, code, tt.code, stderr.String())
		}
	}
}
