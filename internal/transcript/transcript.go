package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
)

// Use is a tool_use Claude recorded.
type Use struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// Result is a tool_result Claude recorded.
type Result struct {
	Content string
	IsError bool
}

// Read reads the tool_uses (in order) and tool_results of a
// Claude Code transcript (JSON lines). Lines it cannot read are skipped: a
// line being written as it is read is cut short.
func Read(path string) ([]Use, map[string]Result) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	var uses []Use
	results := map[string]Result{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"tool_`)) {
			continue
		}
		var entry struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &entry) != nil {
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if json.Unmarshal(entry.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch {
			case entry.Type == "assistant" && b.Type == "tool_use":
				uses = append(uses, Use{ID: b.ID, Name: b.Name, Input: b.Input})
			case entry.Type == "user" && b.Type == "tool_result":
				if _, seen := results[b.ToolUseID]; !seen {
					results[b.ToolUseID] = Result{Content: Text(b.Content), IsError: b.IsError}
				}
			}
		}
	}
	return uses, results
}

// cancelText is in Claude's tool_result for a tool use the person
// rejected: Esc on a form, or a turn interrupted as the form was asked.
const cancelText = "doesn't want to proceed"

// Cancelled reports whether r is Claude's record of a cancelled tool use.
func Cancelled(r Result) bool { return r.IsError && strings.Contains(r.Content, cancelText) }

// Text is a tool_result's content: a string, or text blocks.
func Text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}
