package main

import (
	"runtime/debug"
	"testing"

	"github.com/idemgen/idemgen/generator"
)

// TestRuntimeVersionOf: the runtime version a generated go.mod requires is
// the one the binary was built with, read from its build information.
func TestRuntimeVersionOf(t *testing.T) {
	rt := func(v string, replace *debug.Module) *debug.Module {
		return &debug.Module{Path: generator.RuntimeModule, Version: v, Replace: replace}
	}
	main := debug.Module{Path: "github.com/idemgen/idemgen", Version: "v0.1.0"}
	cases := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"go install @v0.1.0", &debug.BuildInfo{Main: main, Deps: []*debug.Module{rt("v0.1.0", nil)}}, "v0.1.0"},
		{"go tool in a module that selects a newer runtime", &debug.BuildInfo{Main: main,
			Deps: []*debug.Module{{Path: "github.com/spf13/cobra", Version: "v1.10.2"}, rt("v0.2.0", nil)}}, "v0.2.0"},
		{"workspace build", &debug.BuildInfo{Main: debug.Module{Path: main.Path, Version: "(devel)"},
			Deps: []*debug.Module{rt("(devel)", nil)}}, generator.DevelVersion},
		{"replaced by a directory", &debug.BuildInfo{Main: main, Deps: []*debug.Module{rt("v0.1.0", &debug.Module{Path: "../runtime"})}},
			generator.DevelVersion},
		{"replaced by a fork", &debug.BuildInfo{Main: main, Deps: []*debug.Module{rt("v0.1.0",
			&debug.Module{Path: "example.com/fork/runtime", Version: "v0.1.1"})}}, generator.DevelVersion},
		{"go install @commit, after the release", &debug.BuildInfo{Main: debug.Module{Path: main.Path,
			Version: "v0.1.1-0.20261201120000-0123456789ab"}, Deps: []*debug.Module{rt("v0.1.0", nil)}}, "v0.1.1-0.20261201120000-0123456789ab"},
		{"no runtime in the binary", &debug.BuildInfo{Main: main}, ""},
		{"no build information", nil, ""},
	}
	for _, c := range cases {
		if got := runtimeVersionOf(c.info); got != c.want {
			t.Errorf("%s: runtimeVersionOf = %q, want %q", c.name, got, c.want)
		}
	}
}
