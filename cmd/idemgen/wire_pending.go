package main

import (
	"errors"

	"github.com/idemgen/idemgen/ir"
)

// errNotYet is returned until the parser and the generator packages land;
// wire.go replaces this file then.
var errNotYet = errors.New("not yet: the parser and generator packages are not wired in this build")

// defaultToolchain wires the commands to the parser and the generator.
func defaultToolchain() toolchain {
	return toolchain{
		load: func(string, bool) (*ir.API, ir.Diagnostics, error) { return nil, nil, errNotYet },
		generate: func(*ir.API, string, bool) ([]genFile, ir.Diagnostics, error) {
			return nil, nil, errNotYet
		},
	}
}
