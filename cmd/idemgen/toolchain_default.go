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
	return parser.Load(path, parser.Options{AllowRemoteRefs: ls.AllowRemoteRefs, RefRoot: ls.RefRoot, Overlays: ls.Overlays})
}

func generateFiles(api *ir.API, s genSettings) ([]genFile, ir.Diagnostics, error) {
	out, err := generator.Generate(api, generator.Config{Package: s.Package, SkipUnsupported: s.SkipUnsupported, Server: s.Server,
		Module: s.Module, Version: versionString(), RuntimeVersion: runtimeVersionString()})
	if err != nil {
		return nil, nil, err
	}
	files := make([]genFile, len(out.Files))
	for i, f := range out.Files {
		files[i] = genFile{Name: f.Name, Content: f.Content}
	}
	return files, out.Skipped, nil
}
