// Command gendocs writes claudewrap's man pages (one per command) and its
// shell completions (bash, zsh, fish) into a folder, from the same cobra
// commands the binary runs, for release archives:
//
//	go run ./cmd/claudewrap/gendocs DIR
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/claudewrap/claudewrap/cmd/claudewrap/internal/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// write puts man/claudewrap*.1 and completions/claudewrap.{bash,zsh,fish}
// under dir.
func write(dir string) error {
	root := cli.NewCmdRoot(os.Stdin, io.Discard, io.Discard)
	root.DisableAutoGenTag = true // the same pages for the same commands, whenever built
	man := filepath.Join(dir, "man")
	comp := filepath.Join(dir, "completions")
	for _, d := range []string{man, comp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	header := &doc.GenManHeader{Title: "CLAUDEWRAP", Section: "1", Source: "claudewrap", Manual: "claudewrap manual"}
	if err := doc.GenManTree(root, header, man); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	for name, gen := range map[string]func(*cobra.Command, string) error{
		"claudewrap.bash": func(c *cobra.Command, p string) error { return c.GenBashCompletionFileV2(p, true) },
		"claudewrap.zsh":  func(c *cobra.Command, p string) error { return c.GenZshCompletionFile(p) },
		"claudewrap.fish": func(c *cobra.Command, p string) error { return c.GenFishCompletionFile(p, true) },
	} {
		if err := gen(root, filepath.Join(comp, name)); err != nil {
			return fmt.Errorf("completion %s: %w", name, err)
		}
	}
	return nil
}
