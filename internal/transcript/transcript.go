package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/claudewrap/claudewrap/internal/safefile"
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
	f, err := safefile.Open(path)
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
		us, rs := parse(line)
		uses = append(uses, us...)
		for _, r := range rs {
			if _, seen := results[r.id]; !seen {
				results[r.id] = r.Result
			}
		}
	}
	return uses, results
}

// idResult is a tool_result with the id of its tool use.
type idResult struct {
	id string
	Result
}

// parse reads one transcript line: an assistant's tool_uses, or a user's
// tool_results (a line Claude is still writing reads as neither).
func parse(line []byte) ([]Use, []idResult) {
	var entry struct {
		Type    string `json:"type"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &entry) != nil {
		return nil, nil
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
		return nil, nil
	}
	var uses []Use
	var results []idResult
	for _, b := range blocks {
		switch {
		case entry.Type == "assistant" && b.Type == "tool_use":
			uses = append(uses, Use{ID: b.ID, Name: b.Name, Input: b.Input})
		case entry.Type == "user" && b.Type == "tool_result":
			results = append(results, idResult{b.ToolUseID, Result{Content: Text(b.Content), IsError: b.IsError}})
		}
	}
	return uses, results
}

// CancelText is in Claude's tool_result for a tool use the person
// rejected: Esc on a form, or a turn interrupted as the form was asked.
const CancelText = "doesn't want to proceed"

// Cancelled reports whether r is Claude's record of a cancelled tool use.
func Cancelled(r Result) bool { return r.IsError && strings.Contains(r.Content, CancelText) }

// ResultOf reads the tool_result Claude recorded for the tool use id in
// the transcript at path, if any. Only the lines naming id are decoded.
func ResultOf(path, id string) (Result, bool) {
	return (&Tail{Path: path, ID: id}).Result()
}

// Tail reads the record of one tool use, ID, in the transcript at Path
// again and again as Claude writes it: each read goes on after the last
// whole line the one before read (Claude appends whole lines; one still
// being written is read again), from the start when the file was replaced.
type Tail struct {
	Path, ID string
	from     int64       // after the last whole line read
	file     os.FileInfo // the file read from
}

// Result reads on, and returns the record if it is there by now.
func (t *Tail) Result() (Result, bool) {
	f, err := safefile.Open(t.Path)
	if err != nil {
		return Result{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Result{}, false
	}
	if t.file == nil || !os.SameFile(fi, t.file) || t.from > fi.Size() {
		t.from = 0
	}
	t.file = fi
	if _, err := f.Seek(t.from, io.SeekStart); err != nil {
		return Result{}, false
	}
	rd := bufio.NewReaderSize(f, 64*1024)
	name := []byte(`"` + t.ID + `"`)
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			return Result{}, false // a line without its end is read again
		}
		t.from += int64(len(line))
		if bytes.Contains(line, name) {
			_, rs := parse(bytes.TrimSuffix(line, []byte("\n")))
			for _, r := range rs {
				if r.id == t.ID {
					return r.Result, true
				}
			}
		}
	}
}

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
