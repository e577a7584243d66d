// Command testprogress reads `go test -json` on stdin and shows a long
// suite's progress: each "e2e: …" line as its check passes, and at the end
// everything the failing tests said. It exits 1 when a test failed or the
// run did not finish. The whole stream goes on unchanged to the file named
// by -log.
//
//	go test -json -tags e2e ./e2e | go run ./tools/testprogress -log .cache/e2e.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	logPath := flag.String("log", "", "write the whole `go test -json` stream to this file")
	flag.Parse()
	var logf *os.File
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testprogress:", err)
			os.Exit(2)
		}
		defer f.Close()
		logf = f
	}
	said := map[string][]string{} // what each test printed, for its failure
	var failed []string
	passed := false
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if logf != nil {
			logf.Write(append(line, '\n'))
		}
		var e event
		if json.Unmarshal(line, &e) != nil {
			fmt.Println(string(line)) // a build error, not JSON
			continue
		}
		switch e.Action {
		case "output":
			if strings.HasPrefix(e.Output, "e2e: ") {
				fmt.Print(e.Output)
			} else if e.Test != "" && !strings.HasPrefix(e.Output, "=== ") {
				said[e.Test] = append(said[e.Test], e.Output)
			} else if e.Test == "" && (strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "panic:")) {
				fmt.Print(e.Output)
			}
		case "fail":
			if e.Test != "" {
				failed = append(failed, e.Test)
			}
		case "pass":
			if e.Test == "" {
				passed = true
				fmt.Printf("ok  \t%s\n", e.Package)
			}
		}
	}
	if len(failed) == 0 && passed {
		return
	}
	fmt.Println("FAILED:")
	for _, t := range failed {
		if strings.Contains(t, "/") || len(said[t]) > 0 {
			fmt.Printf("--- %s\n%s", t, strings.Join(said[t], ""))
		}
	}
	os.Exit(1)
}
