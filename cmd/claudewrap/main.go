// Command claudewrap runs Claude Code in a pseudo-terminal it owns and answers
// its AskUserQuestion forms. See README.md.
package main

import (
	"os"

	"github.com/claudewrap/claudewrap/cmd/claudewrap/internal/cli"
)

func main() { os.Exit(int(cli.Main())) }
