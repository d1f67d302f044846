package main

import (
	"os"
	"path/filepath"
	"strings"
)

// contender is one program in the generation table.
type contender struct {
	// name heads the contender's columns.
	name string
	// bin is the program's path.
	bin string
	// argv builds the arguments that turn spec into a Go package named pkg
	// in dir; dir already exists and is empty.
	argv func(spec, pkg, dir string) []string
	// generates is false for the floor, which writes nothing.
	generates bool
	// env is added to the program's environment.
	env []string
}

// contenders lists the floors first (load+validate, then load alone), then
// idemgen, then the peers, each configured for a client only: the same job
// idemgen does. The table code relies on this order (see the indexes below).
func contenders(binDir, ogenConfig string) []contender {
	return []contender{
		{name: "kin-floor", bin: filepath.Join(binDir, "kinfloor"),
			argv: func(spec, _, _ string) []string { return []string{spec} }},
		{name: "kin-load", bin: filepath.Join(binDir, "kinfloor"),
			argv: func(spec, _, _ string) []string { return []string{"-load-only", spec} }},
		{name: "idemgen", bin: filepath.Join(binDir, "idemgen"), generates: true,
			argv: func(spec, pkg, dir string) []string {
				return []string{"generate", spec, "--package", pkg, "--out", dir}
			}},
		{name: "oapi-codegen", bin: filepath.Join(binDir, "oapi-codegen"), generates: true,
			argv: func(spec, pkg, dir string) []string {
				// types+client is oapi-codegen's client-only mode; the default
				// adds a server and an embedded spec.
				return []string{"-generate", "types,client", "-package", pkg,
					"-o", filepath.Join(dir, "client.gen.go"), spec}
			}},
		{name: "ogen", bin: filepath.Join(binDir, "ogen"), generates: true,
			argv: func(spec, pkg, dir string) []string {
				return []string{"-config", ogenConfig, "-package", pkg, "-target", dir, spec}
			}},
	}
}

// available reports whether c's binary exists.
func (c contender) available() bool {
	_, err := os.Stat(c.bin)
	return err == nil
}

// packageName derives a Go package name from a spec file name: the
// leading run of letters, lower-cased ("twilio-api-v2010.yaml" -> "twilio").
func packageName(spec string) string {
	base := strings.ToLower(filepath.Base(spec))
	end := strings.IndexFunc(base, func(r rune) bool { return r < 'a' || r > 'z' })
	if end == 0 {
		return "api"
	}
	if end > 0 {
		base = base[:end]
	}
	return base
}

// Indexes into contenders' result, in its order.
const (
	iFloor = iota
	iLoad
	iIdemgen
	iOapi
	iOgen
	nFloors = iIdemgen
)
