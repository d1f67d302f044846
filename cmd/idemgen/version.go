package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionString returns the module version idemgen was built from: the
// tag `go install ...@v1.2.3` fetched, a pseudo-version, or "(devel)" for a
// build from a work tree that records none.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print idemgen's version",
		Long:    "Print the module version idemgen was built from, as recorded in the binary's build information.",
		Example: "  idemgen version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "idemgen %s\n", versionString())
			return err
		},
	}
}
