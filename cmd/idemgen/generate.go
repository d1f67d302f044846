package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/ir"
)

func newGenerateCmd(tc toolchain) *cobra.Command {
	var flags genSettings
	var configPath string
	cmd := &cobra.Command{
		Use:   "generate [SPEC] --package NAME --out DIR",
		Short: "Generate a typed Go client from an OpenAPI document",
		Long:  generateLong,
		Example: `  idemgen generate api/orders.yaml --package orders --out internal/orders
  idemgen generate api/orders.yaml -p orders -o internal/orders --check
  idemgen generate api/payments.yaml --module github.com/acme/payments-go -o payments-go
  idemgen generate --config idemgen.yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := resolveSettings(cmd, args, flags, configPath)
			if err != nil {
				return err
			}
			if s.PackageNote != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "idemgen: warning: "+s.PackageNote)
			}
			return runGenerate(tc, s, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&flags.Package, "package", "p", "", "Go package name of the generated client")
	f.StringVarP(&flags.Out, "out", "o", "", "directory to write the generated files into (created if missing)")
	f.StringVar(&flags.Module, "module", "", "write a standalone module with this path: go.mod, README.md and example_test.go too")
	f.StringVar(&configPath, "config", "", "YAML file with spec, package, out, server, skip-unsupported, allow-remote-refs, ref-root, overlays, module")
	f.BoolVar(&flags.Check, "check", false, "write nothing; exit 1 if the output on disk differs from what would be generated")
	f.BoolVar(&flags.SkipUnsupported, "skip-unsupported", false, "skip (and report) operations the generator cannot honour instead of failing")
	f.BoolVar(&flags.Server, "server", false, "also write the receiving side: server_gen.go, a Handler interface and NewServer sharing the client's models (docs/server.md), and webhook_receiver_gen.go when the document declares webhooks (docs/webhooks.md)")
	f.BoolVar(&flags.AllowRemoteRefs, "allow-remote-refs", false, "follow $refs to http(s) URLs")
	f.StringVar(&flags.RefRoot, "ref-root", "", "let local $refs also read files under DIR (default: only the spec's folder tree)")
	addOverlayFlag(cmd, &flags.Overlays)
	_ = cmd.MarkFlagDirname("ref-root")
	_ = cmd.MarkFlagFilename("config", "yaml", "yml")
	_ = cmd.MarkFlagDirname("out")
	return cmd
}

// runGenerate loads, generates, and then checks or writes the output.
func runGenerate(tc toolchain, s genSettings, stdout, stderr io.Writer) error {
	api, diags, err := tc.safeLoad(s.Spec, s.loadSettings())
	if err := reportLoad(stderr, s.Spec, diags, err); err != nil {
		return err
	}
	if api == nil {
		return problemf("loading %s produced no document", s.Spec)
	}
	files, skipped, err := tc.safeGenerate(api, s)
	if err != nil {
		var ds ir.Diagnostics
		if errors.As(err, &ds) {
			printDiagnostics(stderr, ds)
			return errProblemsPrinted
		}
		return problemf("generating from %s: %v", s.Spec, err)
	}
	for _, d := range skipped {
		fmt.Fprintf(stderr, "skipped: %s\n", d)
	}
	if s.Check {
		return checkOutput(s.Out, files, stdout)
	}
	if err := writeOutput(s.Out, files, osFS{}); err != nil {
		return problemf("writing %s: %v", s.Out, err)
	}
	return nil
}

// reportLoad prints what loading found and returns an error when generation
// must stop. Warnings are only counted: `go generate` runs this on every
// build, and lint is the place to read them.
func reportLoad(stderr io.Writer, spec string, diags ir.Diagnostics, err error) error {
	var ds ir.Diagnostics
	if errors.As(err, &ds) {
		diags, err = append(diags, ds...), nil
	}
	if err != nil {
		return problemf("%v", err)
	}
	if diags.HasErrors() {
		printDiagnostics(stderr, withoutInfos(diags))
		return errProblemsPrinted
	}
	if n := len(diags.Warnings()); n > 0 {
		fmt.Fprintf(stderr, "idemgen: %s: %s (run `idemgen lint %s` to see them)\n", spec, plural(n, "warning"), spec)
	}
	return nil
}

// withoutInfos drops the info findings, which only lint prints.
func withoutInfos(ds ir.Diagnostics) ir.Diagnostics {
	var out ir.Diagnostics
	for _, d := range ds {
		if d.Severity != ir.SeverityInfo {
			out = append(out, d)
		}
	}
	return out
}

// printDiagnostics prints every finding, one per line, prefixed by its
// severity and followed by its rule.
func printDiagnostics(w io.Writer, ds ir.Diagnostics) {
	for _, d := range ds {
		fmt.Fprintln(w, formatDiagnostic(d))
	}
}

// formatDiagnostic renders `severity: file:line:col: op (pointer): message [rule]`.
func formatDiagnostic(d ir.Diagnostic) string {
	s := d.Severity.String() + ": " + d.String()
	if d.Rule != "" {
		s += " [" + d.Rule + "]"
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// generateLong is the command's --help text.
const generateLong = `Generate a typed Go client from an OpenAPI document.

idemgen writes client_gen.go, one <tag>_gen.go per tag, models_gen.go and doc.go into
--out. Every file starts with "// Code generated by idemgen. DO NOT EDIT.". The run is
atomic: everything is rendered and written beside --out first, then moved into place, so
a failed run leaves the previous output untouched. *_gen.go files in --out that idemgen
wrote earlier and no longer produces are removed; no other file in --out is touched.

--module PATH makes --out a standalone module to tag and publish: go.mod (requiring
this idemgen's version), README.md generated from the document and example_test.go
with runnable examples join the package. --package defaults to the module path's
last element ("payments-go" -> "payments"); when that element is a name Go
cannot import (init, main, a keyword, a predeclared identifier such as len),
"api" is appended ("init" -> "initapi") and a warning says so. An explicit
--package Go cannot import is refused.

--config names a YAML file holding the same settings:

  spec: ../api/orders.yaml   # relative paths resolve against the config file's directory
  package: orders
  out: .
  module: ""                 # a module path makes --out a standalone module
  skip-unsupported: false
  allow-remote-refs: false
  ref-root: ..               # local $refs may also read files under this folder
  overlays: [idempotency.overlay.yaml]   # OpenAPI Overlay files, applied in order

Local $refs may only read files in the spec's folder tree; --ref-root DIR widens it
to DIR as well.

The SPEC argument and the flags override the file.

--check writes nothing: it lists the files that would change, appear or disappear and
exits 1 when there are any, for CI.

From go generate, with "tool github.com/idemgen/idemgen/cmd/idemgen" in go.mod:

  //go:generate go tool idemgen generate ../api/orders.yaml -p orders -o .`
