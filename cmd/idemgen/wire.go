package main

import (
	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// defaultToolchain wires the commands to the parser and the generator.
func defaultToolchain() toolchain {
	return toolchain{load: loadSpec, generate: generateFiles, check: generator.Check}
}

func loadSpec(path string, ls loadSettings) (*ir.API, ir.Diagnostics, error) {
	return parser.Load(path, parser.Options{AllowRemoteRefs: ls.AllowRemoteRefs, RefRoot: ls.RefRoot})
}

func generateFiles(api *ir.API, pkg string, skip bool) ([]genFile, ir.Diagnostics, error) {
	out, err := generator.Generate(api, generator.Config{Package: pkg, SkipUnsupported: skip})
	if err != nil {
		return nil, nil, err
	}
	files := make([]genFile, len(out.Files))
	for i, f := range out.Files {
		files[i] = genFile{Name: f.Name, Content: f.Content}
	}
	return files, out.Skipped, nil
}
