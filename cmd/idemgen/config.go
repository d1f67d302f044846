package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v4"
)

// genSettings are the inputs of `idemgen generate`.
type genSettings struct {
	Spec            string   `yaml:"spec"`
	Package         string   `yaml:"package"`
	Out             string   `yaml:"out"`
	Module          string   `yaml:"module"`
	SkipUnsupported bool     `yaml:"skip-unsupported"`
	Server          bool     `yaml:"server"`
	AllowRemoteRefs bool     `yaml:"allow-remote-refs"`
	RefRoot         string   `yaml:"ref-root"`
	Overlays        []string `yaml:"overlays"`
	Check           bool     `yaml:"-"`
	// PackageNote, when not empty, says how the package name derived from
	// Module was changed to one Go can import.
	PackageNote string `yaml:"-"`
}

// readConfig loads a generate config file. Unknown keys are errors, so a typo
// does not silently fall back to a default. Relative paths resolve against
// the file's directory: the config means the same whatever directory
// idemgen runs from.
func readConfig(path string) (genSettings, error) {
	var s genSettings
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return s, err
	}
	dir := filepath.Dir(path)
	paths := []*string{&s.Spec, &s.Out, &s.RefRoot}
	for i := range s.Overlays {
		paths = append(paths, &s.Overlays[i])
	}
	for _, p := range paths {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	return s, nil
}

// resolveSettings merges, from weakest to strongest: the config file named by
// --config, the SPEC argument, and the flags the user set.
func resolveSettings(cmd *cobra.Command, args []string, flags genSettings, configPath string) (genSettings, error) {
	s := genSettings{}
	if configPath != "" {
		c, err := readConfig(configPath)
		if err != nil {
			return s, usageErrorf("config %s: %v", configPath, err)
		}
		s = c
	}
	if len(args) == 1 {
		s.Spec = args[0]
	}
	set := cmd.Flags().Changed
	if set("package") {
		s.Package = flags.Package
	}
	if set("out") {
		s.Out = flags.Out
	}
	if set("module") {
		s.Module = flags.Module
	}
	if set("skip-unsupported") {
		s.SkipUnsupported = flags.SkipUnsupported
	}
	if set("server") {
		s.Server = flags.Server
	}
	if set("allow-remote-refs") {
		s.AllowRemoteRefs = flags.AllowRemoteRefs
	}
	if set("ref-root") {
		s.RefRoot = flags.RefRoot
	}
	if set("overlay") {
		s.Overlays = flags.Overlays
	}
	s.Check = flags.Check
	if s.Package == "" && s.Module != "" {
		d := derivePackage(s.Module)
		s.Package = d.Name
		if d.Reserved != "" {
			s.PackageNote = fmt.Sprintf("package name %q (the last element of --module %s) %s; using %q (set --package to choose another)",
				d.Reserved, s.Module, packageNameProblem(d.Reserved), d.Name)
		}
	}
	return s, validateSettings(s)
}

// loadSettings are the settings the parser needs.
func (s genSettings) loadSettings() loadSettings {
	return loadSettings{AllowRemoteRefs: s.AllowRemoteRefs, RefRoot: s.RefRoot, Overlays: s.Overlays}
}

func validateSettings(s genSettings) error {
	switch {
	case s.Spec == "":
		return usageErrorf("missing SPEC: name the OpenAPI document as an argument or as `spec` in --config")
	case s.Package == "" && s.Module != "":
		return usageErrorf("--module %q gives no usable package name; set --package", s.Module)
	case s.Package == "":
		return usageErrorf("missing --package: the Go package name of the generated client")
	case packageNameProblem(s.Package) != "":
		return usageErrorf("--package %q is not a valid Go package name: it %s", s.Package, packageNameProblem(s.Package))
	case s.Out == "":
		return usageErrorf("missing --out: the directory to write the client into")
	case s.Module != "" && !isModulePath(s.Module):
		return usageErrorf("--module %q is not a module path (such as github.com/acme/payments-go)", s.Module)
	}
	return nil
}
