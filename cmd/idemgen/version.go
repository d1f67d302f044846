package main

import (
	"fmt"
	"runtime/debug"

	"github.com/idemgen/idemgen/generator"
	"github.com/spf13/cobra"
	"golang.org/x/mod/semver"

	// Linked for its module's version alone: a package of the runtime in the
	// build is what makes BuildInfo.Deps record which runtime release this
	// idemgen was built with (runtimeVersionOf), the one the code it
	// generates is written against.
	_ "github.com/idemgen/idemgen/runtime/wire"
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

// runtimeVersionString returns the version of the runtime module this
// binary was built with, the one a generated go.mod requires.
func runtimeVersionString() string {
	info, _ := debug.ReadBuildInfo()
	return runtimeVersionOf(info)
}

// runtimeVersionOf reads the runtime's version from build information:
// BuildInfo.Deps records the version the build selected, the release's own
// for `go install ...@vX`, newer under `go tool` in a module that requires a
// newer runtime. When idemgen's own version is newer still (a pseudo-version
// of a commit after the release its go.mod names), that one: the generated
// code may use what the runtime gained since, and the runtime module has the
// same pseudo-version at the same commit. A runtime replaced by a directory
// or a fork, or taken from a workspace, is no published version: "(devel)",
// for the placeholder. "" when the binary holds no runtime.
func runtimeVersionOf(info *debug.BuildInfo) string {
	if info == nil {
		return ""
	}
	for _, dep := range info.Deps {
		if dep.Path != generator.RuntimeModule {
			continue
		}
		if dep.Replace != nil || !semver.IsValid(dep.Version) {
			return generator.DevelVersion
		}
		if semver.IsValid(info.Main.Version) && semver.Compare(info.Main.Version, dep.Version) > 0 {
			return info.Main.Version
		}
		return dep.Version
	}
	return ""
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
