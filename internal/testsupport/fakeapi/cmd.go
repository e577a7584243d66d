package fakeapi

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
)

// Main runs the fakeapi command with args (without the program name):
//
//	fakeapi --scenario FILE [--addr 127.0.0.1:0] [--log FILE.jsonl]
//	        [--requests-log FILE.jsonl] [--bodies DIR] [--port-file FILE]
//
// It prints the base URL as the first line of stdout, serves until ctx ends,
// and returns the exit code: 0 after ctx ends, 1 when it cannot start, 2 for
// bad flags.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakeapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scenario := fs.String("scenario", "", "scenario `file` (YAML or JSON); without it every request gets \"ok\"")
	addr := fs.String("addr", "127.0.0.1:0", "loopback `address` to listen on")
	logPath := fs.String("log", "", "append every tool_result received to this JSON-lines `file`")
	reqLogPath := fs.String("requests-log", "", "append every request (without body) to this JSON-lines `file`")
	bodyDir := fs.String("bodies", "", "save every request body to `dir`/NNNN.json")
	portFile := fs.String("port-file", "", "write the port number to this `file` once listening")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fakeapi: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if err := serve(ctx, *scenario, *addr, *logPath, *reqLogPath, *portFile, *bodyDir, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "fakeapi: %v\n", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, scenario, addr, logPath, reqLogPath, portFile, bodyDir string, stdout, stderr io.Writer) error {
	var sc *Scenario
	if scenario != "" {
		var err error
		if sc, err = Load(scenario); err != nil {
			return err
		}
	}
	opts := []Option{
		WithAddr(addr),
		WithLogf(func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }),
	}
	if bodyDir != "" {
		if err := os.MkdirAll(bodyDir, 0o755); err != nil {
			return err
		}
		opts = append(opts, WithBodyDir(bodyDir))
	}
	for _, l := range []struct {
		path string
		opt  func(io.Writer) Option
	}{{logPath, WithToolResultLog}, {reqLogPath, WithRequestLog}} {
		if l.path == "" {
			continue
		}
		f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		opts = append(opts, l.opt(f))
	}
	s, err := Start(sc, opts...)
	if err != nil {
		return err
	}
	defer s.Close()
	if portFile != "" {
		u, err := url.Parse(s.URL())
		if err != nil {
			return err
		}
		if err := writeFileAtomic(portFile, []byte(u.Port()+"\n")); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(stdout, s.URL()); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// writeFileAtomic writes through a temporary file and a rename, so a reader
// polling for the file never sees it half written.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fakeapi-port-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
