package transcript

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/claudewrap/claudewrap/internal/safefile"
)

// Follow reads the tool uses and tool results Claude appends to the
// transcript at Path, each call going on after the last whole line the one
// before read (from the start when the file was replaced).
type Follow struct {
	Path string
	from int64
	file os.FileInfo
}

// Next returns the tool uses and results written since the last call.
func (fl *Follow) Next() ([]Use, map[string]Result) {
	f, err := safefile.Open(fl.Path)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil
	}
	if fl.file == nil || !os.SameFile(fi, fl.file) || fl.from > fi.Size() {
		fl.from = 0
	}
	fl.file = fi
	if fi.Size() == fl.from {
		return nil, nil
	}
	if _, err := f.Seek(fl.from, io.SeekStart); err != nil {
		return nil, nil
	}
	var uses []Use
	results := map[string]Result{}
	rd := bufio.NewReaderSize(f, 64*1024)
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			return uses, results // a line without its end is read again
		}
		fl.from += int64(len(line))
		if !bytes.Contains(line, []byte(`"tool_`)) {
			continue
		}
		us, rs := parse(bytes.TrimSuffix(line, []byte("\n")))
		uses = append(uses, us...)
		for _, r := range rs {
			results[r.id] = r.Result
		}
	}
}
