package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/session"
)

// Set by the linker: -X github.com/claudewrap/claudewrap/cmd/claudewrap/internal/cli.version=...
var (
	version = "dev"
	commit  = ""
)

// NewCmdVersion prints the version, commit and Go version.
func NewCmdVersion(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprint(stdout, versionString())
			return nil
		},
	}
}

// versionString is what `claudewrap version` and `claudewrap --version`
// print.
func versionString() string {
	v, c := version, commit
	if bi, ok := debug.ReadBuildInfo(); ok && v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version // go install …@v1.2.3 sets no -X, but the module's version
	}
	if c == "" {
		c = "unknown"
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					c = s.Value
				}
			}
		}
	}
	return fmt.Sprintf("claudewrap %s\ncommit %s\n%s %s/%s\nClaude Code %s and later (proven up to %s)\n", v, c, runtime.Version(), runtime.GOOS, runtime.GOARCH,
		session.OldestSupported, session.NewestProven)
}
